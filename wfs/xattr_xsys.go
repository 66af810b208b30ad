//go:build linux || darwin

package wfs

import (
	"bytes"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// copyXattrs copies every extended attribute of src onto dst, POSIX ACLs included (Linux
// keeps them as system.posix_acl_access and system.posix_acl_default). An attribute the
// process may not read or set (security.* and trusted.* without privilege) is skipped; a
// file system without extended attributes has none to copy.
func copyXattrs(src, dst *os.File) error {
	sfd, dfd := int(src.Fd()), int(dst.Fd())
	names, err := listXattrs(sfd)
	if err != nil {
		if skippable(err) {
			return nil
		}
		return err
	}
	for _, name := range names {
		val, err := getXattr(sfd, name)
		if err != nil {
			if skippable(err) || errors.Is(err, unix.ENODATA) {
				continue
			}
			return err
		}
		if err := unix.Fsetxattr(dfd, name, val, 0); err != nil && !skippable(err) {
			return err
		}
	}
	return nil
}

func skippable(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOTSUP) ||
		errors.Is(err, unix.EOPNOTSUPP)
}

func listXattrs(fd int) ([]string, error) {
	buf := make([]byte, 1024)
	for {
		n, err := unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			buf = make([]byte, 2*len(buf))
			continue
		}
		if err != nil {
			return nil, err
		}
		var out []string
		for name := range bytes.SplitSeq(buf[:n], []byte{0}) {
			if len(name) > 0 {
				out = append(out, string(name))
			}
		}
		return out, nil
	}
}

func getXattr(fd int, name string) ([]byte, error) {
	buf := make([]byte, 256)
	for {
		n, err := unix.Fgetxattr(fd, name, buf)
		if errors.Is(err, unix.ERANGE) {
			buf = make([]byte, 2*len(buf))
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}
