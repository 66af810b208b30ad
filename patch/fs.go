package patch

import (
	"io/fs"

	"github.com/harnesskit/harnesskit/internal/wfs"
)

// FS is the file-system seam of the [Applier]. Every name is an absolute, OS-native path;
// the Applier only passes real paths that passed containment. Errors are expected in the os
// package's shape: an [*fs.PathError] (an [*os.LinkError] for Rename) wrapping the syscall
// error, so errors.Is with fs.ErrNotExist, fs.ErrExist and fs.ErrPermission, and comparisons
// with syscall.ENOTDIR and EISDIR, classify failures. [MemFS] and [OSFS] implement it; a host
// may supply its own (wfstest-style conformance checks live in the module's internal/wfs/wfstest).
type FS interface {
	Stat(name string) (fs.FileInfo, error)  // follows symbolic links
	Lstat(name string) (fs.FileInfo, error) // a final symbolic link is described, not followed
	Readlink(name string) (string, error)
	ReadFile(name string) ([]byte, error)
	// OpenFile takes os.OpenFile's flags; the Applier creates temporaries with
	// os.O_CREATE|os.O_EXCL|os.O_WRONLY.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	Rename(oldname, newname string) error // only ever within one directory
	Remove(name string) error             // files, symbolic links and empty directories
	Mkdir(name string, perm fs.FileMode) error
	Chmod(name string, mode fs.FileMode) error
}

// File is an open file returned by [FS.OpenFile]: io.Writer plus Sync and Close.
type File = wfs.File

// MemFS is the in-memory [FS] for tests and hosts without a disk: directories, files,
// symbolic links and permission bits that behave like a POSIX file system seen by an
// unprivileged user, deterministic and safe for concurrent use, with a log of mutating calls
// (Calls) and fault injection (InjectFault). Create one with [NewMemFS].
type MemFS = wfs.MemFS

// OSFS is the [FS] over real directories: one os.Root per allowed base, so content access
// and changes cannot leave the bases (see the internal wfs package for the exact rules).
// Create one with [NewOSFS]; Close it when done.
type OSFS = wfs.OSFS

// Entry is one node of a [MemFS.Tree] snapshot.
type Entry = wfs.Entry

// Call is one entry of the [MemFS.Calls] log: Op is "open", "rename", "remove", "mkdir" or
// "chmod"; Name2 is the new name of a rename.
type Call = wfs.Call

// NewMemFS returns an empty [MemFS] holding only the volume root.
func NewMemFS() *MemFS { return wfs.NewMemFS() }

// NewOSFS opens an os.Root for each base directory (normally the root and the worktrees given
// to [New]) and routes every absolute name to the longest base that contains it; names
// outside every base are refused.
func NewOSFS(bases ...string) (*OSFS, error) { return wfs.NewOSFS(bases...) }

var (
	_ FS = (*MemFS)(nil)
	_ FS = (*OSFS)(nil)
)
