package taskboard

import (
	"fmt"
	"strings"
	"time"
)

// Lease describes one live lease, without its token.
type Lease struct {
	TaskID           string
	Kind             string // cancellation, message, relaunch or terminal-notification
	Generation       uint64
	TerminalRevision uint64        // fenced revision of a notification lease; 0 for other kinds
	Owner            string        // caller, then admission, then compensation (a relaunch lease only)
	HasRecord        bool          // false when the record was deleted while the lease stayed live
	State            State         // the record's state, when it has one
	Since            time.Time     // when the lease was acquired (hand-overs keep it)
	HeldFor          time.Duration // Now − Since
	Reason           string        // why it is held; of a forced release: when, why, held for what
}

func (b *Board) info(l leaseGrant) Lease {
	since := b.leaseSince[l.TaskID]
	info := Lease{TaskID: l.TaskID, Kind: l.Kind, Generation: l.Generation, TerminalRevision: l.TerminalRevision,
		Owner: l.Owner, Since: since, HeldFor: b.now().Sub(since)}
	r, ok := b.records[l.TaskID]
	if ok {
		info.HasRecord, info.State = true, r.State
	}
	info.Reason = leaseReason(l, ok, r)
	return info
}

func leaseReason(l leaseGrant, hasRecord bool, r *Record) string {
	var why string
	switch {
	case l.Kind == leaseRelaunch && l.Owner == ownerCompensation:
		why = "compensating an orphaned revive: held until an abort is confirmed and the session is seen idle; if that was never confirmed it is held for the life of the board"
	case l.Kind == leaseRelaunch && l.Owner == ownerAdmission:
		why = "revive prompt sent, admission not settled (sent_unknown): held until the host accepts or rejects it"
	case l.Kind == leaseRelaunch:
		why = "relaunch in progress (task() resume or task_revive)"
	case l.Kind == leaseCancellation:
		why = "task_cancel in progress, or its abort is still pending at the host"
	case l.Kind == leaseMessage:
		why = "task_message in progress, or its write is still pending at the host"
	case l.Kind == leaseNotification:
		why = fmt.Sprintf("terminal notification for revision %d in flight", l.TerminalRevision)
	}
	switch {
	case !hasRecord:
		why += "; the record is gone, the ID stays excluded until this exact token is released"
	case r.Generation != l.Generation:
		why += fmt.Sprintf("; the record moved on to generation %d", r.Generation)
	}
	return why
}

// String renders one inspection line, without HeldFor so that it is stable as time passes.
func (i Lease) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s gen=%d owner=%s", i.TaskID, i.Kind, i.Generation, i.Owner)
	if p := (leaseGrant{Kind: i.Kind, Owner: i.Owner}).Phase(); p != phaseNone {
		fmt.Fprintf(&sb, " phase=%s", p)
	}
	if i.HasRecord {
		fmt.Fprintf(&sb, " record=%s", i.State)
	} else {
		sb.WriteString(" record=deleted")
	}
	sb.WriteString(": " + i.Reason)
	return sb.String()
}
