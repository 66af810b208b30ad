package pathguard

import (
	"errors"
	"strconv"
	"strings"
)

// A Kind is the category of a refusal; each has a sentinel for errors.Is.
type Kind uint8

const (
	// KindMissing: the search path does not exist ([ErrMissing]).
	KindMissing Kind = iota + 1
	// KindNotDirectory: a component of the search path is not a directory
	// ([ErrNotDirectory]).
	KindNotDirectory
	// KindOutside: a path is outside the root and the worktrees ([ErrOutside]).
	KindOutside
	// KindResolve: a path could not be resolved, so containment fails closed
	// ([ErrResolve]).
	KindResolve
)

// String returns the kind's name: "missing", "not-directory", "outside" or "resolve".
func (k Kind) String() string {
	switch k {
	case KindMissing:
		return "missing"
	case KindNotDirectory:
		return "not-directory"
	case KindOutside:
		return "outside"
	case KindResolve:
		return "resolve"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// The sentinels, one per [Kind]. Every *[Error] unwraps to the sentinel of its Kind.
var (
	ErrMissing      = errors.New("pathguard: search path does not exist")
	ErrNotDirectory = errors.New("pathguard: search path component is not a directory")
	ErrOutside      = errors.New("pathguard: path is outside the workspace root and worktrees")
	ErrResolve      = errors.New("pathguard: path cannot be resolved")
)

// Error is the one typed error of the package. Match it with errors.As, or match its
// category with errors.Is against [ErrMissing], [ErrNotDirectory], [ErrOutside] or
// [ErrResolve].
type Error struct {
	Kind     Kind
	Tool     string   // the tool, for the search check only
	Path     string   // the raw input path
	Resolved string   // the resolved path (search check) or the real path (containment)
	Paths    []string // CheckAll: every offending raw path, the first one first
	Err      error    // the stat or resolver error behind the refusal, if any; for KindOutside, a hint (Windows 8.3 names)
}

// Error returns the message a model is shown: for the search check, the plugin's exact
// wording; for containment, which path escaped and where it leads.
func (e *Error) Error() string {
	var msg string
	switch e.Kind {
	case KindMissing:
		msg = "Search path does not exist: " + e.Resolved + ` (from "` + e.Path + `"). The ` + e.Tool +
			" search was blocked before ripgrep ran. Verify the target path, or list its parent directory to find the correct location."
	case KindNotDirectory:
		msg = "Search path is invalid: " + e.Resolved + ` (from "` + e.Path + `"). A path component is not a directory (ENOTDIR), so the ` +
			e.Tool + " search was blocked before ripgrep ran. Verify the target path and that every parent component is a directory."
	case KindOutside:
		msg = "path is outside the workspace root and worktrees: " + e.Path + " (resolves to " + e.Resolved + ")"
		if e.Err != nil {
			msg += "; " + e.Err.Error()
		}
	case KindResolve:
		cause := "unknown error"
		if e.Err != nil {
			cause = e.Err.Error()
		}
		msg = "cannot resolve path " + e.Path + ": " + cause
	default:
		msg = "pathguard: " + e.Kind.String() + ": " + e.Path
	}
	if len(e.Paths) > 1 {
		msg += "; also refused: " + strings.Join(e.Paths[1:], ", ")
	}
	return msg
}

// Unwrap returns the sentinel of the Kind and, when present, the underlying cause.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 2)
	switch e.Kind {
	case KindMissing:
		errs = append(errs, ErrMissing)
	case KindNotDirectory:
		errs = append(errs, ErrNotDirectory)
	case KindOutside:
		errs = append(errs, ErrOutside)
	case KindResolve:
		errs = append(errs, ErrResolve)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}
