package wfs

import "io/fs"

// SameVersion reports whether a and b, two FileInfos of one name taken at different times,
// describe the same version of the same file as far as metadata can tell: the same file
// ([SameFile]: device and inode, or the MemFS node), the same type and mode bits, size and
// modification time (the test a [Tx] makes before it compares contents), and the same
// status-change time where the system keeps one (which every write, rename onto the name,
// link or mode change moves and no program can set back). Where there is no status-change
// time (Windows, MemFS) a rewrite in place that keeps the size and sets the modification
// time back is not seen: compare the contents when that matters, as a Tx does.
//
// On Windows the identity of an os.Stat result is read from the file when first compared:
// call SameVersion(fi, fi) right after the Stat to fix it to the file stat saw.
func SameVersion(a, b fs.FileInfo) bool {
	if a == nil || b == nil || !sameIdentity(a, b) {
		return false
	}
	ca, aok := changeTime(a)
	cb, bok := changeTime(b)
	return aok == bok && ca.Equal(cb)
}
