//go:build unix

package astsearch

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHeldFIFOInputs: a FIFO in the tree or named explicitly must not hang the search.
func TestHeldFIFOInputs(t *testing.T) {
	tests := []struct {
		name   string
		paths  []string
		follow bool
	}{
		{name: "fifo_in_tree", paths: []string{"."}},
		{name: "fifo_named_explicitly", paths: []string{"pipe.js"}},
		{name: "link_to_fifo_followed", paths: []string{"."}, follow: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.js"), []byte(srcUtil), 0o644)
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe.js"), 0o644); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			os.Symlink("pipe.js", filepath.Join(dir, "link.js"))
			done := make(chan error, 1)
			go func() {
				_, err := Search(context.Background(), os.DirFS(dir), Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend,
					Paths: tc.paths, FollowSymlinks: tc.follow})
				done <- err
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				// Unblock the reader so the test binary can exit.
				if f, err := os.OpenFile(filepath.Join(dir, "pipe.js"), os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatal("the search hangs on a FIFO")
			}
		})
	}
}
