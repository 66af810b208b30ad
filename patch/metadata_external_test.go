package patch_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
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
