//go:build windows

package wfs

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/windows"
)

// lockFileName is the file a directory's lock is taken on under Windows, where a directory
// handle cannot be locked: "<dir>\.hkwfs.lock", created when first needed and left in place
// (an empty file; removing it while no commit runs is harmless).
const lockFileName = ".hkwfs.lock"

// tryLock takes LockFileEx's exclusive lock, without waiting, on the first byte of rel (a
// file), or of rel's lock file (a directory). Windows drops the lock when the process dies.
func tryLock(root *os.Root, rel string) (func(), error) {
	name := rel
	if fi, err := root.Stat(rel); err != nil {
		return nil, err
	} else if fi.IsDir() {
		name = filepath.Join(rel, lockFileName)
	}
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	ol := new(windows.Overlapped)
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return sync.OnceFunc(func() {
		_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
		f.Close()
	}), nil
}
