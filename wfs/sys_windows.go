//go:build windows

package wfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// sysLinks does not know the link count from a FileInfo here (os.Stat reports none); an
// OSFS asks sysLinkCount by name.
func sysLinks(fi fs.FileInfo) (uint64, bool) { return 0, false }

// sysLinkCount reads the named file's link count (GetFileInformationByHandle's
// NumberOfLinks) through a handle that asks for no access and shares everything; a final
// symbolic link is not followed.
func sysLinkCount(name string) (uint64, bool) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, false
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil || info.NumberOfLinks == 0 {
		return 0, false
	}
	return uint64(info.NumberOfLinks), true
}

// sysWritable reads the read-only attribute, which os reports as a mode without write bits.
func sysWritable(fi fs.FileInfo) (bool, bool) { return fi.Mode().Perm()&0o200 != 0, true }

// linkUnsupported reports whether a failed link means "no hard link here" (FAT, exFAT, some
// network file systems, a link count at its maximum).
func linkUnsupported(err error) bool {
	return err != nil && (errors.Is(err, errors.ErrUnsupported) || errors.Is(err, windows.ERROR_NOT_SUPPORTED) ||
		errors.Is(err, windows.ERROR_INVALID_FUNCTION) || errors.Is(err, windows.ERROR_TOO_MANY_LINKS) ||
		errors.Is(err, windows.ERROR_NOT_SAME_DEVICE))
}

// removeFallback retries a removal os.Root refused with ERROR_INVALID_FUNCTION (its
// delete-by-handle call is not implemented by Wine and by some network and third-party file
// systems) with a plain delete of the absolute name, which OSFS has already routed into a
// base.
func removeFallback(name string, err error) error {
	if errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
		return os.Remove(name)
	}
	return err
}

// inUse marks a failed switch of name as ErrInUse when another program holds the file open
// without sharing delete access, which replacing or removing it needs: a sharing or lock
// violation, or an access denial that a re-open asking for exactly DELETE access (sharing
// everything) shows to be a sharing violation rather than a permission.
func inUse(name string, err error) error {
	switch {
	case errors.Is(err, windows.ERROR_SHARING_VIOLATION), errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return fmt.Errorf("%w: %w", ErrInUse, err)
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		// A denial is an open handle without delete sharing when the probe says so.
		if errors.Is(probeInUse(name), ErrInUse) {
			return fmt.Errorf("%w: %w", ErrInUse, err)
		}
	}
	return err
}

// ownedByUs: a file's owner is not in os.Stat's result here; the mode checks stand alone.
func ownedByUs(fi fs.FileInfo) bool { return true }

// permsKept reports whether fi's permission bits are the file's own: a MemFS keeps them, a
// Windows file system has only a read-only attribute (os reports 0777 for a directory, 0666
// or 0444 for a file).
func permsKept(fi fs.FileInfo) bool {
	_, onDisk := fi.Sys().(*syscall.Win32FileAttributeData)
	return !onDisk
}

// probeInUse opens name asking for exactly DELETE access, sharing everything, as replacing or
// removing it will: a sharing violation means another program holds it open without
// FILE_SHARE_DELETE (ErrInUse). Any other outcome is left to the commit's own calls. The
// handle is closed at once; a final symbolic link is not followed.
func probeInUse(name string) error {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil
	}
	h, err := windows.CreateFile(p, windows.DELETE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err == nil {
		windows.CloseHandle(h)
		return nil
	}
	if errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
		return fmt.Errorf("%w: %w", ErrInUse, &fs.PathError{Op: "open", Path: name, Err: err})
	}
	return nil
}

// restoreBusy reports whether a rollback's restore failed only for now: without POSIX
// rename semantics a file another process has open cannot be replaced (access denied) until
// it is closed.
func restoreBusy(err error) bool { return errors.Is(err, fs.ErrPermission) }
