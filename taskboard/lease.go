package taskboard

import (
	"fmt"
	"sort"
)

// Lease is the exclusive right to run one lifecycle operation on one generation of a task
// (§2.4, R12). At most one lease is live per task ID; it ends only when its holder releases
// it with the exact token ([Board.Release]). There is no TTL.
type Lease struct {
	TaskID           string
	Kind             LeaseKind
	Generation       uint64
	TerminalRevision uint64 // fenced revision of a notification lease; 0 for other kinds
	Token            uint64 // unique for the board's life
	Owner            LeaseOwner
}

// String renders background-job-<kind>-lease-<token>.
func (l Lease) String() string { return fmt.Sprintf("background-job-%s-lease-%d", l.Kind, l.Token) }

// Phase is sent_unknown for a relaunch lease held by the admission owner, compensating for
// one held by the compensation owner, and empty otherwise.
func (l Lease) Phase() Phase {
	if l.Kind != LeaseRelaunch {
		return PhaseNone
	}
	switch l.Owner {
	case OwnerAdmission:
		return PhaseSentUnknown
	case OwnerCompensation:
		return PhaseCompensating
	}
	return PhaseNone
}

// Acquire takes a lease of kind on generation gen of taskID (R13). It fails when any lease
// is live for taskID (R14) or the record does not meet the kind's precondition:
// cancellation and message need a running record of that generation; relaunch needs a
// record of that generation in any state; terminal-notification needs a completed or error
// record (or a reconciled one whose terminal state is completed or error) of that
// generation and, when terminalRev is given, that terminal revision. A success implies the
// record existed. The new lease is owned by OwnerCaller.
func (b *Board) Acquire(kind LeaseKind, taskID string, gen uint64, terminalRev *uint64) (Lease, bool) {
	if _, live := b.leases[taskID]; live {
		return Lease{}, false
	}
	r, ok := b.records[taskID]
	if !ok || r.Generation != gen {
		return Lease{}, false
	}
	l := Lease{TaskID: taskID, Kind: kind, Generation: gen, Owner: OwnerCaller}
	switch kind {
	case LeaseCancellation, LeaseMessage:
		if r.State != StateRunning {
			return Lease{}, false
		}
	case LeaseRelaunch:
	case LeaseNotification:
		if terminalRev != nil && *terminalRev != r.TerminalRevision {
			return Lease{}, false
		}
		es := r.EffectiveState()
		if (r.State != StateCompleted && r.State != StateError && r.State != StateReconciled) ||
			(es != StateCompleted && es != StateError) {
			return Lease{}, false
		}
		l.TerminalRevision = r.TerminalRevision
	default:
		return Lease{}, false
	}
	b.nextToken++
	l.Token = b.nextToken
	b.leases[taskID] = l
	b.leaseSince[taskID] = b.Now()
	return l, true
}

// Validate reports whether l is the live lease of its task ID: same token, kind and
// generation, and for a notification lease the record's current terminal revision (R15).
// It does not compare with the record's current generation.
func (b *Board) Validate(l Lease) bool {
	live, ok := b.leases[l.TaskID]
	if !ok || live.Token != l.Token || live.Kind != l.Kind || live.Generation != l.Generation {
		return false
	}
	if l.Kind == LeaseNotification {
		r, ok := b.records[l.TaskID]
		if !ok || r.TerminalRevision != live.TerminalRevision || l.TerminalRevision != live.TerminalRevision {
			return false
		}
	}
	return true
}

// Release ends l when it exactly matches the live lease of its task ID (token, kind,
// generation, stored terminal revision); otherwise it returns false and changes nothing
// (R16). A withdrawn notification lease can still be released. After a release the
// retention trim runs for the task and a LeaseReleased notice is emitted.
func (b *Board) Release(l Lease) bool {
	live, ok := b.leases[l.TaskID]
	if !ok || live.Token != l.Token || live.Kind != l.Kind || live.Generation != l.Generation ||
		live.TerminalRevision != l.TerminalRevision {
		return false
	}
	delete(b.leases, l.TaskID)
	delete(b.leaseSince, l.TaskID)
	n := Notice{Kind: NoticeLeaseReleased, TaskID: l.TaskID, Generation: l.Generation,
		TerminalRevision: l.TerminalRevision}
	if r, ok := b.records[l.TaskID]; ok {
		n.ParentID, n.State = r.ParentID, r.State
	}
	b.notices = append(b.notices, n)
	if r, ok := b.records[l.TaskID]; ok {
		b.trim(r.ParentID, r.Agent)
	}
	return true
}

// HandOver passes a valid lease to the next owner, keeping its token, so the task ID is
// never free between owners (R21). Only caller → admission and admission → compensation
// are allowed, and only for relaunch leases; anything else returns false.
func (b *Board) HandOver(l Lease, to LeaseOwner) (Lease, bool) {
	if !b.Validate(l) || l.Kind != LeaseRelaunch {
		return Lease{}, false
	}
	live := b.leases[l.TaskID]
	switch {
	case live.Owner == OwnerCaller && to == OwnerAdmission:
	case live.Owner == OwnerAdmission && to == OwnerCompensation:
	default:
		return Lease{}, false
	}
	live.Owner = to
	b.leases[l.TaskID] = live
	return live, true
}

// LiveLease returns the live lease of taskID, if any, whether or not a record exists.
func (b *Board) LiveLease(taskID string) (Lease, bool) {
	l, ok := b.leases[taskID]
	return l, ok
}

// LiveLeases returns every live lease sorted by task ID (R20).
func (b *Board) LiveLeases() []Lease {
	out := make([]Lease, 0, len(b.leases))
	for _, l := range b.leases {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].TaskID < out[j].TaskID })
	return out
}
