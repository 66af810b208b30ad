//go:build unix

package format

import (
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// mayWrite reports whether this process may write the file: the write bit of its class
// (owner, group, others) is set; for root, any write bit (root bypasses the bits, but a file
// nobody may write, such as 0444, is meant to stay as it is).
func mayWrite(fi fs.FileInfo) bool {
	m := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return m&0o222 != 0
	}
	switch uid := os.Geteuid(); {
	case uid == 0:
		return m&0o222 != 0
	case int(st.Uid) == uid:
		return m&0o200 != 0
	case inGroup(int(st.Gid)):
		return m&0o020 != 0
	}
	return m&0o002 != 0
}

func inGroup(gid int) bool {
	if gid == os.Getegid() {
		return true
	}
	groups, _ := os.Getgroups()
	return slices.Contains(groups, gid)
}

// links is the file's number of hard links.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// keepOwner gives the temporary file tmp the owner and group of the file fi describes,
// where the process may (root may set any; an owner may set a group it belongs to). A
// refusal is not an error: the file then belongs to this process, as any new file would.
func keepOwner(root *os.Root, tmp string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	uid := os.Geteuid()
	if uid != 0 && int(st.Uid) != uid {
		return nil
	}
	if err := root.Lchown(tmp, int(st.Uid), int(st.Gid)); err != nil && uid == 0 {
		return err
	}
	return nil
}
