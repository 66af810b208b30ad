package wfs_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
	"github.com/harnesskit/harnesskit/wfs/wfstest"
)

// memSubject is a MemFS whose working directory is /work/root (the volume of the current
// directory on Windows).
func memSubject(t *testing.T) wfstest.Subject {
	m := wfs.NewMemFS()
	root := memRoot()
	if err := m.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return wfstest.Subject{FS: m, Root: root, Symlink: m.Symlink}
}

func memRoot() string {
	wd, _ := os.Getwd()
	return filepath.Join(filepath.VolumeName(wd)+string(filepath.Separator), "work", "root")
}

// osSubject is an OSFS whose only base is a fresh temporary directory.
func osSubject(t *testing.T) wfstest.Subject {
	root := testenv.TempDir(t)
	o, err := wfs.NewOSFS(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return wfstest.Subject{FS: o, Root: root, Symlink: os.Symlink}
}

func TestConformance(t *testing.T) {
	t.Run("MemFS", func(t *testing.T) {
		wfstest.TestFS(t, wfstest.Config{Permissions: true}, memSubject)
	})
	t.Run("OSFS", func(t *testing.T) {
		// Permission bits are enforced for a process that is not root, and not on Windows,
		// whose volumes keep only a read-only attribute.
		perms := os.Geteuid() != 0 && runtime.GOOS != "windows"
		wfstest.TestFS(t, wfstest.Config{Confined: true, Permissions: perms}, osSubject)
	})
}
