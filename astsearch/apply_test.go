package astsearch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
	"github.com/harnesskit/harnesskit/wfs/wfstest"
)

// TestApplyMetadata runs the write layer's metadata table (owner, xattr, ACL, hard link,
// setuid/setgid/sticky, 0444, symbolic link, FIFO, 243-byte name, a file grown past the limit
// between Rewrite and Apply) through Rewrite + Plan.Apply on a real directory.
func TestApplyMetadata(t *testing.T) {
	plan := func(dir, name string) (*Plan, error) {
		p, err := Rewrite(context.Background(), os.DirFS(dir), Request{Pattern: "console.log($A)", Lang: JavaScript,
			Backend: fixtureBackend, Paths: []string{filepath.Base(name)}}, "logger.info($A)")
		if err == nil && len(p.Files) == 0 {
			err = errors.New("nothing to rewrite (the file was not searched)")
		}
		return p, err
	}
	apply := func(p *Plan, dir string) error {
		w, err := wfs.NewOSFS(dir)
		if err != nil {
			return err
		}
		defer w.Close()
		_, err = p.Apply(context.Background(), w, dir)
		return err
	}
	wfstest.Metadata(t, wfstest.Writer{
		Name:   "file.js",
		Before: []byte(srcThree),
		Edit: func(t *testing.T, dir, name string) error {
			p, err := plan(dir, name)
			if err != nil {
				return err
			}
			return apply(p, dir)
		},
		Plan: func(t *testing.T, dir, name string) func() error {
			p, err := plan(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			return func() error { return apply(p, dir) }
		},
		Limit: wfs.DefaultMaxFileSize,
	})
}

// TestApplyCrashAtEveryStep stops a two-file Apply after every one of its calls, and every
// recovery after every one of its calls: the tree is always the one before or the one after
// the rewrite, with nothing left behind.
func TestApplyCrashAtEveryStep(t *testing.T) {
	root := testenv.Abs("/w") // C:\w on Windows
	tree := func(t *testing.T) *wfs.MemFS {
		m := wfs.NewMemFS()
		for name, data := range map[string]string{"a.js": srcUtil, "sub/b.js": srcThree, "keep.js": srcUtil} {
			if err := m.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	n := wfstest.CrashAtEveryStep(t, wfstest.CrashCase{
		Root: root,
		Tree: tree,
		Commit: func(t *testing.T, fsys wfs.FS) error {
			p, err := Rewrite(context.Background(), wfs.DirFS(fsys, root), Request{Pattern: "console.log($A)", Lang: JavaScript,
				Backend: fixtureBackend, Paths: []string{"a.js", "sub/b.js"}}, "logger.info($A)")
			if err != nil {
				return err
			}
			if len(p.Files) != 2 {
				return errors.New("the rewrite does not plan two files")
			}
			_, err = p.Apply(context.Background(), fsys, root)
			return err
		},
	})
	t.Logf("%d stop points", n)
}
