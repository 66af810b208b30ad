//go:build unix && !freebsd

package wfstest

import "golang.org/x/sys/unix"

// errNoAttr is the errno getxattr(2) returns for an absent attribute.
const errNoAttr = unix.ENODATA
