package taskboard

import (
	"fmt"
	"log/slog"
	"time"
)

// CompensationState is where a [Compensation] machine ended.
type CompensationState string

// Compensation outcomes.
const (
	CompensationPending     CompensationState = "pending"
	CompensationVerified    CompensationState = "verified"    // abort confirmed, live read quiescent, lease released
	CompensationUnconfirmed CompensationState = "unconfirmed" // lease kept for the life of the board
	CompensationLost        CompensationState = "ownership_lost"
)

func (s CompensationState) String() string { return string(s) }

// Compensation aborts an orphaned child: a revive whose admission was accepted
// after the record was deleted hands its relaunch lease, token unchanged, to this machine.
// It owns the child while the lease is valid and the record is missing. It sends exactly
// one guarded abort with no deadline, then one fresh live read bounded by
// Timing.CompensationReadTimeout. Only a confirmed abort followed by an idle or absent
// reading releases the lease; anything else keeps it live for the life of the board, so
// the ID stays excluded ("compensation unconfirmed"). It never registers, notifies, clears a
// tombstone or touches another token or task ID.
type Compensation struct {
	core
	lease Lease
	caps  Caps
	t     Timing

	state      CompensationState
	abortCall  CallID
	abortStart time.Time
	readCall   CallID
	readTimer  TimerID
}

var _ Machine = (*Compensation)(nil)

// NewCompensation returns a compensation machine for the relaunch lease l, which must be
// held by OwnerCompensation.
func NewCompensation(l Lease, caps Caps) *Compensation {
	c := &Compensation{core: newCore(nil), lease: l, caps: caps, state: CompensationPending}
	c.replied = true // nobody waits for it
	return c
}

// State returns where the machine is: pending, verified, unconfirmed or ownership_lost.
func (m *Compensation) State() CompensationState { return m.state }

// Lease returns the lease the machine owns.
func (m *Compensation) Lease() Lease { return m.lease }

func (m *Compensation) owned(b *Board) bool {
	if !b.Validate(m.lease) {
		return false
	}
	_, exists := b.Get(m.lease.TaskID)
	return !exists
}

func (m *Compensation) lost() []Command {
	m.state = CompensationLost
	return []Command{m.log(slog.LevelWarn, "compensation ownership lost", slog.String("task_id", m.lease.TaskID))}
}

func (m *Compensation) unconfirmed(why string) []Command {
	m.state = CompensationUnconfirmed
	return []Command{m.log(slog.LevelError, "[task-revive] compensation unconfirmed",
		slog.String("task_id", m.lease.TaskID), slog.String("reason", why), slog.String("lease", m.lease.String()))}
}

// Start checks ownership and emits the one guarded abort.
func (m *Compensation) Start(b *Board) []Command {
	m.t = b.Timing()
	if !m.owned(b) {
		out := m.lost()
		m.done = true
		return out
	}
	m.abortCall = m.call(true)
	return []Command{Abort{Call: m.abortCall, SessionID: m.lease.TaskID}}
}

// Step consumes one event.
func (m *Compensation) Step(b *Board, ev Event) []Command {
	return m.step(b, ev, func(t TimerID) []Command {
		if t != m.readTimer || m.state != CompensationPending {
			return nil
		}
		out := m.cancel(m.readCall)
		return append(out, m.unconfirmed("live read timed out after "+ms(m.t.CompensationReadTimeout))...)
	}, func(ev Event) []Command { return m.handle(b, ev) })
}

func (m *Compensation) handle(b *Board, ev Event) []Command {
	if m.state != CompensationPending {
		if d, ok := ev.(Dispatch); ok {
			return m.withdraw(d.Call)
		}
		return nil
	}
	switch e := ev.(type) {
	case Dispatch:
		if e.Call != m.abortCall {
			return nil
		}
		if b.Disposed() || !m.owned(b) {
			return append(m.withdraw(e.Call), m.lost()...)
		}
		m.abortStart = b.Now()
		return m.proceed(e.Call)
	case AbortReply:
		if !m.owned(b) {
			return m.lost()
		}
		if e.Err != nil {
			return m.unconfirmed("abort failed: " + e.Err.Error())
		}
		if !e.Confirmed {
			return m.unconfirmed("abort was not confirmed")
		}
		var st Command
		m.readCall, m.readTimer, st = m.deadlineRead(b, m.t.CompensationReadTimeout)
		id := m.lease.TaskID
		switch {
		case m.caps.StatusMap:
			return []Command{st, ReadStatus{Call: m.readCall}}
		case m.caps.IdleWaiter:
			return []Command{st, WaitIdle{Call: m.readCall, SessionID: id}}
		}
		return []Command{st, ReadSession{Call: m.readCall, SessionID: id}}
	case StatusReply, IdleReply, SessionReply:
		out := m.stop(m.readTimer)
		if !m.owned(b) {
			return append(out, m.lost()...)
		}
		quiet, why := m.quiescent(ev)
		if !quiet {
			return append(out, m.unconfirmed(why)...)
		}
		b.Release(m.lease)
		m.state = CompensationVerified
		return append(out, m.log(slog.LevelInfo, "[task-revive] compensation quiescence verified", slog.String("task_id", m.lease.TaskID)))
	}
	return nil
}

func (m *Compensation) quiescent(ev Event) (bool, string) {
	switch e := ev.(type) {
	case StatusReply:
		if e.Err != nil {
			return false, "status read failed: " + e.Err.Error()
		}
		live := liveOf(e.Snapshot, m.lease.TaskID)
		return live == LiveIdle || live == LiveAbsent, "live status: " + string(live)
	case IdleReply:
		if e.Err != nil {
			return false, "idle wait failed: " + e.Err.Error()
		}
		return true, ""
	case SessionReply:
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
