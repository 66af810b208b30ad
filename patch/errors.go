package patch

import (
	"errors"
	"strconv"
)

// A Kind is the category of a patch failure. Every Kind has one sentinel error (see
// [ErrInvalid] and the others) that [*Error] unwraps to, so callers can test categories with
// [errors.Is], and one class ([Kind.Class]) that sets the prefix of the error text.
type Kind uint8

// The kinds of failure, in processing order: parse (Invalid, Empty), containment (Blocked),
// planning (MissingFile … Overlap), commit (Changed, IO).
const (
	// KindInvalid: the patch text is malformed (validation class).
	KindInvalid Kind = iota + 1
	// KindEmpty: the patch has no file sections (validation class).
	KindEmpty
	// KindBlocked: a path lies outside the root and worktrees (blocked class).
	KindBlocked
	// KindMissingFile: a file to update or delete does not exist or is not a regular file.
	KindMissingFile
	// KindExists: an Add target or Move destination already exists.
	KindExists
	// KindPathConflict: a target is a directory, or a parent component is a regular file.
	KindPathConflict
	// KindNotFound: a chunk's lines or an @@ anchor were not found in the file.
	KindNotFound
	// KindAmbiguous: a loose match, an anchor or a rescue has more than one candidate.
	KindAmbiguous
	// KindOverlap: two chunks of one section touch the same file lines.
	KindOverlap
	// KindChanged: a file changed on disk between planning and commit.
	KindChanged
	// KindIO: an I/O failure, a cancelled context or a failed commit (internal class).
	KindIO
	// KindAlreadyApplied: the change is already in the file (a patch sent twice, or lines
	// already inserted); nothing was written (verification class).
	KindAlreadyApplied
	// KindTooLarge: a file to update or move, or the content of an Add File, is over the size
	// limit ([WithMaxFileSize]); the message names the limit. Such a file can still be
	// deleted (verification class).
	KindTooLarge
	// KindBusy: another writer (another process or Applier) held the lock of a target's
	// directory for longer than the commit waits, or (on Windows) another program holds a
	// target open; nothing was written (verification class).
	KindBusy
	// KindReadOnly: a file to update has no write permission for the process (mode 0444 is
	// refused for a superuser too); nothing was written (verification class).
	KindReadOnly
)

// One sentinel per [Kind]; an [*Error] of that kind unwraps to it.
var (
	ErrInvalid      = errors.New("patch: invalid patch")
	ErrEmpty        = errors.New("patch: empty patch")
	ErrBlocked      = errors.New("patch: path outside the allowed roots")
	ErrMissingFile  = errors.New("patch: missing file")
	ErrExists       = errors.New("patch: target already exists")
	ErrPathConflict = errors.New("patch: path conflict")
	ErrNotFound     = errors.New("patch: expected lines not found")
	ErrAmbiguous    = errors.New("patch: ambiguous location")
	ErrOverlap      = errors.New("patch: overlapping chunks")
	ErrChanged      = errors.New("patch: file changed since planning")
	ErrIO           = errors.New("patch: i/o failure")
	// ErrAlreadyApplied is the sentinel of KindAlreadyApplied.
	ErrAlreadyApplied = errors.New("patch: change already applied")
	ErrTooLarge       = errors.New("patch: file too large")
	ErrBusy           = errors.New("patch: being written by another writer")
	ErrReadOnly       = errors.New("patch: file is read-only")
)

// Sentinels returned by [ParseCommand].
var (
	// ErrImplicitInvocation: argv carries a patch without an explicit apply_patch call. Its
	// text is Codex's message, meant to be shown to the model as is.
	ErrImplicitInvocation = errors.New(`patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]`)
	// ErrNotPatchCommand: argv is not an apply_patch invocation; the host should run it as
	// an ordinary command.
	ErrNotPatchCommand = errors.New("patch: not an apply_patch invocation")
)

