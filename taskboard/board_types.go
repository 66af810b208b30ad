package taskboard

// The enumerations of the package. Each constant's value is the exact spelling the
// model and the host see.

// State is a record's lifecycle state. stopped: the runtime ended without a task result;
// reconciled: the parent acknowledged a result (completed, error or cancelled), which
// Record.TerminalState keeps.
type State string

// Record states.
const (
	StateRunning    State = "running"
	StateCompleted  State = "completed"
	StateError      State = "error"
	StateCancelled  State = "cancelled"
	StateStopped    State = "stopped"
	StateReconciled State = "reconciled"
)

// canonical reports whether s is completed, error or cancelled.
func (s State) canonical() bool {
	return s == StateCompleted || s == StateError || s == StateCancelled
}

// terminal reports whether s is one of the states a terminal commit produces
// (completed, error, cancelled, stopped).
func (s State) terminal() bool { return s.canonical() || s == StateStopped }

// LiveStatus is a session's reading at the host; absent: a valid status map without it.
type LiveStatus string

// Live readings.
const (
	LiveBusy      LiveStatus = "busy"
	LiveRetry     LiveStatus = "retry"
	LiveIdle      LiveStatus = "idle"
	LiveAbsent    LiveStatus = "absent"
	LiveMalformed LiveStatus = "malformed"
)

// leaseKind is what a lease protects ([Lease].Kind). Compensation is not a kind: it is a
// relaunch lease handed to ownerCompensation.
type leaseKind = string

const (
	leaseCancellation leaseKind = "cancellation"
	leaseMessage      leaseKind = "message"
	leaseRelaunch     leaseKind = "relaunch"
	leaseNotification leaseKind = "terminal-notification"
)

// leaseKinds is every lease kind, in a fixed order.
var leaseKinds = [...]leaseKind{leaseCancellation, leaseMessage, leaseRelaunch, leaseNotification}

// leaseOwner is who holds a lease ([Lease].Owner); it moves only caller → admission →
// compensation.
type leaseOwner = string

const (
	ownerCaller       leaseOwner = "caller"
	ownerAdmission    leaseOwner = "admission"
	ownerCompensation leaseOwner = "compensation"
)

// Flavor is the host's API generation: v1 has a status map, v2 may have an idle waiter.
type Flavor string

// Host flavours.
const (
	FlavorV1 Flavor = "v1"
	FlavorV2 Flavor = "v2"
)

// Record.Origin: how a record came onto the board.
const (
	originLaunched = "launched"
	originAdopted  = "adopted"
)

// TaskPlan.Kind: what task()'s before-hook decided.
const (
	planSpawn          = "spawn"
	planResume         = "resume"
	planAdoptCandidate = "adopt_candidate"
)

// Notice.Kind. Lease releases are notices the driver consumes; subscribers see only
// terminal and launched notices.
const (
	noticeTerminal      = "terminal"
	noticeLaunched      = "launched"
	noticeLeaseReleased = "lease_released"
)

// CancelResult.State besides the task states; ReviveResult.Status besides the terminal
// states; StatusResult.Source.
const (
	cancelUnknown          = "unknown"
	reviveStarted          = "started"
	reviveAdmissionUnknown = "admission_unknown"
	sourceLive             = "live"
	sourceBoard            = "board"
)

// gateResult is the outcome of a fenced board input such as Board.commitTerminal:
// committed (the board changed state), deferred (the input was kept for later: a deferred
// error, or a first stop-confirmation reading), stale (no change, no notice).
type gateResult string

const (
	gateCommitted gateResult = "committed"
	gateDeferred  gateResult = "deferred"
	gateStale     gateResult = "stale"
)

// phase is the inspection label of a relaunch lease that outlived its caller.
type phase string

const (
	phaseNone         phase = ""
	phaseSentUnknown  phase = "sent_unknown"
	phaseCompensating phase = "compensating"
)

// Suppression reasons: why a task ID was tombstoned.
const (
	reasonDropped       = "dropped"
	reasonParentCleared = "parent-cleared"
	reasonEvicted       = "evicted"
)
