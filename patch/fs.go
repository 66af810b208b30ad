package patch

import (
	"io"
	"io/fs"

	"github.com/harnesskit/harnesskit/internal/wfs"
)

// FS is the file-system seam of the [Applier]. Every name is an absolute, OS-native path;
// the Applier only passes real paths that passed containment. Errors are expected in the os
// package's shape: an [*fs.PathError] (an [*os.LinkError] for Rename) wrapping the syscall
// error, so errors.Is with fs.ErrNotExist, fs.ErrExist and fs.ErrPermission, and comparisons
// with syscall.ENOTDIR and EISDIR, classify failures. [MemFS] and [OSFS] implement it. A host
// that supplies its own can check it with patchtest.TestFS (package
// github.com/harnesskit/harnesskit/patch/patchtest), which compares every method with the os
// package's behaviour.
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

// File is an open file returned by [FS.OpenFile]: written, synced to stable storage, closed.
type File = interface {
	io.Writer
	Sync() error
	Close() error
}

// A DirReader is an [FS] that can also list a directory. [Applier.Plan] uses it, when the
// FS has it, to report leftover temporary files ([IsLeftover]); MemFS and OSFS have it.
type DirReader interface {
	ReadDir(name string) ([]fs.DirEntry, error)
}

// MemFS is an in-memory [FS] for tests and hosts without a disk: directories, regular files,
// symbolic links and permission bits that behave like a POSIX file system seen by an
// unprivileged user (with a umask of 022), deterministic and safe for concurrent use. Create
// one with [NewMemFS] and fill it with WriteFile, MkdirAll and Symlink. (The package
// patchtest has a MemFS that also logs calls and injects faults.)
type MemFS struct{ w *wfs.MemFS }

// NewMemFS returns an empty [MemFS] holding only the volume root.
func NewMemFS() *MemFS { return &MemFS{w: wfs.NewMemFS()} }

// Stat describes the named file, following symbolic links.
func (m *MemFS) Stat(name string) (fs.FileInfo, error) { return m.w.Stat(name) }

// Lstat describes the named file; a final symbolic link is described, not followed.
func (m *MemFS) Lstat(name string) (fs.FileInfo, error) { return m.w.Lstat(name) }

// Readlink returns the target of the named symbolic link.
func (m *MemFS) Readlink(name string) (string, error) { return m.w.Readlink(name) }

// ReadFile returns the content of the named file.
func (m *MemFS) ReadFile(name string) ([]byte, error) { return m.w.ReadFile(name) }

// OpenFile opens the named file like os.OpenFile (new files get perm minus the umask).
func (m *MemFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	return m.w.OpenFile(name, flag, perm)
}

// Rename renames a file like os.Rename, replacing an existing file.
func (m *MemFS) Rename(oldname, newname string) error { return m.w.Rename(oldname, newname) }

// Remove removes a file, a symbolic link or an empty directory.
func (m *MemFS) Remove(name string) error { return m.w.Remove(name) }

// Mkdir creates a directory with perm minus the umask.
func (m *MemFS) Mkdir(name string, perm fs.FileMode) error { return m.w.Mkdir(name, perm) }

// Chmod sets the permission, setuid, setgid and sticky bits, following symbolic links.
func (m *MemFS) Chmod(name string, mode fs.FileMode) error { return m.w.Chmod(name, mode) }

// WriteFile writes data to the named file with exactly the permission bits perm (no umask),
// creating missing parent directories with mode 0755. It is meant for setting up a tree.
func (m *MemFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return m.w.WriteFile(name, data, perm)
}

// MkdirAll creates the named directory and its missing parents with exactly perm.
func (m *MemFS) MkdirAll(name string, perm fs.FileMode) error { return m.w.MkdirAll(name, perm) }

// Symlink creates name as a symbolic link to target.
func (m *MemFS) Symlink(target, name string) error { return m.w.Symlink(target, name) }

// ReadDir lists the named directory, sorted by name.
func (m *MemFS) ReadDir(name string) ([]fs.DirEntry, error) { return m.w.ReadDir(name) }

// OSFS is the [FS] over real directories: one os.Root per allowed base, so content access
// and changes cannot leave the bases, and names outside every base are refused. Create one
// with [NewOSFS] (or let [Open] do it); Close it when done.
type OSFS struct{ w *wfs.OSFS }

// NewOSFS opens an os.Root for each base directory (normally the root and the worktrees given
// to [New]) and routes every absolute name to the longest base that contains it.
func NewOSFS(bases ...string) (*OSFS, error) {
	w, err := wfs.NewOSFS(bases...)
	if err != nil {
		return nil, err
	}
	return &OSFS{w: w}, nil
}

// Bases returns the base directories, as given to NewOSFS (cleaned, absolute).
func (o *OSFS) Bases() []string { return o.w.Bases() }

// Close closes the os.Root of every base.
func (o *OSFS) Close() error { return o.w.Close() }

// Stat describes the named file, following symbolic links (inside the bases).
func (o *OSFS) Stat(name string) (fs.FileInfo, error) { return o.w.Stat(name) }

// Lstat describes the named file without following a final symbolic link.
func (o *OSFS) Lstat(name string) (fs.FileInfo, error) { return o.w.Lstat(name) }

// Readlink returns the target of the named symbolic link.
func (o *OSFS) Readlink(name string) (string, error) { return o.w.Readlink(name) }

// ReadFile returns the content of the named file.
func (o *OSFS) ReadFile(name string) ([]byte, error) { return o.w.ReadFile(name) }

// OpenFile opens the named file like os.OpenFile.
func (o *OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	return o.w.OpenFile(name, flag, perm)
}

// Rename renames a file within its base.
func (o *OSFS) Rename(oldname, newname string) error { return o.w.Rename(oldname, newname) }

// Remove removes a file, a symbolic link or an empty directory.
func (o *OSFS) Remove(name string) error { return o.w.Remove(name) }

// Mkdir creates a directory (perm minus the umask).
func (o *OSFS) Mkdir(name string, perm fs.FileMode) error { return o.w.Mkdir(name, perm) }

// Chmod sets the permission, setuid, setgid and sticky bits, following symbolic links.
func (o *OSFS) Chmod(name string, mode fs.FileMode) error { return o.w.Chmod(name, mode) }

// ReadDir lists the named directory inside its base, sorted by name.
func (o *OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return o.w.ReadDir(name) }

var (
	_ FS        = (*MemFS)(nil)
	_ FS        = (*OSFS)(nil)
	_ DirReader = (*MemFS)(nil)
	_ DirReader = (*OSFS)(nil)
)