var kindInfo = [...]struct {
	name, class string
	sentinel    error
}{
	KindInvalid:        {"invalid", "validation", ErrInvalid},
	KindEmpty:          {"empty", "validation", ErrEmpty},
	KindBlocked:        {"blocked", "blocked", ErrBlocked},
	KindMissingFile:    {"missing_file", "verification", ErrMissingFile},
	KindExists:         {"exists", "verification", ErrExists},
	KindPathConflict:   {"path_conflict", "verification", ErrPathConflict},
	KindNotFound:       {"not_found", "verification", ErrNotFound},
	KindAmbiguous:      {"ambiguous", "verification", ErrAmbiguous},
	KindOverlap:        {"overlap", "verification", ErrOverlap},
	KindChanged:        {"changed", "verification", ErrChanged},
	KindIO:             {"io", "internal", ErrIO},
	KindAlreadyApplied: {"already_applied", "verification", ErrAlreadyApplied},
	KindTooLarge:       {"too_large", "verification", ErrTooLarge},
	KindBusy:           {"busy", "verification", ErrBusy},
	KindReadOnly:       {"read_only", "verification", ErrReadOnly},
}

func (k Kind) valid() bool { return k >= KindInvalid && k <= KindReadOnly }

// String returns the kind's snake_case name ("invalid", "missing_file", "not_found", …), the
// value adapters put in a JSON "kind" field. An unknown kind gives "kind(<n>)".
func (k Kind) String() string {
	if !k.valid() {
		return "kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindInfo[k].name
}

// Class returns the kind's class: "validation" (Invalid, Empty), "blocked" (Blocked),
// "verification" (MissingFile, Exists, PathConflict, NotFound, Ambiguous, Overlap, Changed,
// AlreadyApplied, TooLarge, Busy, ReadOnly) or "internal" (IO and unknown kinds).
func (k Kind) Class() string {
	if !k.valid() {
		return "internal"
	}
	return kindInfo[k].class
}

// sentinel returns the kind's sentinel error; unknown kinds map to ErrIO.
func (k Kind) sentinel() error {
	if !k.valid() {
		return ErrIO
	}
	return kindInfo[k].sentinel
}

// classPrefix returns the text an error of class c starts with (Slim's prefixes).
func classPrefix(c string) string {
	switch c {
	case "validation":
		return "apply_patch validation failed: "
	case "blocked":
		return "apply_patch blocked: "
	case "verification":
		return "apply_patch verification failed: "
	default:
		return "apply_patch internal error: "
	}
}

// Error is the one typed error of the package. Every failure of [Parse], [Patch.Validate] and
// the applier is an *Error; its Kind selects the sentinel it unwraps to, and the positional
// fields say where the problem is, for both people and programs.
//
// Use errors.As to get the details:
//
//	var pe *patch.Error
//	if errors.As(err, &pe) && pe.Kind == patch.KindNotFound { … pe.Line, pe.FileLine … }
type Error struct {
	Kind       Kind
	Path       string   // patch path as written; "" for envelope errors
	Line       int      // 1-based patch-text line, 0 if none
	Section    int      // 1-based hunk index, 0 if none
	Chunk      int      // 1-based chunk index within the section, 0 if none
	FileLine   int      // 1-based: first diverging file line (NotFound) or first candidate (Ambiguous)
	Candidates []int    // 1-based candidate start lines (Ambiguous)
	Paths      []string // all offending paths (Blocked)
	Msg        string   // message without the class prefix
	Err        error    // cause, may be nil
	// Op is the operation that failed: "" for a patch, "edit" for [Applier.Edit] and
	// [ApplyEdits], whose messages start "edit …" instead of "apply_patch …".
	Op string
	// Written lists what was written before the failure, by net effect per path as in
	// [Result.Changes]: only without atomicity ([WithAtomic](false), [WithCodexCompat]), where
	// the sections before the failing one are committed. Empty when nothing was written.
	Written []FileChange
}

// Error returns the class prefix followed by Msg, for example
// "apply_patch validation failed: Invalid patch hunk on line 2: Update file hunk for path
// 'test.py' is empty". An empty Msg falls back to the cause's text, then to the kind's name.
func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" {
		if e.Err != nil {
			msg = e.Err.Error()
		} else {
			msg = e.Kind.String()
		}
	}
	if e.Op == "edit" {
		return editPrefix(e.Kind.Class()) + msg
	}
	return classPrefix(e.Kind.Class()) + msg
}

// Unwrap returns the Kind's sentinel and, when set, the cause, so both
// errors.Is(err, patch.ErrNotFound) and errors.Is(err, context.Canceled) work.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind.sentinel()}
	}
	return []error{e.Kind.sentinel(), e.Err}
}
