//go:build !windows

package wfstest

import "io/fs"

// Elsewhere the POSIX errno is the only answer (see native).
var errWriteReadOnly, errDirNotEmpty, errNotALink, errReadDir error

func windowsVolume(fs.FileInfo) bool { return false }
