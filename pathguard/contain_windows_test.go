package pathguard_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/pathguard"
)

// TestContainmentOSJunction runs the junction branch on a real NTFS tree: a junction that
// leads outside the root is outside, one that leads back in is inside with its real path,
// and a root below a junction resolves through it. Wine cannot create junctions (its
// FSCTL_SET_REPARSE_POINT answers "not supported"), so there the test skips; the same
// branch is covered through the fake reparse-point seam by TestContainmentJunction.
func TestContainmentOSJunction(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(testenv.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	mkTree(t, tmp, "ws/sub/", "outside/", "real/ws/")
	ws := filepath.Join(tmp, "ws")
	if err := testenv.Junction(filepath.Join(ws, "j"), filepath.Join(tmp, "outside")); err != nil {
		if testenv.Wine() {
			t.Skipf("skipped under Wine: it cannot create junctions (%v); TestContainmentJunction covers the branch through the fake seam", err)
		}
		t.Fatal(err)
	}
	if err := testenv.Junction(filepath.Join(ws, "jin"), filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := testenv.Junction(filepath.Join(tmp, "link"), filepath.Join(tmp, "real")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(ws, "j"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeIrregular == 0 || fi.Mode()&fs.ModeSymlink != 0 {
		t.Fatalf("Lstat(junction).Mode() = %v: the branch expects ModeIrregular without ModeSymlink (Go 1.23+)", fi.Mode())
	}
	c, err := pathguard.NewContainment(ws)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Check(`j\x.txt`); kindOf(t, err) != pathguard.KindOutside {
		t.Errorf(`Check(j\x.txt) = %+v, %v; want outside (the junction leads to %s)`, got, err, filepath.Join(tmp, "outside"))
	}
	got, err := c.Check(`jin\x.txt`)
	if err != nil || got.Real != filepath.Join(ws, "sub", "x.txt") {
		t.Errorf(`Check(jin\x.txt) = %+v, %v; want inside at %s`, got, err, filepath.Join(ws, "sub", "x.txt"))
	}
	below, err := pathguard.NewContainment(filepath.Join(tmp, "link", "ws"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = below.Check("x.txt")
	if err != nil || got.RealBase != filepath.Join(tmp, "real", "ws") {
		t.Errorf("root below a junction: Check(x.txt) = %+v, %v; want RealBase %s", got, err, filepath.Join(tmp, "real", "ws"))
	}
}
