// Package patchtest supports tests of code that uses package patch: an in-memory file system
// that logs its mutating calls and injects faults, and TestFS, the conformance check a host
// runs on its own implementation of patch.FS.
package patchtest

import (
	"io"
	"io/fs"
	"testing"

	"github.com/harnesskit/harnesskit/internal/wfs"
	"github.com/harnesskit/harnesskit/internal/wfs/wfstest"
)

// FS has the methods of patch.FS (declared here so that this package does not import patch;
// every patch.FS is one).
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

// File is an open file of an FS.
type File = interface {
	io.Writer
	Sync() error
	Close() error
}

// MemFS is an in-memory file system for tests: patch.MemFS's behaviour plus a log of mutating
// calls (Calls, ResetCalls), fault injection (InjectFault, ClearFaults), snapshots (Tree,
// TreeUnder), a settable umask and an optional case-insensitive volume. It implements
// patch.FS.
type MemFS struct {
	*wfs.MemFS
}

// NewMemFS returns an empty MemFS holding only the volume root.
func NewMemFS() *MemFS { return &MemFS{wfs.NewMemFS()} }

// Entry is one node of a MemFS snapshot: a directory, a symbolic link (with its target) or a
// regular file (with its bytes), and its mode bits.
type Entry = wfs.Entry

// Call is one entry of the MemFS call log: Op is "open", "rename", "remove", "mkdir" or
// "chmod"; Name2 is the new name of a rename.
type Call = wfs.Call

// Subject is one file system under test, made fresh for every check of TestFS.
type Subject struct {
	FS FS
	// Root is an existing, empty directory of FS (absolute, OS-native) in which the checks
	// create their files.
	Root string
	// Symlink creates name as a symbolic link to target (os.Symlink for a real directory).
	Symlink func(target, name string) error
}

// Config says which optional behaviours the file system has: Confined (names outside the
// root are refused) and Permissions (permission bits are enforced for the caller).
type Config struct {
	Confined, Permissions bool
}

// TestFS checks a file system against the behaviour of the os package, one sub-test per
// behaviour: exclusive creation, writing, syncing and closing, renames, removal, directory
// creation, permission changes, Stat versus Lstat on symbolic links, Readlink, and the error
// values (*fs.PathError naming the path; *os.LinkError for Rename).
func TestFS(t *testing.T, cfg Config, newFS func(t *testing.T) Subject) {
	wfstest.TestFS(t, wfstest.Config{Confined: cfg.Confined, Permissions: cfg.Permissions}, func(t *testing.T) wfstest.Subject {
		s := newFS(t)
		return wfstest.Subject{FS: s.FS, Root: s.Root, Symlink: s.Symlink}
	})
}
