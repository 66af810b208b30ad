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

	ModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky // Chmod sets, a file keeps
)

// FS is the file-system seam. Every name is absolute and OS-native (`C:\w\a.txt`, "/w/a.txt").
// Each method does what the os function of its name does (OpenFile takes its flags, and
// permission bits before the umask; Rename replaces a file at newname).
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	ReadFile(name string) ([]byte, error)
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
	Mkdir(name string, perm fs.FileMode) error
	Chmod(name string, mode fs.FileMode) error
}

// File is an open file. Stat describes it, whatever its name leads to now; Sync on a directory
// opened read-only makes its entries durable.
type File interface {
	io.Reader
	io.Writer
	Stat() (fs.FileInfo, error)
	Sync() error
	Close() error
}

// ReadDirFS is an [FS] that lists a directory, sorted by name: how a Tx finds journals.
type ReadDirFS interface {
	ReadDir(name string) ([]fs.DirEntry, error)
}

// LinkFS is an [FS] with hard links (never replacing newname): a Tx keeps old files by a
// link, not a copy, and links a new file in.
type LinkFS interface {
	Link(oldname, newname string) error
}

// LockFS is an [FS] with exclusive locks, respected by harnesskit writers in every process.
// TryLock fails at once with [ErrLocked] when anyone else holds it; death releases it.
type LockFS interface {
	TryLock(name string) (unlock func(), err error)
}

// MetaFS is an [FS] whose CopyMeta copies src's owner, group and extended attributes (ACLs
// too) to dst, as far as allowed; not the mode.
type MetaFS interface {
	CopyMeta(src, dst string) error
}

// Entry is one node of a tree snapshot ([MemFS.Tree], [ReadTree]).
type Entry struct {
	Dir     bool        // a directory
	Symlink bool        // a symbolic link to Target, as stored
	Data    []byte      // the contents of a regular file
	Mode    fs.FileMode // permission bits only (0o777 for a symbolic link)
	Target  string
}

// Call is one logged [MemFS] call: Op "open" (to create, truncate or write), "sync", "rename",
// "link", "remove", "mkdir" or "chmod"; Name2 is the new name.
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
