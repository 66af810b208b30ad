package wfstest

import (
	"errors"
	"fmt"
	"io/fs"
)

// nativePair is the error a check expects: the POSIX errno, or on Windows also the error
// Windows gives for the same thing (an OSFS passes the system's errors through; a MemFS
// gives the POSIX one everywhere).
type nativePair struct{ posix, windows error }

func (p nativePair) Error() string {
	if p.windows == nil {
		return p.posix.Error()
	}
	return fmt.Sprintf("%v (Windows: %v)", p.posix, p.windows)
}

// native pairs the POSIX errno with Windows' error for the same failure (nil off Windows).
func native(posix, windows error) error { return nativePair{posix, windows} }

// matches is errors.Is that also accepts either error of a nativePair.
func matches(err, target error) bool {
	if p, ok := target.(nativePair); ok {
		return errors.Is(err, p.posix) || p.windows != nil && errors.Is(err, p.windows)
	}
	return errors.Is(err, target)
}

// permMask is the permission bits a check compares for fi: all of them, except on a Windows
// volume, which keeps only a read-only attribute (os reports 0666 or 0444 for a file, 0777
// for a directory), where only the owner's write bit means anything.
func permMask(fi fs.FileInfo) fs.FileMode {
	if windowsVolume(fi) {
		return 0o200
	}
	return fs.ModePerm
}
