package taskboard

import (
	"fmt"
	"log/slog"
	"time"
)

// compensationState is where a [compensation] machine ended.
type compensationState string

// Compensation outcomes.
const (
	compensationPending     compensationState = "pending"
	compensationVerified    compensationState = "verified"    // abort confirmed, live read quiescent, lease released
	compensationUnconfirmed compensationState = "unconfirmed" // lease kept for the life of the board
	compensationLost        compensationState = "ownership_lost"
)

func (s compensationState) String() string { return string(s) }

// compensation aborts an orphaned child: a revive whose admission was accepted
// after the record was deleted hands its relaunch lease, token unchanged, to this machine.
// It owns the child while the lease is valid and the record is missing. It sends exactly
// one guarded abort with no deadline, then one fresh live read bounded by
// Timing.CompensationReadTimeout. Only a confirmed abort followed by an idle or absent
// reading releases the lease; anything else keeps it live for the life of the board, so
// the ID stays excluded ("compensation unconfirmed"). It never registers, notifies, clears a
// tombstone or touches another token or task ID.
type compensation struct {
	core
	lease leaseGrant
	caps  caps
	t     Timing

	state      compensationState
	abortCall  callNo
	abortStart time.Time
	readCall   callNo
	readTimer  timerID
}

var _ machine = (*compensation)(nil)

// newCompensation returns a compensation machine for the relaunch lease l, which must be
// held by ownerCompensation.
func newCompensation(l leaseGrant, caps caps) *compensation {
	c := &compensation{core: newCore(nil), lease: l, caps: caps, state: compensationPending}
	c.replied = true // nobody waits for it
	return c
}

// State returns where the machine is: pending, verified, unconfirmed or ownership_lost.
func (m *compensation) State() compensationState { return m.state }

// Lease returns the lease the machine owns.
func (m *compensation) Lease() leaseGrant { return m.lease }

func (m *compensation) owned(b *Board) bool {
	if !b.validate(m.lease) {
		return false
	}
	_, exists := b.Get(m.lease.TaskID)
	return !exists
}

func (m *compensation) lost() []command {
	m.state = compensationLost
	return []command{m.log(slog.LevelWarn, "compensation ownership lost", slog.String("task_id", m.lease.TaskID))}
}

func (m *compensation) unconfirmed(why string) []command {
	m.state = compensationUnconfirmed
	return []command{m.log(slog.LevelError, "[task-revive] compensation unconfirmed",
		slog.String("task_id", m.lease.TaskID), slog.String("reason", why), slog.String("lease", m.lease.String()))}
}

// Start checks ownership and emits the one guarded abort.
func (m *compensation) Start(b *Board) []command {
	m.t = b.timing()
	if !m.owned(b) {
		out := m.lost()
		m.done = true
		return out
	}
	m.abortCall = m.call(true)
	return []command{abort{Call: m.abortCall, SessionID: m.lease.TaskID}}
}

// Step consumes one event.
func (m *compensation) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(t timerID) []command {
		if t != m.readTimer || m.state != compensationPending {
			return nil
		}
		out := m.cancel(m.readCall)
		return append(out, m.unconfirmed("live read timed out after "+ms(m.t.CompensationReadTimeout))...)
	}, func(ev event) []command { return m.handle(b, ev) })
}

func (m *compensation) handle(b *Board, ev event) []command {
	if m.state != compensationPending {
		if d, ok := ev.(dispatch); ok {
			return m.withdraw(d.Call)
		}
		return nil
	}
	switch e := ev.(type) {
	case dispatch:
		if e.Call != m.abortCall {
			return nil
		}
		if b.isDisposed() || !m.owned(b) {
			return append(m.withdraw(e.Call), m.lost()...)
		}
		m.abortStart = b.now()
		b.noteDispatch(m.lease)
		return m.proceed(e.Call)
	case abortReply:
		if !m.owned(b) {
			return m.lost()
		}
		if e.Err != nil {
			return m.unconfirmed("abort failed: " + e.Err.Error())
		}
		if !e.Confirmed {
			return m.unconfirmed("abort was not confirmed")
		}
		var st command
		m.readCall, m.readTimer, st = m.deadlineRead(b, m.t.CompensationReadTimeout)
		id := m.lease.TaskID
		switch {
		case m.caps.StatusMap:
			return []command{st, readStatus{Call: m.readCall}}
		case m.caps.IdleWaiter:
			return []command{st, waitIdle{Call: m.readCall, SessionID: id}}
		}
		return []command{st, readSession{Call: m.readCall, SessionID: id}}
	case statusReply, idleReply, sessionReply:
		out := m.stop(m.readTimer)
		if !m.owned(b) {
			return append(out, m.lost()...)
		}
		quiet, why := m.quiescent(ev)
		if !quiet {
			return append(out, m.unconfirmed(why)...)
		}
		b.release(m.lease)
		m.state = compensationVerified
		return append(out, m.log(slog.LevelInfo, "[task-revive] compensation quiescence verified", slog.String("task_id", m.lease.TaskID)))
	}
	return nil
}

func (m *compensation) quiescent(ev event) (bool, string) {
	switch e := ev.(type) {
	case statusReply:
		if e.Err != nil {
			return false, "status read failed: " + e.Err.Error()
		}
		live := liveOf(e.Snapshot, m.lease.TaskID)
		return live == LiveIdle || live == LiveAbsent, "live status: " + string(live)
	case idleReply:
		if e.Err != nil {
			return false, "idle wait failed: " + e.Err.Error()
		}
		return true, ""
	case sessionReply:
		if e.Err != nil {
			return false, "session read failed: " + e.Err.Error()
		}
		if !e.Info.IdleAt.IsZero() && !e.Info.IdleAt.Before(m.abortStart) {
			return true, ""
		}
		return false, fmt.Sprintf("session not idle since the abort (outcome %q)", e.Info.Outcome)
	}
	return false, "unexpected reply"
}
