//go:build !windows

package wfstest

import "syscall"

// ErrNoHardLinks is the error link(2) fails with on a file system without hard links (FAT
// and exFAT on Linux): EPERM. A fake file system's Link returns it to stand for such a file
// system.
const ErrNoHardLinks = syscall.EPERM
