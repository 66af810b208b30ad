package tools

import (
	"context"
	"errors"
	"io/fs"

	"github.com/harnesskit/harnesskit/loopguard"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/harnesskit/harnesskit/wfs"
)

// The sentinels of this package. Errors from the harnesskit packages keep their own
// sentinels (patch.ErrNotFound, pathguard.ErrOutside, loopguard.ErrRefused, …), reachable
// through a tool's *Error with errors.Is.
var (
	// ErrInvalidArgs: the arguments do not fit the tool's schema, or a pattern does not
	// compile.
	ErrInvalidArgs = errors.New("invalid arguments")
	// ErrNotText: the file is a directory or binary, and read shows only text files.
	ErrNotText = errors.New("not a text file")
)

// Error is a tool error: the call was understood and failed for a reason the model can
// act on. Message is what the model is shown (with the loop guard's notice when the same
// failure repeats); Err is the cause, for errors.Is and errors.As.
type Error struct {
	Tool    string
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsToolError reports whether err came back from Tool.Invoke as a tool error (its message
// is for the model) rather than a host fault.
func IsToolError(err error) bool {
	var te *Error
	return errors.As(err, &te)
}

// toolSentinels are the errors the model can act on; everything else is a host fault.
// A test checks that every exported sentinel of the packages the tools use is sorted
// into one channel or the other on purpose.
func toolSentinels() []error {
	return append(astToolSentinels(),
		ErrInvalidArgs, ErrNotText,
		fs.ErrNotExist, fs.ErrPermission, fs.ErrExist,
		// patch: every kind but KindIO.
		patch.ErrInvalid, patch.ErrEmpty, patch.ErrBlocked, patch.ErrMissingFile, patch.ErrExists,
		patch.ErrPathConflict, patch.ErrNotFound, patch.ErrAmbiguous, patch.ErrOverlap, patch.ErrChanged,
		patch.ErrAlreadyApplied, patch.ErrImplicitInvocation, patch.ErrNotPatchCommand,
		patch.ErrTooLarge, patch.ErrBusy, patch.ErrReadOnly,
		// pathguard: a refused or unresolvable path is the model's to fix.
		pathguard.ErrMissing, pathguard.ErrNotDirectory, pathguard.ErrOutside, pathguard.ErrResolve,
		loopguard.ErrRefused,
		// wfs (the writes of apply_patch and ast_grep_replace): a file changed meanwhile, held
		// by another writer or program, too large, read-only, special or outside the bases.
		wfs.ErrChanged, wfs.ErrBusy, wfs.ErrTooLarge, wfs.ErrReadOnly, wfs.ErrSpecial, wfs.ErrOutside, wfs.ErrInUse,
		// webfetch: a URL, address, redirect or status the model can change or give up on.
		webfetch.ErrInvalidURL, webfetch.ErrInvalidRequest, webfetch.ErrPermissionDenied, webfetch.ErrBlocked,
		webfetch.ErrTimeout, webfetch.ErrTooManyRedirects, webfetch.ErrMissingLocation, webfetch.ErrStatus,
		webfetch.ErrTransport,
	)
}

// hostSentinels are the exported sentinels that are host faults on purpose.
func hostSentinels() []error {
	return append(astHostSentinels(), ErrNoRoot, patch.ErrIO, wfs.ErrLocked, wfs.ErrNotAbs, wfs.ErrKey, loopguard.ErrInvalidOption, loopguard.ErrInvalidCall,
		webfetch.ErrFilename, webfetch.ErrClosed)
}

// isToolError sorts a tool's raw error into its channel. Cancellation is a host error.
func isToolError(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	for _, s := range toolSentinels() {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
