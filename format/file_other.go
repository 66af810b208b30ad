//go:build !unix

package format

import (
	"io/fs"
	"os"
)

// mayWrite reports whether the file may be written: its read-only attribute is clear.
func mayWrite(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o200 != 0 }

// links is 1: the hard-link count is not read here.
func links(fs.FileInfo) uint64 { return 1 }

// keepOwner does nothing: a replaced file takes the directory's default security.
func keepOwner(*os.Root, string, fs.FileInfo) error { return nil }
