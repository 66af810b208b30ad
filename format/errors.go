package format

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinels for the categories of failure. Every failure the package reports is an [*Error]
// that unwraps to one of them, so callers test the category with errors.Is.
var (
	// ErrFormatter: the formatter ran and failed (non-zero exit, no output, or output over
	// the size limit). The file is left as the edit wrote it.
	ErrFormatter = errors.New("format: formatter failed")
	// ErrTimeout: the formatter ran past its timeout, or the caller's context ended, and its
	// process group was killed (or it was not started). Only when the caller's context ended
	// does the error also wrap the context's error (context.Canceled or DeadlineExceeded).
	ErrTimeout = errors.New("format: formatter timed out")
	// ErrNotRunnable: the formatter's program could not be started (not found, not
	// executable).
	ErrNotRunnable = errors.New("format: formatter could not be started")
	// ErrSyntax: the in-process Go formatter could not parse the file.
	ErrSyntax = errors.New("format: syntax error")
	// ErrConcurrentChange: the file changed on disk while it was being formatted; the other
	// writer's bytes were kept.
	ErrConcurrentChange = errors.New("format: file changed during formatting")
	// ErrConfig: the formatter configuration is malformed.
	ErrConfig = errors.New("format: invalid configuration")
	// ErrOutside: the path lies outside the root the formatter was set up with.
	ErrOutside = errors.New("format: path outside the root")
	// ErrIO: reading or writing the file failed.
	ErrIO = errors.New("format: i/o failure")
)

// Error is the one typed error of the package. Kind is one of the sentinels above; the other
// fields say which file and formatter, and what the process reported.
//
//	var fe *format.Error
//	if errors.As(res.Err, &fe) { … fe.Formatter, fe.ExitCode, fe.Stderr … }
type Error struct {
	Kind      error  // one of the package's sentinels
	Path      string // the file being formatted, as given
	Formatter string // the formatter's name, "" when none ran
	ExitCode  int    // the process's exit code, -1 when it did not exit normally, 0 when not a process failure
	Stderr    string // the process's stderr, at most DefaultMaxStderr bytes
	Msg       string // what happened and what to do
	Err       error  // the cause, may be nil
}

// Error returns "format <path>: <formatter>: <message>", followed by the formatter's stderr
// when it printed any.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("format ")
	b.WriteString(e.Path)
	b.WriteString(": ")
	if e.Formatter != "" {
		b.WriteString(e.Formatter)
		b.WriteString(": ")
	}
	switch {
	case e.Msg != "":
		b.WriteString(e.Msg)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString(strings.TrimPrefix(e.Kind.Error(), "format: "))
	}
	if e.ExitCode > 0 {
		b.WriteString(" (exit code ")
		b.WriteString(strconv.Itoa(e.ExitCode))
		b.WriteString(")")
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString("; stderr: ")
		b.WriteString(s)
	}
	return b.String()
}

// Unwrap returns the sentinel and, when set, the cause, so errors.Is works for both
// (for example ErrTimeout and context.DeadlineExceeded).
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}
