package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/loopguard"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/harnesskit/harnesskit/wfs"
)

// An errorChannel says where an error goes: to the model as a tool error, or to the
// operator as a host error.
type errorChannel int

const (
	// hostError: the host is broken or gave up; another call would not help. The CLI
	// writes the message to stderr and exits 2. It is the default, so an unmapped error
	// fails loudly.
	hostError errorChannel = iota
	// toolError: the call was understood and failed for a reason the model can act on. The
	// CLI writes {"error":{…}} to stdout and exits 1.
	toolError
)

// toolErrors lists the sentinels that are tool errors. Each package's subcommand file adds
// its sentinels here; a test checks that every exported sentinel of every package is
// listed, so a new one cannot fall into the default unnoticed.
func toolErrors() []error {
	return []error{
		fs.ErrNotExist,
		fs.ErrPermission,
		// patch: every kind but KindIO (patch.ErrIO is a host error).
		patch.ErrInvalid, patch.ErrEmpty, patch.ErrBlocked, patch.ErrMissingFile, patch.ErrExists,
		patch.ErrPathConflict, patch.ErrNotFound, patch.ErrAmbiguous, patch.ErrOverlap, patch.ErrChanged,
		patch.ErrAlreadyApplied, patch.ErrTooLarge, patch.ErrBusy, patch.ErrReadOnly,
		patch.ErrImplicitInvocation, patch.ErrNotPatchCommand,
		// wfs: a file changed meanwhile, locked by another writer, too large, read-only, special
		// or outside the bases (ErrLocked, ErrNotAbs and ErrKey are the host's to fix).
		wfs.ErrChanged, wfs.ErrBusy, wfs.ErrTooLarge, wfs.ErrReadOnly, wfs.ErrSpecial, wfs.ErrOutside, wfs.ErrInUse,
		// pathguard: every kind (a refused or unresolvable path is the model's to fix).
		pathguard.ErrMissing, pathguard.ErrNotDirectory, pathguard.ErrOutside, pathguard.ErrResolve,
		// loopguard: a refusal is the model's to act on (ErrInvalidOption and ErrInvalidCall
		// are the host's mistakes).
		loopguard.ErrRefused,
		// astsearch: what the model wrote or named (ErrUnavailable and ErrBackend are host
		// errors: the backend is missing or broken).
		astsearch.ErrBadPattern, astsearch.ErrUnknownLang, astsearch.ErrLangUnavailable,
		astsearch.ErrBlocked, astsearch.ErrConflict,
		// taskboard: refusals and outcomes the model can act on (wrong reference, a task in
		// the wrong state, a lease held by another operation, a deadline passed, an outcome
		// the host could not confirm). ErrHost, ErrClosed and ErrUnmanaged are host errors.
		taskboard.ErrInvalidArgs, taskboard.ErrNotOrchestrator, taskboard.ErrUnknownTask,
		taskboard.ErrForeignTask, taskboard.ErrNotRunning, taskboard.ErrLeaseUnavailable,
		taskboard.ErrStale, taskboard.ErrTimeout, taskboard.ErrUnconfirmed, taskboard.ErrCapability,
		taskboard.ErrNotRevivable, taskboard.ErrBusyAtHost, taskboard.ErrUnsettled,
		taskboard.ErrNoResult, taskboard.ErrTaskFailed, taskboard.ErrDuplicate, taskboard.ErrRefused,
		taskboard.ErrLeaseHeld, taskboard.ErrStaleLease, taskboard.ErrTombstoned, taskboard.ErrExists,
		// webfetch: a refused, failed or malformed fetch is the model's to act on (another URL,
		// the redirect target, a smaller offset). ErrFilename (the binary directory) and
		// ErrClosed are host errors.
		webfetch.ErrInvalidURL, webfetch.ErrInvalidRequest, webfetch.ErrPermissionDenied,
		webfetch.ErrBlocked, webfetch.ErrTimeout, webfetch.ErrTooManyRedirects,
		webfetch.ErrMissingLocation, webfetch.ErrStatus, webfetch.ErrTransport,
		// format: a formatter that failed, timed out or met a syntax error, a file changed
		// meanwhile or outside the root (ErrNotRunnable, ErrConfig and ErrIO are host errors:
		// install the formatter, fix the configuration).
		format.ErrFormatter, format.ErrTimeout, format.ErrSyntax, format.ErrConcurrentChange, format.ErrOutside,
	}
}

// classify sorts err into its channel. Cancellation is always a host error.
func classify(err error) errorChannel {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return hostError
	}
	for _, s := range toolErrors() {
		if errors.Is(err, s) {
			return toolError
		}
	}
	return hostError
}

// errorJSON is the error object of the commands that answer {"error":{…}}.
type errorJSON struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// reportError sends err to its channel and returns the exit code: a tool error becomes
// {"error":{"kind":kind,"message":…}} on stdout and exit 1; a host error becomes a message
// on stderr and exit 2.
func reportError(std stdio, cmd, kind string, err error) int {
	if classify(err) == toolError {
		if werr := writeJSON(std.out, struct {
			Error errorJSON `json:"error"`
		}{errorJSON{Kind: kind, Message: err.Error()}}); werr == nil {
			return exitRefused
		}
	}
	fmt.Fprintf(std.err, "harnesskit %s: %v\n", cmd, err)
	return exitUsage
}
