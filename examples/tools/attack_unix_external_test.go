//go:build unix

package tools_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/examples/tools"
)

// TestSpecialFilesDoNotBlock: a FIFO (or other non-regular file) inside the workspace,
// as the file read is given, or planted where a .gitignore is read, must not hang a call.
func TestSpecialFilesDoNotBlock(t *testing.T) {
	cases := []struct {
		name  string
		fifo  string // where the FIFO is planted, relative to the root
		tool  string
		args  string
		check func(t *testing.T, out string, err error)
	}{
		{"read_of_fifo_refused", "pipe", "read", `{"file_path":"pipe"}`, func(t *testing.T, out string, err error) {
			if !errors.Is(err, tools.ErrNotText) || !tools.IsToolError(err) {
				t.Errorf("got %q, %v; want an ErrNotText tool error", out, err)
			}
		}},
		{"grep_below_fifo_gitignore", ".gitignore", "grep", `{"pattern":"hello","path":"sub"}`, wantHello},
		{"glob_below_fifo_gitignore", ".gitignore", "glob", `{"pattern":"sub/*.txt"}`, func(t *testing.T, out string, err error) {
			if err != nil || !strings.Contains(out, "sub/x.txt") {
				t.Errorf("got %q, %v; want sub/x.txt listed", out, err)
			}
		}},
		{"grep_tree_with_fifo", "sub/pipe", "grep", `{"pattern":"hello"}`, wantHello},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, dir := toolbox(t)
			if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "sub", "x.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(dir, c.fifo))
			if err := syscall.Mkfifo(filepath.Join(dir, c.fifo), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := invokeWithin(t, 3*time.Second, b.Tool(c.tool), c.args)
			c.check(t, out, err)
		})
	}
}
