package wfs

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// The categories of failure of [Read], [Tx.Commit] and [Recover]. Each is wrapped by an
// [*Error] that says which name and which step.
var (
	// ErrChanged: a name no longer holds what its [Snapshot] recorded (another writer changed
	// it since it was read); nothing was written. A Create onto a name that now exists also
	// matches fs.ErrExist.
	ErrChanged = errors.New("changed since it was read")
	// ErrBusy: another writer held the lock of a target for longer than the lock wait (or
	// the context allowed); nothing was written. Try again later.
	ErrBusy = errors.New("being written by another writer")
	// ErrTooLarge: a file, or the data to write, is over the size limit (Error.Limit).
	ErrTooLarge = errors.New("file too large")
	// ErrReadOnly: the process may not write the target (no write permission for it, or no
	// write bit at all, like mode 0444, also for a superuser); it also matches
	// fs.ErrPermission, and so does any error wrapping it. Nothing was written.
	ErrReadOnly error = readOnly{}
	// ErrSpecial: the target is a FIFO, socket or device; it was not opened.
	ErrSpecial = errors.New("not a regular file (a FIFO, socket or device)")
	// ErrLocked: [LockFS.TryLock] found the lock held.
	ErrLocked = errors.New("locked by another writer")
	// ErrInUse: on Windows, another program holds a target open without sharing delete
	// access (a sharing or lock violation), so it cannot be replaced or removed now. The
	// check finds it before anything is staged; a program that opens the file after the
	// check makes the switch fail instead, and every switched target is restored. Close it
	// there and try again. Other systems never return it.
	ErrInUse = errors.New("in use by another program")
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
