//go:build unix

package wfs

import (
	"os"
	"syscall"
)

// copyMeta gives dst the owner and group of src (each where the process may: a change of
// owner needs privilege, a change of group membership of it), then src's extended
// attributes. Both files are opened read-only and non-blocking, and only regular files are
// touched.
func copyMeta(r1 *os.Root, src string, r2 *os.Root, dst string) error {
	sf, err := r1.OpenFile(src, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer sf.Close()
	df, err := r2.OpenFile(dst, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer df.Close()
	si, err := sf.Stat()
	if err != nil {
		return err
	}
	di, err := df.Stat()
	if err != nil {
		return err
	}
	if !si.Mode().IsRegular() || !di.Mode().IsRegular() {
		return syscall.EINVAL
	}
	ss, ok1 := si.Sys().(*syscall.Stat_t)
	ds, ok2 := di.Sys().(*syscall.Stat_t)
	if ok1 && ok2 && (ss.Uid != ds.Uid || ss.Gid != ds.Gid) {
		if df.Chown(int(ss.Uid), int(ss.Gid)) != nil && ss.Gid != ds.Gid {
			_ = df.Chown(-1, int(ss.Gid)) // the group alone, where the process is a member
		}
	}
	return copyXattrs(sf, df)
}
