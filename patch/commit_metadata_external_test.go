package patch_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
	"github.com/harnesskit/harnesskit/wfs/wfstest"
)

// TestMetadata runs the write layer's metadata table (owner, xattr, ACL, hard link,
// setuid/setgid/sticky, 0444, symbolic link, FIFO, 243-byte name, a file grown past the limit
// between Plan and Commit) through patch.Apply on a real directory, in the default (atomic)
// mode and in Codex-compatibility (section by section) mode.
func TestMetadata(t *testing.T) {
	update := func(name string) string {
		return "*** Begin Patch\n*** Update File: " + filepath.Base(name) + "\n@@\n-old line\n+new line\n*** End Patch\n"
	}
	for _, mode := range []struct {
		name string
		opts []patch.Option
	}{{name: "atomic"}, {name: "codex_compat", opts: []patch.Option{patch.WithCodexCompat()}}} {
		t.Run(mode.name, func(t *testing.T) {
			wfstest.Metadata(t, wfstest.Writer{
				Name:   "file.txt",
				Before: []byte("old line\nkept line\n"),
				Edit: func(t *testing.T, dir, name string) error {
					a, err := patch.Open(dir, mode.opts...)
					if err != nil {
						return err
					}
					defer a.Close()
					_, err = a.Apply(context.Background(), update(name))
					return err
				},
				Plan: func(t *testing.T, dir, name string) func() error {
					a, err := patch.Open(dir, append([]patch.Option{patch.WithMaxFileSize(64)}, mode.opts...)...)
					if err != nil {
						t.Fatal(err)
					}
					pl, err := a.Plan(context.Background(), update(name))
					if err != nil {
						t.Fatal(err)
					}
					return func() error {
						defer a.Close()
						_, err := a.Commit(context.Background(), pl)
						return err
					}
				},
				Limit: 64,
			})
		})
	}
}

// TestCommitCrashAtEveryStep stops a multi-file commit (an update, an add in a new
// directory, a move and a delete) after every one of its calls, and every recovery after
// every one of its calls: the tree is always the one before or the one after the patch, with
// nothing left behind. Atomic and section-by-section (Codex compatibility) commits.
func TestCommitCrashAtEveryStep(t *testing.T) {
	sections := [][]string{
		{"*** Update File: a.txt", "@@", "-a", "+A"},
		{"*** Add File: new/dir/n.txt", "+n"},
		{"*** Update File: b.txt", "*** Move to: c.txt", "@@", "-b", "+C"},
		{"*** Delete File: d.txt"},
	}
	text := apText(slices.Concat(sections...)...)
	tree := func(t *testing.T) *wfs.MemFS {
		return apTree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "d.txt": "d\n", "keep.txt": "k\n"})
	}
	// The trees once the first k sections are written: section by section, a crash may
	// leave any of them.
	between := func(t *testing.T) []map[string]wfs.Entry {
		var out []map[string]wfs.Entry
		for k := 1; k < len(sections); k++ {
			m := tree(t)
			a, _ := patch.New(m, apRoot)
			if _, err := a.Apply(context.Background(), apText(slices.Concat(sections[:k]...)...)); err != nil {
				t.Fatal(err)
			}
			out = append(out, m.TreeUnder(apRoot))
		}
		return out
	}
	total := 0
	for _, mode := range []struct {
		name    string
		opts    []patch.Option
		between func(t *testing.T) []map[string]wfs.Entry
	}{{name: "atomic"}, {name: "codex_compat", opts: []patch.Option{patch.WithCodexCompat()}, between: between}} {
		t.Run(mode.name, func(t *testing.T) {
			total += wfstest.CrashAtEveryStep(t, wfstest.CrashCase{
				Root:    apRoot,
				Tree:    tree,
				Between: mode.between,
				Commit: func(t *testing.T, fsys wfs.FS) error {
					a, err := patch.New(fsys, apRoot, mode.opts...)
					if err != nil {
						return err
					}
					_, err = a.Apply(context.Background(), text)
					return err
				},
			})
		})
	}
	t.Logf("%d stop points in all", total)
}
