package taskboard

import (
	"errors"
	"fmt"
	"time"
)

// Sentinels: the Kind of every [ToolError]; test with errors.Is.
var (
	ErrInvalidArgs      = errors.New("invalid arguments")
	ErrNotOrchestrator  = errors.New("caller is not an orchestrator")
	ErrUnmanaged        = errors.New("session is not managed")
	ErrUnknownTask      = errors.New("unknown task")
	ErrForeignTask      = errors.New("task belongs to another parent")
	ErrNotRunning       = errors.New("task is not running")
	ErrLeaseUnavailable = errors.New("lease unavailable")
	ErrStale            = errors.New("stale operation")
	ErrTimeout          = errors.New("deadline exceeded")
	ErrUnconfirmed      = errors.New("outcome unconfirmed")
	ErrHost             = errors.New("host call failed")
	ErrCapability       = errors.New("host capability missing")
	ErrNotRevivable     = errors.New("task is not revivable")
	ErrBusyAtHost       = errors.New("task is executing at the host")
	ErrUnsettled        = errors.New("previous operation unsettled")
	ErrNoResult         = errors.New("no result")
	ErrTaskFailed       = errors.New("task failed")
	ErrDuplicate        = errors.New("duplicate task")
	ErrRefused          = errors.New("refused")
	ErrClosed           = errors.New("driver closed")
	ErrLeaseHeld        = errors.New("lease held")
	ErrStaleLease       = errors.New("stale lease")
	ErrTombstoned       = errors.New("task ID tombstoned")
	ErrExists           = errors.New("record exists")
)

// ToolError is the package's one typed error (see the package doc).
type ToolError struct {
	Kind    error
	Message string
}

// Error returns the model-facing message.
func (e *ToolError) Error() string { return e.Message }

// Unwrap returns the sentinel.
func (e *ToolError) Unwrap() error { return e.Kind }

func toolErr(kind error, msg string) *ToolError { return &ToolError{Kind: kind, Message: msg} }

// leaseUnavailable is the ErrLeaseUnavailable refusal for id: msg, then who holds the lease
// and how long, and the operator's way out when its host call will never settle.
func leaseUnavailable(b *Board, id, msg string) *ToolError {
	if l, ok := b.leases[id]; ok {
		msg += fmt.Sprintf(" A %s lease (owner %s) has held it for %s.", l.Kind, l.Owner, b.now().Sub(b.leaseSince[id]).Round(time.Second))
	}
	msg += fmt.Sprintf(" It is released when the operation holding it settles. If that host call will never return, an operator can break the lease with Board.ForceRelease(%q, reason); this risks the abandoned call still acting on the session later.", id)
	return toolErr(ErrLeaseUnavailable, msg)
}
