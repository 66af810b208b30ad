package wfs

import "io/fs"

// SameVersion reports whether a and b (two Stats of one name) describe the same version of
// one file as far as metadata can tell: [SameFile], type and mode bits, size, modification
// time, and status-change time where the system keeps one (not Windows nor MemFS, where an
// in-place rewrite that keeps size and time is not seen). On Windows call SameVersion(fi,
// fi) right after the Stat to fix the file identity it compares.
func SameVersion(a, b fs.FileInfo) bool {
	if a == nil || b == nil || !sameIdentity(a, b) {
		return false
	}
	ca, aok := changeTime(a)
	cb, bok := changeTime(b)
	return aok == bok && ca.Equal(cb)
}
