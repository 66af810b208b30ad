//go:build !unix && !windows

package wfs

import (
	"errors"
	"io/fs"
)

func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// sysLinks does not know the link count here: every file counts as having one link.
func sysLinks(fi fs.FileInfo) (uint64, bool) { return 0, false }

func sysWritable(fi fs.FileInfo) (bool, bool) { return fi.Mode().Perm()&0o200 != 0, true }

func linkUnsupported(err error) bool {
	return err != nil && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist)
}

func removeFallback(name string, err error) error { return err }

func inUse(name string, err error) error { return err }

func ownedByUs(fi fs.FileInfo) bool { return true }

// permsKept: the permission bits os reports are the file's own here.
func permsKept(fi fs.FileInfo) bool { return true }

func probeInUse(name string) error { return nil }

func sysLinkCount(name string) (uint64, bool) { return 0, false }

// restoreBusy: a refused restore does not get better by waiting.
func restoreBusy(err error) bool { return false }
