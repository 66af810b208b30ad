//go:build unix

package wfs

import (
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
