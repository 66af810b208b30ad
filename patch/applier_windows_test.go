package patch_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
)

// TestOpenBelowJunction: a root reached through a junction opens and takes a patch; the
// file lands in the junction's target. Before, Open resolved the root with
// filepath.EvalSymlinks, which no longer follows junctions, and every target then resolved
// outside the file system it had opened. Wine cannot create junctions, so there the test
// skips (pathguard's TestContainmentJunction covers the resolution through a fake seam).
func TestOpenBelowJunction(t *testing.T) {
	tmp := testenv.TempDir(t)
	realWS := filepath.Join(tmp, "real", "ws")
	if err := os.MkdirAll(realWS, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := testenv.Junction(filepath.Join(tmp, "link"), filepath.Join(tmp, "real")); err != nil {
		if testenv.Wine() {
			t.Skipf("skipped under Wine: it cannot create junctions (%v)", err)
		}
		t.Fatal(err)
	}
	a, err := patch.Open(filepath.Join(tmp, "link", "ws"))
	if err != nil {
		t.Fatalf("Open below a junction: %v", err)
	}
	defer a.Close()
	if _, err := a.Apply(context.Background(), "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch\n"); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(realWS, "new.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("new.txt in the junction's target = %q, %v; want \"hello\\n\"", b, err)
	}
}
