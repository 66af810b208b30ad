// Package wfs holds the writable file systems shared by the packages that edit files (patch,
// and later astsearch): [MemFS], an in-memory tree for tests and hosts, and [OSFS], real
// directories reached only through one [os.Root] per allowed base.
//
// Both implement [FS], a small write interface over absolute, OS-native paths. Errors follow
// the os package: an [*fs.PathError] (an [*os.LinkError] for Rename) whose Err is the
// syscall error the OS would return, so errors.Is(err, fs.ErrNotExist), fs.ErrExist and
// fs.ErrPermission, and comparisons with syscall.ENOTDIR, EISDIR or ENOTEMPTY, work the same
// on both. A caller can therefore develop against MemFS and run against OSFS.
//
// The package wfstest checks any FS against this contract, as testing/fstest does for fs.FS;
// both implementations pass it, and a rapid state machine runs random operation sequences on
// both and requires identical results, error texts included. Known differences, which that
// test avoids on purpose:
//
//   - Symbolic links that leave a base, and absolute link targets, are refused by OSFS (os.Root
//     rules) and followed by MemFS, which has no bases.
//   - MemFS follows at most [MaxSymlinks] (40) links per name, os.Root 8.
//   - MemFS enforces permission bits as for an unprivileged owner; a process running as root
//     bypasses them on disk.
//   - MemFS reports the zero modification time and size 0 for directories, has no hard links,
//     ignores trailing separators, and follows POSIX rules on every platform.
package wfs

import (
	"errors"
	"io"
	"io/fs"
)

// FS is the file-system seam of a writing package. Every name is an absolute, OS-native path
// (for example "/work/a.txt" or `C:\work\a.txt`); relative names are refused.
type FS interface {
	// Stat describes the named file, following symbolic links.
	Stat(name string) (fs.FileInfo, error)
	// Lstat describes the named file; a final symbolic link is described, not followed.
	Lstat(name string) (fs.FileInfo, error)
	// Readlink returns the target of the named symbolic link, as stored.
	Readlink(name string) (string, error)
	// ReadFile returns the contents of the named file, following symbolic links.
	ReadFile(name string) ([]byte, error)
	// OpenFile opens the named file with os.OpenFile's flags (os.O_CREATE|os.O_EXCL|
	// os.O_WRONLY for temporaries) and permission bits (before the umask).
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// Rename renames oldname to newname, replacing a file at newname.
	Rename(oldname, newname string) error
	// Remove removes the named file, symbolic link or empty directory.
	Remove(name string) error
	// Mkdir creates the named directory; its parent must exist.
	Mkdir(name string, perm fs.FileMode) error
	// Chmod sets the permission bits of the named file, following symbolic links.
	Chmod(name string, mode fs.FileMode) error
}

// File is an open file as returned by [FS.OpenFile]: written, synced to stable storage,
// closed. It is an alias of the interface literal, so that packages declaring the same
// literal (patch.File) have the identical type and their FS interfaces are this one.
type File = interface {
	io.Writer
	Sync() error
	Close() error
}

// Entry describes one node of a tree snapshot ([MemFS.Tree], [ReadTree]).
type Entry struct {
	Dir     bool        // a directory
	Symlink bool        // a symbolic link; Target holds its target
	Data    []byte      // the contents of a regular file
	Mode    fs.FileMode // permission bits only (0o777 for a symbolic link)
	Target  string      // the target of a symbolic link, as stored
}

// Call records one mutating call on a [MemFS]: Op is "open" (an OpenFile that may create,
// truncate or write), "rename", "remove", "mkdir" or "chmod"; Name is the path (the old path
// of a rename) and Name2 the new path of a rename.
type Call struct {
	Op, Name, Name2 string
}

// ErrOutside is wrapped by the error [OSFS] returns for a path that lies in none of its
// bases, or that contains a ".." element. It also matches fs.ErrPermission, so callers that
// only distinguish "not there" from "not allowed" treat it as a refusal.
var ErrOutside = errors.New("path is outside the allowed base directories")

// ErrNotAbs is wrapped by the error returned for a relative path: every name given to an
// [FS] must be absolute.
var ErrNotAbs = errors.New("path is not absolute; pass an absolute, OS-native path")

// outsideError is the Err of the *fs.PathError returned for a refused path.
type outsideError struct {
	msg    string
	dotdot bool // refused for a ".." element
}

// errDotDot marks (unexported) a refusal for a ".." element: such a name is never answered,
// not even by Lstat.
var errDotDot = errors.New("path contains '..'")

func (e *outsideError) Error() string { return e.msg }

func (e *outsideError) Is(target error) bool {
	return target == ErrOutside || target == fs.ErrPermission || e.dotdot && target == errDotDot
}
