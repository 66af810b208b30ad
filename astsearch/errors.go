package astsearch

import (
	"errors"
	"fmt"
)

var (
	// ErrBadPattern: the pattern does not compile to one node (see [PatternError]), the
	// rewrite template is not text, or a glob does not parse.
	ErrBadPattern = errors.New("astsearch: cannot parse the pattern as a valid pattern")
	// ErrUnknownLang: the language name is not one of the 25 (see [Langs]).
	ErrUnknownLang = errors.New("astsearch: unknown language")
	// ErrLangUnavailable: the backend has no grammar for the language.
	ErrLangUnavailable = errors.New("astsearch: language not available in this backend")
	// ErrUnavailable: no backend can run (built without cgo and no ast-grep executable).
	ErrUnavailable = errors.New("astsearch: no search backend available")
	// ErrBlocked: a path is outside the allowed roots, missing, or not a directory where one
	// is needed; nothing under it was read.
	ErrBlocked = errors.New("astsearch: path blocked")
	// ErrConflict: a file changed on disk between planning and applying a rewrite; nothing
	// was written.
	ErrConflict = errors.New("astsearch: file changed since the rewrite was planned")
	// ErrBackend: the ast-grep executable failed (see [BackendError]).
	ErrBackend = errors.New("astsearch: backend failed")
)

// PatternError says why a pattern was rejected. It wraps [ErrBadPattern].
type PatternError struct {
	Pattern string
	Lang    Lang
	Cause   string
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("cannot parse query as a valid pattern for %s: %s (pattern %q); a pattern must be one complete syntax node of the language, e.g. `foo($A)` or `function $NAME($$$) { $$$ }`", e.Lang, e.Cause, e.Pattern)
}

// Unwrap returns [ErrBadPattern].
func (e *PatternError) Unwrap() error { return ErrBadPattern }

// BackendError reports a failed run of the ast-grep executable. It wraps [ErrBackend].
type BackendError struct {
	Backend  string
	ExitCode int
	Stderr   string
}

func (e *BackendError) Error() string {
	return fmt.Sprintf("%s exited with status %d: %s", e.Backend, e.ExitCode, e.Stderr)
}

// Unwrap returns [ErrBackend].
func (e *BackendError) Unwrap() error { return ErrBackend }

// FileError reports a file that could not be read, written or checked.
type FileError struct {
	Op, Path string
	Err      error
}

func (e *FileError) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }
