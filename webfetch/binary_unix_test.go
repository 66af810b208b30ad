//go:build unix

package webfetch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSaveTableUnix: the rows that need Unix special files and hard links.
func TestSaveTableUnix(t *testing.T) {
	runSaveTable(t, []saveCase{
		{name: "fifo_at_name", prepare: func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "report.pdf"), 0o600); err != nil {
				t.Skip("FIFOs unavailable:", err)
			}
		}, wantName: "report-1.pdf"},
		{name: "hard_link_at_name", prepare: func(t *testing.T, dir string) {
			other := filepath.Join(dir, "other.pdf")
			writeFile(t, other, "linked")
			if err := os.Link(other, filepath.Join(dir, "report.pdf")); err != nil {
				t.Skip("hard links unavailable:", err)
			}
		}, wantName: "report-1.pdf"},
		{name: "socket_at_name", prepare: func(t *testing.T, dir string) {
			fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				t.Skip("sockets unavailable:", err)
			}
			defer syscall.Close(fd)
			if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: filepath.Join(dir, "report.pdf")}); err != nil {
				t.Skip("cannot bind a socket here:", err)
			}
		}, wantName: "report-1.pdf"},
	})
}
