package wfs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/wfs"
)

// TestLockFilePlantedInTheTree: where a directory's lock file belongs, a file that came with
// the tree (content of its own) is neither opened for the lock nor removed when the lock is
// let go: the commit fails with an error naming it, and the file keeps its content.
func TestLockFilePlantedInTheTree(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, ".hkwfs.lock")
	if err := os.WriteFile(planted, []byte("the project's own file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := wfs.NewOSFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	tx, err := wfs.Begin(o, dir)
	if err != nil {
		t.Fatal(err)
	}
	tx.Create(filepath.Join(dir, "new.txt"), []byte("x"), 0o644)
	_, err = tx.Commit(ctx)
	if err == nil || !strings.Contains(err.Error(), ".hkwfs.lock") {
		t.Fatalf("Commit = %v; want an error naming the planted lock file", err)
	}
	if b, err := os.ReadFile(planted); err != nil || string(b) != "the project's own file\n" {
		t.Fatalf("the planted file = %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt was written: %v", err)
	}
}
