package patchtest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/patch/patchtest"
)

// The package's own file systems pass the conformance check a host runs on its own.
func TestPublicFileSystemsConform(t *testing.T) {
	t.Run("MemFS", func(t *testing.T) {
		patchtest.TestFS(t, patchtest.Config{Permissions: true}, func(t *testing.T) patchtest.Subject {
			m := patch.NewMemFS()
			if err := m.MkdirAll("/t", 0o755); err != nil {
				t.Fatal(err)
			}
			return patchtest.Subject{FS: m, Root: "/t", Symlink: m.Symlink}
		})
	})
	t.Run("OSFS", func(t *testing.T) {
		patchtest.TestFS(t, patchtest.Config{Confined: true, Permissions: os.Geteuid() != 0}, func(t *testing.T) patchtest.Subject {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			o, err := patch.NewOSFS(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { o.Close() })
			return patchtest.Subject{FS: o, Root: dir, Symlink: os.Symlink}
		})
	})
}
