//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package wfs

import (
	"errors"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// tryLock takes flock(2)'s exclusive lock, without waiting, on rel opened read-only (a
// directory is locked itself: no lock file is made). The lock belongs to the open file
// description, so two TryLocks of one process exclude each other too, and the kernel drops
// it when the process dies. A lock taken on a file the name no longer leads to (it was
// removed or replaced meanwhile) is given back: ErrLocked, or the error saying the name is
// gone.
func tryLock(root *os.Root, rel string) (func(), error) {
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	rc, err := f.SyscallConn()
	var ferr error
	if err == nil {
		err = rc.Control(func(fd uintptr) { ferr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB) })
	}
	if err == nil {
		err = ferr
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	// The name may have been removed (or replaced) between the open and the lock, by the
	// holder that just let go: the lock is then on a file nobody else will lock again. Only a
	// lock on the file the name still leads to counts.
	held, err := f.Stat()
	if err == nil {
		var now os.FileInfo
		now, err = root.Stat(rel)
		if err == nil && !os.SameFile(held, now) {
			err = ErrLocked
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return sync.OnceFunc(func() { f.Close() }), nil
}
