//go:build !(linux || openbsd || dragonfly || solaris || illumos || darwin || freebsd || netbsd)

package wfs

import (
	"io/fs"
	"time"
)

// changeTime: this system's FileInfo carries no status-change time (Windows, for one).
func changeTime(fs.FileInfo) (time.Time, bool) { return time.Time{}, false }
