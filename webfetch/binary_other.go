//go:build !unix

package webfetch

import (
	"io/fs"
	"os"
	"path/filepath"
)

// defaultBinaryDir is under the temporary directory, which is the user's own on Windows.
func defaultBinaryDir() string { return filepath.Join(os.TempDir(), "harnesskit-webfetch") }

// notPrivate says why fi (from Lstat) cannot hold saved binaries, or "". Without Unix owners
// and mode bits only links and non-directories are refused.
func notPrivate(fi fs.FileInfo) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0 || fi.Mode()&fs.ModeIrregular != 0:
		return "it is a symbolic link or a junction"
	case !fi.IsDir():
		return "it is not a directory"
	}
	return ""
}
