package taskboard

// The enumerations of the package. Each constant's value is the exact spelling the
// model and the host see.

// State is the lifecycle state of a task record. completed, error and cancelled are the
// canonical terminal states; stopped means the runtime ended without a terminal task
// result; reconciled means the parent acknowledged a canonical terminal result, which
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

// Canonical reports whether s is completed, error or cancelled.
func (s State) Canonical() bool {
	return s == StateCompleted || s == StateError || s == StateCancelled
}

// Terminal reports whether s is one of the states a terminal commit produces
// (completed, error, cancelled, stopped).
func (s State) Terminal() bool { return s.Canonical() || s == StateStopped }

// LiveStatus is a session's reading at the host (StatusEntry.Status, ResultOutput.Live).
// LiveAbsent means a valid status map without an entry for the session.
type LiveStatus string

// Live readings.
const (
	LiveBusy      LiveStatus = "busy"
	LiveRetry     LiveStatus = "retry"
	LiveIdle      LiveStatus = "idle"
	LiveAbsent    LiveStatus = "absent"
	LiveMalformed LiveStatus = "malformed"
)

// LeaseKind is what a lease protects. Compensation is not a kind: it is a relaunch lease
// handed to [OwnerCompensation].
type LeaseKind string

// Lease kinds.
const (
	LeaseCancellation LeaseKind = "cancellation"
	LeaseMessage      LeaseKind = "message"
	LeaseRelaunch     LeaseKind = "relaunch"
	LeaseNotification LeaseKind = "terminal-notification"
)

// leaseKinds is every lease kind, in a fixed order.
var leaseKinds = [...]LeaseKind{LeaseCancellation, LeaseMessage, LeaseRelaunch, LeaseNotification}

// LeaseOwner is who holds a lease; it moves only caller → admission → compensation.
type LeaseOwner string

// Lease owners.
const (
	OwnerCaller       LeaseOwner = "caller"
	OwnerAdmission    LeaseOwner = "admission"
	OwnerCompensation LeaseOwner = "compensation"
)

// Flavor is the host's API generation: FlavorV1 has one status map for all sessions;
// FlavorV2 has none and may offer an idle waiter.
type Flavor string

// Host flavours.
const (
	FlavorV1 Flavor = "v1"
	FlavorV2 Flavor = "v2"
)

// Origin is how a record came onto the board.
type Origin string

// Origins.
const (
	OriginLaunched Origin = "launched"
	OriginAdopted  Origin = "adopted"
)

// PlanKind is what task()'s before-hook decided: spawn, resume, or let the host adopt an
// unknown session it can verify.
type PlanKind string

// Plan kinds.
const (
	PlanSpawn          PlanKind = "spawn"
	PlanResume         PlanKind = "resume"
	PlanAdoptCandidate PlanKind = "adopt_candidate"
)

// NoticeKind says what a [Notice] reports.
type NoticeKind string

// Notice kinds.
const (
	NoticeTerminal      NoticeKind = "terminal"
	NoticeLaunched      NoticeKind = "launched"
	NoticeLeaseReleased NoticeKind = "lease_released"
)

// CancelState is task_cancel's state line: unknown, or the task's state after the call.
type CancelState string

// Cancel states besides the task states (running, cancelled, …) converted with
// CancelState(state).
const CancelUnknown CancelState = "unknown"

// ReviveStatus is task_revive's status line ([ReviveResult].Status): started,
// admission_unknown, or the terminal state a fast run already reached.
type ReviveStatus string

// Revive statuses besides the terminal states converted with ReviveStatus(state).
const (
	ReviveStarted          ReviveStatus = "started"
	ReviveAdmissionUnknown ReviveStatus = "admission_unknown"
)

// StatusSource says whether task_status's state came from the host or the board.
type StatusSource string

// Status sources.
const (
	SourceLive  StatusSource = "live"
	SourceBoard StatusSource = "board"
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
