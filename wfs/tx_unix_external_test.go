//go:build unix

package wfs_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/wfs"
)

// TestTxDeleteSeesAnEditOfALargeFile: a file over the size limit is never read, so a delete
// compares its metadata only; an edit of the same size whose modification time was set back
// is still seen (by its status-change time) and refused with ErrChanged, the file kept.
func TestTxDeleteSeesAnEditOfALargeFile(t *testing.T) {
	const limit = 16
	for _, edited := range []bool{false, true} {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, "big.bin")
		if err := os.WriteFile(name, bytes.Repeat([]byte("a"), 64), 0o644); err != nil {
			t.Fatal(err)
		}
		o, err := wfs.NewOSFS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		prev, err := wfs.Read(ctx, o, name, limit)
		if err != nil || !prev.Large {
			t.Fatalf("Read = %+v, %v; want a large snapshot", prev, err)
		}
		if edited {
			time.Sleep(10 * time.Millisecond) // let the clock the kernel stamps ctime with move on
			if err := os.WriteFile(name, bytes.Repeat([]byte("b"), 64), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(name, prev.Info.ModTime(), prev.Info.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
		tx, err := wfs.Begin(o, dir, wfs.WithMaxFileSize(limit))
		if err != nil {
			t.Fatal(err)
		}
		tx.Delete(prev)
		_, err = tx.Commit(ctx)
		_, statErr := os.Lstat(name)
		switch {
		case !edited && (err != nil || statErr == nil):
			t.Fatalf("unedited: Commit = %v, file still there: %v", err, statErr == nil)
		case edited && !errors.Is(err, wfs.ErrChanged):
			t.Fatalf("edited with its mtime restored: Commit = %v; want ErrChanged", err)
		case edited && statErr != nil:
			t.Fatalf("edited: the file was deleted: %v", statErr)
		}
	}
}
