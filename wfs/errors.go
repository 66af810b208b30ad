package wfs

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// The sentinels: categories of failure. A failure of [Read], [Tx.Commit] or [Recover] is an
// [*Error] wrapping one or the file system's error; "nothing was written" holds for each
// unless [Error].RolledBack says a switch was undone.
var (
	// ErrChanged: a name no longer holds what its [Snapshot] recorded. A Create onto a name
	// that now exists also matches fs.ErrExist.
	ErrChanged = errors.New("changed since it was read")
	// ErrBusy: another writer held a target's lock beyond the lock wait. Try again later.
	ErrBusy = errors.New("being written by another writer")
	// ErrTooLarge: a file, or the data to write, is over the size limit (Error.Limit).
	ErrTooLarge = errors.New("file too large")
	// ErrReadOnly: the process may not write the target, or it has no write bit at all (mode
	// 0444, also for a superuser). It matches fs.ErrPermission.
	ErrReadOnly error = readOnly{}
	// ErrSpecial: the target is a FIFO, socket or device; it was not opened.
	ErrSpecial = errors.New("not a regular file (a FIFO, socket or device)")
	// ErrLocked: [LockFS.TryLock] found the lock held.
	ErrLocked = errors.New("locked by another writer")
	// ErrInUse (Windows only): another program holds a target open without sharing delete
	// access, found at the check (or the switch fails and is undone). Close it and retry.
	ErrInUse = errors.New("in use by another program")
	// ErrKey: the user's key file is unsafe (a link, another user's, readable by others, of
	// the wrong size) or cannot be created, and no key was set.
	ErrKey = errors.New("wfs: no usable journal key")
	// ErrOutside: a name outside an [OSFS]'s bases or with a ".." element (that error also
	// matches fs.ErrPermission), or a target outside root and its trees or in a
	// version-control directory.
	ErrOutside = errors.New("path is outside the allowed base directories")
	// ErrNotAbs: a relative name given to an [FS]; every name must be absolute.
	ErrNotAbs = errors.New("path is not absolute; pass an absolute, OS-native path")
)

// Error is the one typed error of the package: what failed (Op), where (Name) and why (Err,
// a sentinel above or the file system's error). A failed commit also says whether it was
// undone.
type Error struct {
	Op   string // "read", "lock", "check", "stage", "commit", "recover"
	Name string // the absolute name concerned
	Err  error  // a sentinel of this package, or the underlying error

	// Limit and Size are set for ErrTooLarge: the limit and the size found.
	Limit, Size int64
	// SameAs is set when Name turned out to be the file this transaction already wrote under
	// the name SameAs (a volume that ignores case): the two names are one file.
	SameAs string
	// RolledBack is set when a commit failed after it had started to write and every change
	// was undone; NotRestored lists the names that could not be restored otherwise.
	RolledBack  bool
	NotRestored []string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("wfs: ")
	if e.Op != "" {
		b.WriteString(e.Op + " ")
	}
	b.WriteString(e.Name + ": ")
	switch {
	case errors.Is(e.Err, ErrTooLarge):
		fmt.Fprintf(&b, "file too large (%d bytes; the limit is %d bytes)", e.Size, e.Limit)
	case e.SameAs != "":
		fmt.Fprintf(&b, "is the file %s that this commit wrote (the volume ignores case)", e.SameAs)
	default:
		b.WriteString(e.Err.Error())
	}
	switch {
	case len(e.NotRestored) > 0:
		b.WriteString("; rollback was incomplete, not restored: " + strings.Join(e.NotRestored, ", "))
	case e.RolledBack:
		b.WriteString("; every change was rolled back")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// readOnly is ErrReadOnly's type: a sentinel that also matches fs.ErrPermission.
type readOnly struct{}

func (readOnly) Error() string        { return "file is read-only" }
func (readOnly) Is(target error) bool { return target == fs.ErrPermission }

// existsError is the Err of a Create whose name exists: it matches ErrChanged and
// fs.ErrExist.
type existsError struct{}

func (existsError) Error() string { return "already exists" }
func (existsError) Is(target error) bool {
	return target == ErrChanged || target == fs.ErrExist
}
