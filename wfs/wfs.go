package wfs

import (
	"errors"
	"io"
	"io/fs"
	"time"
)

// Limits, defaults and names. Options override the defaults per transaction.
const (
	DefaultLockWait                = 10 * time.Second // how long a Tx waits for a held lock
	DefaultMaxFileSize int64       = 64 << 20         // the size limit of Read and a Tx
	DefaultFileMode    fs.FileMode = 0o644            // a file a Tx creates, before the umask
	DefaultDirMode     fs.FileMode = 0o755            // a directory a Tx creates, before the umask
	DefaultUmask       fs.FileMode = 0o022            // the umask of a new MemFS
	MaxSymlinks                    = 40               // links MemFS follows in one name, then ELOOP
	MaxSuffix                      = 32               // the longest suffix of TempName, in bytes
	MinKeySize                     = 16               // the shortest journal key, in bytes
	JournalDir                     = ".hkwfs"         // under a tree's root: its journals

	// ModeBits are the mode bits Chmod sets and a replaced file keeps.
	ModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
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

// File is an open file as returned by [FS.OpenFile]: read, written, described (Stat
// describes the open file, whatever its name leads to now), synced to stable storage and
// closed. Sync on a directory opened read-only makes its entries durable.
type File interface {
	io.Reader
	io.Writer
	Stat() (fs.FileInfo, error)
	Sync() error
	Close() error
}

// ReadDirFS is an [FS] that can list a directory. [Tx] uses it to find journals to recover;
// hosts use it to report leftovers. MemFS and OSFS have it.
type ReadDirFS interface {
	// ReadDir lists the named directory, sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
}

// LinkFS is an [FS] that can make hard links. [Tx] uses it to keep the old file of a
// replaced or deleted name until the commit is done (without it, it keeps a copy), and to
// create a new file without ever replacing one (without it, it renames after a check).
// MemFS and OSFS have it.
type LinkFS interface {
	// Link creates newname as a hard link to the file oldname; it fails with an error
	// matching fs.ErrExist when newname exists.
	Link(oldname, newname string) error
}

// LockFS is an [FS] with exclusive locks that every harnesskit writer respects, in this
// process and in others. MemFS's locks exclude within the MemFS; OSFS's are the operating
// system's (see the package documentation). Without LockFS a [Tx] excludes nobody.
type LockFS interface {
	// TryLock takes the exclusive lock of the named file or directory without waiting: it
	// fails with an error matching [ErrLocked] when anyone else holds it (another process,
	// or another TryLock of this one). unlock releases it; the lock of a process that dies
	// is released with it.
	TryLock(name string) (unlock func(), err error)
}

// MetaFS is an [FS] that can copy what a file carries besides its bytes and mode.
type MetaFS interface {
	// CopyMeta gives dst the owner and group of src where the process may set them, and
	// src's extended attributes (POSIX ACLs included) where the process may set them. It
	// does not change dst's mode (set it afterwards: a change of owner clears setuid and
	// setgid). Attributes it may not set are skipped, not errors.
	CopyMeta(src, dst string) error
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
