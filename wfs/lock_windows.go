//go:build windows

package wfs

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/windows"
)

// lockFileName is the file a directory's lock is taken on under Windows, where a directory
// handle cannot be locked: "<dir>\.hkwfs.lock", created by the writer that takes the lock and
// removed by it before it lets go, so that no lock file stays in a directory once its writers
// are done.
const lockFileName = ".hkwfs.lock"

// tryLock takes LockFileEx's exclusive lock, without waiting, on the first byte of rel (a
// file), or of rel's lock file (a directory). Windows drops the lock when the process dies.
//
// A directory's lock file comes and goes, so a lock on it counts only while the name still
// leads to the locked file: the holder removes the name before it unlocks, and a writer
// that had opened the file before that finds, once it gets the lock, that the name leads
// nowhere or to a newer file, and reports ErrLocked (it tries again). Every handle os.Root
// opens shares delete access, so the removal never waits for the other handles; where the
// file system keeps a removed file's name until its last handle closes (a delete pending),
// an open of that name is refused with an access denial, which also counts as ErrLocked.
func tryLock(root *os.Root, rel string) (func(), error) {
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		f, err := root.OpenFile(rel, os.O_RDWR, 0)
		if err != nil {
			return nil, err
		}
		unlock, err := lockHandle(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		return sync.OnceFunc(func() { unlock(); f.Close() }), nil
	}
	name := filepath.Join(rel, lockFileName)
	// A lock file is always an empty regular file: anything else at the name (a link, a
	// junction, a file with content that came with the tree) is not this package's to open
	// or remove.
	if fi, err := root.Lstat(name); err == nil && (!fi.Mode().IsRegular() || fi.Size() != 0) {
		return nil, errNotLockFile(root, name, fi)
	}
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			if _, lerr := root.Lstat(name); errors.Is(lerr, windows.ERROR_ACCESS_DENIED) {
				return nil, ErrLocked // the file of a holder that just let go, still pending removal
			}
		}
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, errNotLockFile(root, name, fi)
	}
	unlock, err := lockHandle(f)
	if err == nil && !sameFileAs(root, name, f) {
		unlock()
		err = ErrLocked
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return sync.OnceFunc(func() {
		_ = root.Remove(name) // fails only where nothing is lost: the next holder removes it
		unlock()
		f.Close()
	}), nil
}

// errNotLockFile is the error for a name where a directory's lock file belongs that holds
// something else.
func errNotLockFile(root *os.Root, name string, fi os.FileInfo) error {
	kind := "a file of " + strconv.FormatInt(fi.Size(), 10) + " bytes"
	if !fi.Mode().IsRegular() {
		kind = "not a regular file (" + fi.Mode().Type().String() + ")"
	}
	return &os.PathError{Op: "lock", Path: filepath.Join(root.Name(), name),
		Err: errors.New(filepath.Join(root.Name(), name) + " is not a harnesskit lock file (it is " + kind +
			"; a lock file is empty); nothing was written in this directory: move it away if it is yours, remove it otherwise")}
}

// lockHandle takes the exclusive lock of f's first byte without waiting.
func lockHandle(f *os.File) (func(), error) {
	ol := new(windows.Overlapped)
	h := windows.Handle(f.Fd())
	err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if err != nil {
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return func() { _ = windows.UnlockFileEx(h, 0, 1, 0, ol) }, nil
}

// sameFileAs reports whether rel, opened again now, is the file f has open (same volume and
// file index).
func sameFileAs(root *os.Root, rel string, f *os.File) bool {
	g, err := root.Open(rel)
	if err != nil {
		return false
	}
	defer g.Close()
	var a, b windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &a) != nil ||
		windows.GetFileInformationByHandle(windows.Handle(g.Fd()), &b) != nil {
		return false
	}
	return a.VolumeSerialNumber == b.VolumeSerialNumber && a.FileIndexHigh == b.FileIndexHigh &&
		a.FileIndexLow == b.FileIndexLow
}
