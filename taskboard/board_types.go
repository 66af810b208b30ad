package taskboard

// The typed status values of the package. Each String method returns the exact
// spelling of the reference, which is also the value of the constant.

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

// LiveStatus is one reading of a session's live status at the host.
type LiveStatus string

// Live readings. absent means a valid status map without an entry for the session.
const (
	LiveBusy        LiveStatus = "busy"
	LiveRetry       LiveStatus = "retry"
	LiveIdle        LiveStatus = "idle"
	LiveAbsent      LiveStatus = "absent"
	LiveMalformed   LiveStatus = "malformed"
	LiveLookupError LiveStatus = "lookup-error"
	LiveUnavailable LiveStatus = "status-unavailable"
)

// String returns the LiveStatus's spelling.
func (s LiveStatus) String() string { return string(s) }

// LeaseKind is the purpose a lease is held for.
type LeaseKind string

// Lease kinds. Compensation is not a kind: it is a relaunch lease with owner
// OwnerCompensation.
const (
	LeaseCancellation LeaseKind = "cancellation"
	LeaseMessage      LeaseKind = "message"
	LeaseRelaunch     LeaseKind = "relaunch"
	LeaseNotification LeaseKind = "terminal-notification"
)

// String returns the LeaseKind's spelling.
func (k LeaseKind) String() string { return string(k) }

// leaseKinds is every lease kind, in a fixed order.
var leaseKinds = [...]LeaseKind{LeaseCancellation, LeaseMessage, LeaseRelaunch, LeaseNotification}

// LeaseKinds returns every lease kind in a fixed order.
func LeaseKinds() []LeaseKind { return append([]LeaseKind(nil), leaseKinds[:]...) }

// LeaseOwner is who currently holds a lease. Ownership moves only
// caller → admission → compensation.
type LeaseOwner string

// Lease owners.
const (
	OwnerCaller       LeaseOwner = "caller"
	OwnerAdmission    LeaseOwner = "admission"
	OwnerCompensation LeaseOwner = "compensation"
)

// String returns the LeaseOwner's spelling.
func (o LeaseOwner) String() string { return string(o) }

// Phase is the inspection label of a relaunch lease that outlived its caller.
type Phase string

// Phases; the empty Phase means the lease is held by its caller.
const (
	PhaseNone         Phase = ""
	PhaseSentUnknown  Phase = "sent_unknown"
	PhaseCompensating Phase = "compensating"
)

// String returns the Phase's spelling.
func (p Phase) String() string { return string(p) }

// ReviveStatus is the status line of a task_revive result; a terminal State may also
// appear there (as ReviveStatus(state)).
type ReviveStatus string

// Revive statuses.
const (
	ReviveStarted          ReviveStatus = "started"
	ReviveAdmissionUnknown ReviveStatus = "admission_unknown"
)

// String returns the ReviveStatus's spelling.
func (s ReviveStatus) String() string { return string(s) }

// CancelState is the state line of a task_cancel result; any State may also appear there
// (as CancelState(state)).
type CancelState string

// Cancel states.
const (
	CancelUnknown   CancelState = "unknown"
	CancelRunning   CancelState = "running"
	CancelCancelled CancelState = "cancelled"
)

// String returns the CancelState's spelling.
func (s CancelState) String() string { return string(s) }

// StatusSource says whether a task_status state came from the host or from the board.
type StatusSource string

// Status sources.
const (
	SourceLive  StatusSource = "live"
	SourceBoard StatusSource = "board"
)

// String returns the StatusSource's spelling.
func (s StatusSource) String() string { return string(s) }

// GateResult is the outcome of a fenced board input such as [Board.CommitTerminal].
type GateResult string

// Gate results: committed (the board changed state), deferred (the input was kept for
// later: a deferred error, or a first stop-confirmation reading), stale (no change, no
// notice).
const (
	GateCommitted GateResult = "committed"
	GateDeferred  GateResult = "deferred"
	GateStale     GateResult = "stale"
)

// String returns the GateResult's spelling.
func (g GateResult) String() string { return string(g) }

// Flavor is the host API generation.
type Flavor int

// Host flavours: v1 has one status map for all sessions; v2 has none and may offer an idle
// waiter.
const (
	FlavorV1 Flavor = iota + 1
	FlavorV2
)

// String returns the Flavor's spelling.
func (f Flavor) String() string {
	switch f {
	case FlavorV1:
		return "v1"
	case FlavorV2:
		return "v2"
	}
	return "unknown"
}

// Origin says how a record came onto the board.
type Origin string

// Origins.
const (
	OriginLaunched Origin = "launched"
	OriginAdopted  Origin = "adopted"
	OriginRestored Origin = "restored"
)

// String returns the Origin's spelling.
func (o Origin) String() string { return string(o) }

// PlanKind is what task() decided to do with a call.
type PlanKind int

// Plan kinds.
const (
	PlanSpawn PlanKind = iota
	PlanResume
	PlanAdoptCandidate
)

// String returns the PlanKind's spelling.
func (k PlanKind) String() string {
	switch k {
	case PlanSpawn:
		return "spawn"
	case PlanResume:
		return "resume"
	case PlanAdoptCandidate:
		return "adopt_candidate"
	}
	return "unknown"
}

// NoticeKind is the kind of a board [Notice].
type NoticeKind int

// Notice kinds.
const (
	NoticeTerminal NoticeKind = iota + 1
	NoticeLaunched
	NoticeLeaseReleased
)

// String returns the NoticeKind's spelling.
func (k NoticeKind) String() string {
	switch k {
	case NoticeTerminal:
		return "terminal"
	case NoticeLaunched:
		return "launched"
	case NoticeLeaseReleased:
		return "lease_released"
	}
	return "unknown"
}

// SuppressionReason is why a task ID was tombstoned.
type SuppressionReason string

// Suppression reasons.
const (
	ReasonDropped       SuppressionReason = "dropped"
	ReasonParentCleared SuppressionReason = "parent-cleared"
	ReasonEvicted       SuppressionReason = "evicted"
)

// String returns the SuppressionReason's spelling.
func (r SuppressionReason) String() string { return string(r) }
