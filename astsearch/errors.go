package astsearch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/harnesskit/harnesskit/pathguard"
)

var (
	// ErrBadPattern: the pattern does not compile to one node (see [PatternError]), the
	// rewrite template is not text, or a glob does not parse.
	ErrBadPattern = errors.New("astsearch: cannot parse the pattern as a valid pattern")
	// ErrUnknownLang: the language name is not one of the 25 (see [Langs]).
	ErrUnknownLang = errors.New("astsearch: unknown language")
	// ErrLangUnavailable: the backend has no grammar for the language; from the native
	// backend, a [*LangNotLinkedError] naming the package that registers it.
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

// LangNotLinkedError reports a search in a language whose grammar no package of the program
// registered: the host imports nothing under astsearch/lang for it, and the ast-grep
// executable is not there to fall back on. It wraps [ErrLangUnavailable]. Linked lists the
// languages that are registered.
type LangNotLinkedError struct {
	Lang   Lang
	Linked []Lang
}

func (e *LangNotLinkedError) Error() string {
	linked := "none"
	if len(e.Linked) > 0 {
		names := make([]string, len(e.Linked))
		for i, l := range e.Linked {
			names[i] = string(l)
		}
		linked = strings.Join(names, ", ")
	}
	return fmt.Sprintf("astsearch: no %s grammar is linked into this program (languages it can search: %s); search one of those, or have the host add import _ %q (or %q for all 25), or install the ast-grep executable", e.Lang, linked, e.Lang.ImportPath(), langModule+"/all")
}

// Unwrap returns [ErrLangUnavailable].
func (e *LangNotLinkedError) Unwrap() error { return ErrLangUnavailable }

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

// blockedPathError is a requested path that does not exist or passes through a file: it
// wraps [ErrBlocked] and pathguard's *Error (for errors.As), with a message of its own.
type blockedPathError struct{ pe *pathguard.Error }

func (e *blockedPathError) Error() string {
	p := e.pe.Path
	var b strings.Builder
	if e.pe.Kind == pathguard.KindNotDirectory {
		fmt.Fprintf(&b, "astsearch: search path %q: a component of it is a file, not a directory; nothing was searched", p)
	} else {
		fmt.Fprintf(&b, "astsearch: search path %q does not exist under the search root; nothing was searched", p)
	}
	if slash, ok := windowsStyle(p); ok {
		fmt.Fprintf(&b, ". It is written the Windows way: search paths are slash paths relative to the project root, such as %q", slash)
	} else {
		b.WriteString(". Check the path (relative to the project root), or list its parent directory to find the right one")
	}
	return b.String()
}

func (e *blockedPathError) Unwrap() []error { return []error{ErrBlocked, e.pe} }

// windowsStyle reports whether p looks like a Windows path (a backslash, a drive letter)
// rather than a slash path under the root, and gives the slash path it most likely means:
// backslashes made slashes, a drive or leading separator dropped.
func windowsStyle(p string) (string, bool) {
	drive := len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
	if !drive && !strings.Contains(p, `\`) {
		return "", false
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if drive {
		s = s[2:]
	}
	s = strings.TrimLeft(s, "/")
	if s == "" {
		s = "."
	}
	return s, true
}
