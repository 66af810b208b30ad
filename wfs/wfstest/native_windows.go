package wfstest

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/windows"
)

// The errors Windows gives where a POSIX system gives the errno the checks name: a write on
// a handle opened read-only, the removal of a directory that is not empty, Readlink of a
// file that is not a link, and a read of a directory.
var (
	errWriteReadOnly error = windows.ERROR_ACCESS_DENIED
	errDirNotEmpty   error = windows.ERROR_DIR_NOT_EMPTY
	errNotALink      error = windows.ERROR_NOT_A_REPARSE_POINT
	errReadDir       error = windows.ERROR_INVALID_FUNCTION
)

// windowsVolume reports whether fi describes a file on a Windows volume (rather than in a
// MemFS, which follows POSIX rules everywhere).
func windowsVolume(fi fs.FileInfo) bool {
	_, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	return ok
}
