package patch_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// TestCodexOracleRewriteDefaultOnlyCases: patches that only the default mode places (Codex,
// and the compatibility mode, refuse them or place them elsewhere). The default Rewrite
// renders them so that the Codex binary gives the tree the default Apply gives.
func TestCodexOracleRewriteDefaultOnlyCases(t *testing.T) {
	bin := oracleBinary(t)
	tests := []struct {
		name  string
		files map[string]string
		patch string // between Begin and End
	}{
		{
			name:  "chunks_out_of_order",
			files: map[string]string{"a.txt": "a\nb\nc\nd\ne\n"},
			patch: "*** Update File: a.txt\n@@\n d\n-e\n+E\n@@\n a\n-b\n+B\n",
		},
		{
			name:  "unified_diff_header",
			files: map[string]string{"a.txt": "a\nb\nc\n"},
			patch: "*** Update File: a.txt\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n",
		},
		{
			// Codex takes the first "x" then "y"; the default mode needs the unique place
			// the trimmed context names, the second one.
			name:  "trimmed_context_second_place",
			files: map[string]string{"a.txt": "x\ny\n  x  \nz\n"},
			patch: "*** Update File: a.txt\n@@\n   x  \n-z\n+Z\n",
		},
	}
	root := testenv.Abs("/w/root")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := "*** Begin Patch\n" + tc.patch + "*** End Patch\n"
			newMem := func() *wfs.MemFS {
				m := wfs.NewMemFS()
				m.MkdirAll(root, 0o755)
				for name, data := range tc.files {
					m.WriteFile(root+"/"+name, []byte(data), 0o644)
				}
				return m
			}
			m := newMem()
			a, _ := patch.New(m, root)
			if _, err := a.Apply(context.Background(), text); err != nil {
				t.Fatalf("default Apply: %v", err)
			}
			ours := oracleSimplify(m.TreeUnder(root))
			ra, _ := patch.New(newMem(), root)
			rw, err := ra.Rewrite(context.Background(), text)
			if err != nil {
				t.Fatalf("default Rewrite: %v", err)
			}
			dir := t.TempDir()
			for name, data := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := runOracle(t, bin, dir, rw.Text)
			if diff := cmp.Diff(ours, oracleReadDir(t, dir)); diff != "" {
				t.Errorf("Codex(Rewrite(P)) differs from Apply(P) (-ours +codex):\n%s\nrewritten:\n%s\ncodex output: %s", diff, rw.Text, out)
			}
		})
	}
}
