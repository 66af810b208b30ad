package taskboard

import (
	"fmt"
	"sort"
	"time"
)

// leaseGrant is the exclusive right to run one lifecycle operation on one generation of a task
// . At most one lease is live per task ID; it ends only when its holder releases
// it with the exact token. There is no TTL.
type leaseGrant struct {
	TaskID           string
	Kind             leaseKind
	Generation       uint64
	TerminalRevision uint64 // fenced revision of a notification lease; 0 for other kinds
	Token            uint64 // unique for the board's life
	Owner            leaseOwner
	Holder           string // incarnation that holds it (shared boards; "" on one process)
	Dispatched       bool   // its guarded host call was dispatched (or may have been)
}

// String renders background-job-<kind>-lease-<token>.
func (l leaseGrant) String() string {
	return fmt.Sprintf("background-job-%s-lease-%d", l.Kind, l.Token)
}

// Phase is sent_unknown for a relaunch lease held by the admission owner, compensating for
// one held by the compensation owner, and empty otherwise.
func (l leaseGrant) Phase() phase {
	if l.Kind != leaseRelaunch {
		return phaseNone
	}
	switch l.Owner {
	case ownerAdmission:
		return phaseSentUnknown
	case ownerCompensation:
		return phaseCompensating
	}
	return phaseNone
}

// acquire takes a lease of kind on generation gen of taskID. It fails when any lease
// is live for taskID or the record does not meet the kind's precondition:
// cancellation and message need a running record of that generation; relaunch needs a
// record of that generation in any state; terminal-notification needs a completed or error
// record (or a reconciled one whose terminal state is completed or error) of that
// generation and, when terminalRev is given, that terminal revision. A success implies the
// record existed. The new lease is owned by ownerCaller.
func (b *Board) acquire(kind leaseKind, taskID string, gen uint64, terminalRev *uint64) (leaseGrant, bool) {
	if _, live := b.leases[taskID]; live {
		return leaseGrant{}, false
	}
	r, ok := b.records[taskID]
	if !ok || r.Generation != gen {
		return leaseGrant{}, false
	}
	l := leaseGrant{TaskID: taskID, Kind: kind, Generation: gen, Owner: ownerCaller, Holder: b.self}
	switch kind {
	case leaseCancellation, leaseMessage:
		if r.State != StateRunning {
			return leaseGrant{}, false
		}
	case leaseRelaunch:
	case leaseNotification:
		if terminalRev != nil && *terminalRev != r.TerminalRevision {
			return leaseGrant{}, false
		}
		es := r.EffectiveState()
		if (r.State != StateCompleted && r.State != StateError && r.State != StateReconciled) ||
			(es != StateCompleted && es != StateError) {
			return leaseGrant{}, false
		}
		l.TerminalRevision = r.TerminalRevision
	default:
		return leaseGrant{}, false
	}
	b.nextToken++
	l.Token = b.nextToken
	b.leases[taskID] = l
	b.leaseSince[taskID] = b.now()
	return l, true
}

// validate reports whether l is the live lease of its task ID: same token, kind and
// generation, and for a notification lease the record's current terminal revision.
// It does not compare with the record's current generation.
func (b *Board) validate(l leaseGrant) bool {
	live, ok := b.leases[l.TaskID]
	if !ok || live.Token != l.Token || live.Kind != l.Kind || live.Generation != l.Generation {
		return false
	}
	if l.Kind == leaseNotification {
		r, ok := b.records[l.TaskID]
		if !ok || r.TerminalRevision != live.TerminalRevision || l.TerminalRevision != live.TerminalRevision {
			return false
		}
	}
	return true
}

// release ends l when it exactly matches the live lease of its task ID (token, kind,
// generation, stored terminal revision); otherwise it returns false and changes nothing
// . A withdrawn notification lease can still be released. After a release the
// retention trim runs for the task and a LeaseReleased notice is emitted.
func (b *Board) release(l leaseGrant) bool {
	live, ok := b.leases[l.TaskID]
	if !ok || live.Token != l.Token || live.Kind != l.Kind || live.Generation != l.Generation ||
		live.TerminalRevision != l.TerminalRevision {
		return false
	}
	delete(b.leases, l.TaskID)
	delete(b.leaseSince, l.TaskID)
	n := Notice{Kind: noticeLeaseReleased, TaskID: l.TaskID, Generation: l.Generation,
		TerminalRevision: l.TerminalRevision}
	if r, ok := b.records[l.TaskID]; ok {
		n.ParentID, n.State = r.ParentID, r.State
	}
	b.notices = append(b.notices, n)
	if r, ok := b.records[l.TaskID]; ok {
		b.trim(r.ParentID, r.Agent)
	} else {
		b.pruneEpoch(l.TaskID)
	}
	return true
}

