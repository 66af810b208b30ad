//go:build unix

package webfetch

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// defaultBinaryDir is a directory of this user's own under the temporary directory, so that
// users of one machine never share it.
func defaultBinaryDir() string {
	return filepath.Join(os.TempDir(), "harnesskit-webfetch-"+strconv.Itoa(os.Getuid()))
}

// notPrivate says why fi (from Lstat) is not a private directory, or "".
func notPrivate(fi fs.FileInfo) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "it is a symbolic link"
	case !fi.IsDir():
		return "it is not a directory"
	case fi.Mode().Perm()&0o077 != 0:
		return "it is open to group or others (mode " + strconv.FormatUint(uint64(fi.Mode().Perm()), 8) + ")"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "it belongs to user " + strconv.FormatUint(uint64(st.Uid), 10) + ", not to this process's user " + strconv.Itoa(os.Getuid())
	}
	return ""
}
