package taskboard

// The status values of the package. Each constant's value is the exact spelling of the
// reference. The string-valued ones are plain strings: a host compares them, never names
// a type for them.

// State is the lifecycle state of a task record.
type State string

// Record states. completed, error and cancelled are the canonical terminal states;
// stopped means the runtime ended without a terminal task result; reconciled means the
// parent acknowledged a canonical terminal result, which Record.TerminalState keeps.
const (
	StateRunning    State = "running"
	StateCompleted  State = "completed"
	StateError      State = "error"
	StateCancelled  State = "cancelled"
	StateStopped    State = "stopped"
	StateReconciled State = "reconciled"
)

// String returns the State's spelling.
func (s State) String() string { return string(s) }

// Canonical reports whether s is completed, error or cancelled.
func (s State) Canonical() bool {
	return s == StateCompleted || s == StateError || s == StateCancelled
}

// Terminal reports whether s is one of the states a terminal commit produces
// (completed, error, cancelled, stopped).
func (s State) Terminal() bool { return s.Canonical() || s == StateStopped }

// Live readings of a session at the host (StatusEntry.Status). absent means a valid status map without an entry for the session.
const (
	LiveBusy        string = "busy"
	LiveRetry       string = "retry"
	LiveIdle        string = "idle"
	LiveAbsent      string = "absent"
	LiveMalformed   string = "malformed"
	LiveLookupError string = "lookup-error"
	LiveUnavailable string = "status-unavailable"
)

// Lease kinds (Lease.Kind, LeaseInfo.Kind). Compensation is not a kind: it is a relaunch lease with owner
// OwnerCompensation.
const (
	LeaseCancellation string = "cancellation"
	LeaseMessage      string = "message"
	LeaseRelaunch     string = "relaunch"
	LeaseNotification string = "terminal-notification"
)

// leaseKinds is every lease kind, in a fixed order.
var leaseKinds = [...]string{LeaseCancellation, LeaseMessage, LeaseRelaunch, LeaseNotification}

// LeaseKinds returns every lease kind in a fixed order.
func LeaseKinds() []string { return append([]string(nil), leaseKinds[:]...) }

// Lease owners (Lease.Owner). Ownership moves only caller → admission → compensation.
const (
	OwnerCaller       string = "caller"
	OwnerAdmission    string = "admission"
	OwnerCompensation string = "compensation"
)

// Phases: the inspection label of a relaunch lease that outlived its caller
// (LeaseInfo.Phase); PhaseNone means the lease is held by its caller.
const (
	PhaseNone         string = ""
	PhaseSentUnknown  string = "sent_unknown"
	PhaseCompensating string = "compensating"
)

// Revive statuses (ReviveResult.Status); a terminal State may also appear there.
const (
	ReviveStarted          string = "started"
	ReviveAdmissionUnknown string = "admission_unknown"
)

// Cancel states (CancelResult.State); any State may also appear there.
const (
	CancelUnknown   string = "unknown"
	CancelRunning   string = "running"
	CancelCancelled string = "cancelled"
)

// Status sources (StatusResult.Source): the state came from the host or from the board.
const (
	SourceLive  string = "live"
	SourceBoard string = "board"
)

// gateResult is the outcome of a fenced board input such as Board.commitTerminal.
type gateResult string

// Gate results: committed (the board changed state), deferred (the input was kept for
// later: a deferred error, or a first stop-confirmation reading), stale (no change, no
// notice).
const (
	gateCommitted gateResult = "committed"
	gateDeferred  gateResult = "deferred"
	gateStale     gateResult = "stale"
)

// String returns the gateResult's spelling.
func (g gateResult) String() string { return string(g) }

// Host flavours (Host.Flavor): v1 has one status map for all sessions; v2 has none and
// may offer an idle waiter.
const (
	FlavorV1 = "v1"
	FlavorV2 = "v2"
)

// Origins: how a record came onto the board (Record.Origin).
const (
	OriginLaunched string = "launched"
	OriginAdopted  string = "adopted"
	OriginRestored string = "restored"
)

// Plan kinds (TaskPlan.Kind): what task() decided to do with a call.
const (
	PlanSpawn          = "spawn"
	PlanResume         = "resume"
	PlanAdoptCandidate = "adopt_candidate"
)

// Notice kinds (Notice.Kind).
const (
	NoticeTerminal      = "terminal"
	NoticeLaunched      = "launched"
	NoticeLeaseReleased = "lease_released"
)

// Suppression reasons: why a task ID was tombstoned.
const (
	ReasonDropped       string = "dropped"
	ReasonParentCleared string = "parent-cleared"
	ReasonEvicted       string = "evicted"
)