// handOver passes a valid lease to the next owner, keeping its token, so the task ID is
// never free between owners. Only caller → admission and admission → compensation
// are allowed, and only for relaunch leases; anything else returns false.
func (b *Board) handOver(l leaseGrant, to leaseOwner) (leaseGrant, bool) {
	if !b.validate(l) || l.Kind != leaseRelaunch {
		return leaseGrant{}, false
	}
	live := b.leases[l.TaskID]
	switch {
	case live.Owner == ownerCaller && to == ownerAdmission:
	case live.Owner == ownerAdmission && to == ownerCompensation:
	default:
		return leaseGrant{}, false
	}
	live.Owner = to
	b.leases[l.TaskID] = live
	return live, true
}

// liveLease returns the live lease of taskID, token included, for the protocols.
func (b *Board) liveLease(taskID string) (leaseGrant, bool) {
	l, ok := b.leases[taskID]
	return l, ok
}

// LiveLease describes taskID's live lease, with or without a record.
func (b *Board) LiveLease(taskID string) (Lease, bool) {
	l, ok := b.leases[taskID]
	if !ok {
		return Lease{}, false
	}
	return b.info(l), true
}

// LiveLeases describes every live lease, sorted by task ID, with the reason it is held.
func (b *Board) LiveLeases() []Lease {
	ids := make([]string, 0, len(b.leases))
	for id := range b.leases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]Lease, 0, len(ids))
	for _, id := range ids {
		out = append(out, b.info(b.leases[id]))
	}
	return out
}

// maxForced bounds the ForceRelease audit log.
const maxForced = 64

// ForceRelease breaks taskID's live lease (see the package doc), keeping reason and the
// time in [Record].ForcedRelease and [Board.ForcedReleases]. Errors: ErrInvalidArgs for an
// empty reason, ErrUnknownTask when no lease is live.
func (b *Board) ForceRelease(taskID, reason string) (Lease, error) {
	reason = collapseSpace(reason)
	if reason == "" {
		return Lease{}, toolErr(ErrInvalidArgs, fmt.Sprintf("ForceRelease of %s needs a reason for the audit log", taskID))
	}
	l, ok := b.leases[taskID]
	if !ok {
		return Lease{}, toolErr(ErrUnknownTask, fmt.Sprintf("No live lease for %s; nothing was released", taskID))
	}
	info := b.info(l)
	info.Reason = fmt.Sprintf("force-released at %s: %s (was: %s)", b.now().UTC().Format(time.RFC3339), reason, info.Reason)
	delete(b.leases, taskID)
	delete(b.leaseSince, taskID)
	b.nextToken++ // fence: no token at or below the released one is live again
	b.forced = append(b.forced, info)
	if len(b.forced) > maxForced {
		b.forced = append([]Lease(nil), b.forced[len(b.forced)-maxForced:]...)
	}
	n := Notice{Kind: noticeLeaseReleased, TaskID: taskID, Generation: l.Generation, TerminalRevision: l.TerminalRevision}
	if r, ok := b.records[taskID]; ok {
		r.ForcedRelease = info.Reason
		n.ParentID, n.State = r.ParentID, r.State
		b.notices = append(b.notices, n)
		b.trim(r.ParentID, r.Agent)
	} else {
		b.notices = append(b.notices, n)
		b.pruneEpoch(taskID)
	}
	return info, nil
}

// ForcedReleases returns the last 64 forced releases, oldest first.
func (b *Board) ForcedReleases() []Lease { return append([]Lease(nil), b.forced...) }

// noteDispatch records that the guarded host call protected by l is about to be made: from
// now on the lease is never released automatically, even if its holder dies (the call may
// still act on the session).
func (b *Board) noteDispatch(l leaseGrant) {
	if live, ok := b.leases[l.TaskID]; ok && live.Token == l.Token && !live.Dispatched {
		live.Dispatched = true
		b.leases[l.TaskID] = live
	}
}
