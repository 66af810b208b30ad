//go:build unix

package wfs

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// fileID returns the device and inode of an operating-system FileInfo.
func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

func sysLinks(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

// sysWritable decides as the kernel would for an open for writing, from the permission bits
// of the caller's class (owner, group, others), except that a superuser, whom the kernel
// lets write anything, is refused a file with no write bit at all.
func sysWritable(fi fs.FileInfo) (bool, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false, false
	}
	perm := fi.Mode().Perm()
	euid := os.Geteuid()
	switch {
	case euid == 0:
		return perm&0o222 != 0, true
	case uint32(euid) == st.Uid:
		return perm&0o200 != 0, true
	case inGroup(st.Gid):
		return perm&0o020 != 0, true
	}
	return perm&0o002 != 0, true
}

func inGroup(gid uint32) bool {
	if uint32(os.Getegid()) == gid {
		return true
	}
	gs, err := os.Getgroups()
	return err == nil && slices.Contains(gs, int(gid))
}

// linkUnsupported reports whether a failed link means "no hard link here" (a file system
// without them, a link count at its maximum, a link the kernel's protected_hardlinks refuses)
// rather than a real failure; the commit then keeps a copy or uses a placeholder instead.
func linkUnsupported(err error) bool {
	return err != nil && (errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EPERM) ||
		errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EMLINK) ||
		errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.ENOSYS))
}

func removeFallback(name string, err error) error { return err }

// inUse is Windows' classification of a switch that another program's open handle blocks;
// here an open file never blocks a rename.
func inUse(name string, err error) error { return err }

// ownedByUs reports whether the file fi describes belongs to the process's user (a MemFS file
// always does).
func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Uid == uint32(os.Geteuid())
}

// permsKept: the permission bits os reports are the file's own here.
func permsKept(fi fs.FileInfo) bool { return true }

func probeInUse(name string) error { return nil }

func sysLinkCount(name string) (uint64, bool) { return 0, false }

// restoreBusy: on Unix a refused restore does not get better by waiting.
func restoreBusy(err error) bool { return false }
