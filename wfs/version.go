package wfs

import "io/fs"

// SameVersion reports whether two Stats of one name show one version: same [SameFile]
// identity, mode, size, mtime and ctime (not on Windows, MemFS). On Windows, call
// SameVersion(fi, fi) right after the Stat to fix the identity.
func SameVersion(a, b fs.FileInfo) bool {
	if a == nil || b == nil || !sameIdentity(a, b) {
		return false
	}
	ca, aok := changeTime(a)
	cb, bok := changeTime(b)
	return aok == bok && ca.Equal(cb)
}
