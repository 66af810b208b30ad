package wfstest

import "syscall"

// ErrNoHardLinks is the error CreateHardLinkW fails with on a volume without hard links
// (FAT, exFAT): ERROR_INVALID_FUNCTION. A fake file system's Link returns it to stand for
// such a volume.
const ErrNoHardLinks = syscall.Errno(1)
