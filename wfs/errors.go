package wfs

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// The sentinels, which a failure of [Read], [Tx.Commit] or [Recover] (an [*Error]) wraps
// unless it is the file system's error.
var (
	// ErrChanged: a name no longer holds what its [Snapshot] recorded (Create: fs.ErrExist too).
	ErrChanged = errors.New("changed since it was read")
	// ErrBusy: another writer held a target's lock beyond the lock wait. Try again later.
	ErrBusy     = errors.New("being written by another writer")
	ErrTooLarge = errors.New("file too large") // see Error.Limit
	// ErrReadOnly: not writable by the process, or no write bit at all; fs.ErrPermission too.
	ErrReadOnly error = readOnly{}
	ErrSpecial        = errors.New("not a regular file (a FIFO, socket or device)")
	ErrLocked         = errors.New("locked by another writer") // from LockFS.TryLock
	// ErrInUse (Windows): another program holds a target open without sharing delete access.
	ErrInUse = errors.New("in use by another program")
	// ErrKey: no journal key was set and the user's key file is unsafe or cannot be made.
	ErrKey = errors.New("wfs: no usable journal key")
	// ErrOutside: a name outside an [OSFS]'s bases or with "..", or a target outside root and
	// its trees or in a version-control directory. OSFS's refusal is fs.ErrPermission too.
	ErrOutside = errors.New("path is outside the allowed base directories")
	ErrNotAbs  = errors.New("path is not absolute; pass an absolute, OS-native path")
)

// Error is the typed error: what failed (Op), where (Name) and why (Err).
type Error struct {
	Op          string   // "read", "lock", "check", "stage", "commit", "recover"
	Name        string   // the absolute name concerned
	Err         error    // a sentinel of this package, or the underlying error
	Limit, Size int64    // for ErrTooLarge: the limit and the size found
	SameAs      string   // Name is the file this commit wrote as SameAs (a volume ignoring case)
	RolledBack  bool     // the commit had started to switch and was undone
	NotRestored []string // names the undo could not restore
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
