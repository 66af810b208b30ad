package patch_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// TestApplyNeverWritesOutsideThroughLinks keeps, as regressions, patches that try to
// leave the root through the containment check (symlinks to outside directories and
// files, chains, a link to the root's parent, ".." after a name, a dangling link, a
// symlink loop, absolute and relative escapes, a move out): each is refused before any
// write, and the tree outside the root is byte for byte what it was.
func TestApplyNeverWritesOutsideThroughLinks(t *testing.T) {
	tests := []struct {
		name string
		body string
		want error
	}{
		{"add_through_link_to_outside_dir", "*** Add File: out/x.txt\n+hi\n", patch.ErrBlocked},
		{"add_through_link_to_parent", "*** Add File: up/outside/y.txt\n+hi\n", patch.ErrBlocked},
		{"add_dotdot_then_link", "*** Add File: a/../out/z.txt\n+hi\n", patch.ErrBlocked},
		{"add_through_chain", "*** Add File: chain/w.txt\n+hi\n", patch.ErrBlocked},
		{"move_through_link", "*** Update File: f.txt\n*** Move to: out/moved.txt\n@@\n-x\n+y\n", patch.ErrBlocked},
		{"delete_link_to_outside_file", "*** Delete File: tofile\n", patch.ErrBlocked},
		{"update_link_to_outside_file", "*** Update File: tofile\n@@\n-secret\n+pwned\n", patch.ErrBlocked},
		{"add_dangling_link_to_outside", "*** Add File: dangle\n+hi\n", patch.ErrBlocked},
		{"add_through_45_dot_links", "*** Add File: " + strings.Repeat("dot/", 45) + "q.txt\n+hi\n", patch.ErrIO},
		{"add_absolute_outside", "*** Add File: /outside/abs.txt\n+hi\n", patch.ErrBlocked},
		{"add_relative_outside", "*** Add File: ../outside/rel.txt\n+hi\n", patch.ErrBlocked},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := wfs.NewMemFS()
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(m.MkdirAll(testenv.Abs("/ws/a"), 0o755))
			must(m.MkdirAll(testenv.Abs("/outside"), 0o755))
			must(m.WriteFile(testenv.Abs("/ws/f.txt"), []byte("x\n"), 0o644))
			must(m.WriteFile(testenv.Abs("/outside/secret"), []byte("secret\n"), 0o644))
			for link, dest := range map[string]string{
				testenv.Abs("/ws/out"): testenv.Abs("/outside"), testenv.Abs("/ws/up"): "..", testenv.Abs("/ws/chain"): "c2", testenv.Abs("/ws/c2"): "out",
				testenv.Abs("/ws/tofile"): testenv.Abs("/outside/secret"), testenv.Abs("/ws/dangle"): testenv.Abs("/outside/new"), testenv.Abs("/ws/dot"): ".",
			} {
				must(m.Symlink(dest, link))
			}
			before := m.TreeUnder(testenv.Abs("/outside"))
			a, err := patch.New(m, testenv.Abs("/ws"))
			must(err)
			_, err = a.Apply(context.Background(), "*** Begin Patch\n"+tc.body+"*** End Patch\n")
			if !errors.Is(err, tc.want) {
				t.Errorf("Apply = %v, want %v", err, tc.want)
			}
			if after := m.TreeUnder(testenv.Abs("/outside")); !maps.EqualFunc(before, after, func(a, b wfs.Entry) bool {
				return a.Dir == b.Dir && a.Symlink == b.Symlink && string(a.Data) == string(b.Data) && a.Target == b.Target
			}) {
				t.Errorf("outside the root changed: before %v, after %v", before, after)
			}
		})
	}
}
