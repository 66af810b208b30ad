//go:build darwin || freebsd || netbsd

package wfs

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime returns a file's status-change time (ctime), which every write, link and
// metadata change moves and no program can set back.
func changeTime(fi fs.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec)), true
}
