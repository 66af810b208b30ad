package wfs

import (
	"fmt"
	"io/fs"
)

// links returns the number of hard links of the file fi describes (1 when unknown).
func links(fi fs.FileInfo) uint64 {
	if l, ok := fi.(interface{ nlinks() uint64 }); ok {
		return l.nlinks()
	}
	if n, ok := sysLinks(fi); ok && n > 0 {
		return n
	}
	return 1
}

// writable reports whether the process may write the file fi describes (see ErrReadOnly).
// A MemFS file is judged as by its unprivileged owner.
func writable(fi fs.FileInfo) bool {
	if _, ok := fi.Sys().(memID); ok {
		return fi.Mode().Perm()&0o200 != 0
	}
	if w, ok := sysWritable(fi); ok {
		return w
	}
	return fi.Mode().Perm()&0o200 != 0
}

// sameIdentity reports whether a and b describe one file, unchanged as far as metadata can
// tell: the same file (inode or MemFS node), type, mode bits, size and modification time.
func sameIdentity(a, b fs.FileInfo) bool {
	return SameFile(a, b) && a.Mode()&(fs.ModeType|ModeBits) == b.Mode()&(fs.ModeType|ModeBits) &&
		a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// dirID is a directory's identity as a journal records it ("device:inode"), or "" where the
// system does not say.
func dirID(fi fs.FileInfo) string {
	dev, ino, ok := fileID(fi)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d", dev, ino)
}
