package taskboard

import (
	"fmt"
	"log/slog"
)

// NotifyState is where a [Notify] machine is.
type NotifyState string

// Notification states.
const (
	NotifyPending   NotifyState = "pending"
	NotifyParked    NotifyState = "parked"    // another lease is live; waits for its release
	NotifySent      NotifyState = "sent"      // the parent accepted the notification
	NotifyFailed    NotifyState = "failed"    // every attempt failed
	NotifyDiscarded NotifyState = "discarded" // the revision was withdrawn or the run replaced
)

func (s NotifyState) String() string { return string(s) }

// Notify tells a parent that a run finished. It takes the terminal-notification lease
// fenced on the notice's terminal revision; while another lease is live it parks and
// retries on that task's LeaseReleased notice (delivered as a [NoticeEvent]). It sends one
// guarded synthetic prompt with a deadline; the lease is kept until the send settles, even
// past the deadline. A failure releases the lease and retries after Timing.NotifyRetryDelay,
// up to Timing.NotifyAttempts attempts.
type Notify struct {
	core
	parentID string
	n        Notice
	caps     Caps
	t        Timing

	state      NotifyState
	attempts   int
	lease      Lease
	held       bool
	sendCall   CallID
	sendTimer  TimerID
	retryTimer TimerID
	late       bool
}

var _ Machine = (*Notify)(nil)

// NewNotify returns a notification machine for a Terminal notice, sent to parentID.
func NewNotify(parentID string, n Notice, caps Caps) *Notify {
	m := &Notify{core: newCore(nil), parentID: parentID, n: n, caps: caps, state: NotifyPending}
	m.replied = true
	return m
}

// State returns the machine's state.
func (m *Notify) State() NotifyState { return m.state }

// Attempts returns how many sends were dispatched or attempted.
func (m *Notify) Attempts() int { return m.attempts }

// NotifyText is the text of a parent notification.
func NotifyText(alias, id string, st State) string {
	return fmt.Sprintf("Background task %s (%s) finished: %s. Use task_result with task_id: %q to read it.", alias, id, st, id)
}

// Start tries to take the lease and send.
func (m *Notify) Start(b *Board) []Command {
	m.t = b.Timing()
	return m.try(b)
}

func (m *Notify) current(b *Board) (Record, bool) {
	r, ok := b.Get(m.n.TaskID)
	if !ok || r.Generation != m.n.Generation || r.TerminalRevision != m.n.TerminalRevision {
		return r, false
	}
	es := r.EffectiveState()
	return r, es == StateCompleted || es == StateError
}

func (m *Notify) try(b *Board) []Command {
	m.hold = false
	r, ok := m.current(b)
	if !ok {
		m.state = NotifyDiscarded
		return nil
	}
	rev := m.n.TerminalRevision
	l, ok := b.Acquire(LeaseNotification, m.n.TaskID, m.n.Generation, &rev)
	if !ok {
		if _, live := b.liveLease(m.n.TaskID); live {
			m.state, m.hold = NotifyParked, true
			return nil
		}
		m.state = NotifyDiscarded
		return nil
	}
	m.lease, m.held, m.state = l, true, NotifyPending
	m.attempts++
	m.late = false
	m.sendCall = m.call(true)
	return []Command{SendPrompt{Call: m.sendCall, SessionID: m.parentID,
		Prompt: Prompt{Text: NotifyText(r.Alias, r.TaskID, r.EffectiveState()), Synthetic: true}}}
}

// Step consumes one event.
func (m *Notify) Step(b *Board, ev Event) []Command {
	return m.step(b, ev, func(t TimerID) []Command {
		switch t {
		case m.sendTimer:
			m.late = true // stop waiting; the lease stays until the send settles
		case m.retryTimer:
			return m.try(b)
		}
		return nil
	}, func(ev Event) []Command { return m.handle(b, ev) })
}

func (m *Notify) handle(b *Board, ev Event) []Command {
	switch e := ev.(type) {
	case NoticeEvent:
		if m.state == NotifyParked && e.Notice.Kind == NoticeLeaseReleased && e.Notice.TaskID == m.n.TaskID {
			return m.try(b)
		}
	case Dispatch:
		if e.Call != m.sendCall {
			return nil
		}
		if b.Disposed() || !b.Validate(m.lease) {
			b.Release(m.lease)
			m.held = false
			m.state = NotifyDiscarded
			return m.withdraw(e.Call)
		}
		out := m.proceed(e.Call)
		t, st := m.timer(b, m.t.NotifyTimeout)
		m.sendTimer = t
		m.guard[m.sendCall] = t
		return append(out, st)
	case PromptReply:
		out := m.stop(m.sendTimer)
		b.Release(m.lease)
		m.held = false
		if e.Err == nil {
			m.state = NotifySent
			return out
		}
		if m.attempts < m.t.NotifyAttempts {
			t, st := m.timer(b, m.t.NotifyRetryDelay)
			m.retryTimer = t
			m.state = NotifyPending
			return append(out, st)
		}
		m.state = NotifyFailed
		return append(out, m.log(slog.LevelWarn, "[task-notify] parent notification failed",
			slog.String("task_id", m.n.TaskID), slog.String("error", e.Err.Error())))
	}
	return nil
}
