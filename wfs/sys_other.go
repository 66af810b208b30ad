//go:build !unix

package wfs

import "io/fs"

func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// sysLinks does not know the link count here (Windows reports none through os.Stat): every
// file counts as having one link.
func sysLinks(fi fs.FileInfo) (uint64, bool) { return 0, false }

// sysWritable reads the read-only attribute, which os reports as a mode without write bits.
func sysWritable(fi fs.FileInfo) (bool, bool) { return fi.Mode().Perm()&0o200 != 0, true }
