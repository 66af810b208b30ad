package taskboard

import (
	"fmt"
	"log/slog"
)

// notifyState is where a [notifyM] machine is.
type notifyState string

// Notification states.
const (
	notifyPending   notifyState = "pending"
	notifyParked    notifyState = "parked"    // another lease is live; waits for its release
	notifySent      notifyState = "sent"      // the parent accepted the notification
	notifyFailed    notifyState = "failed"    // every attempt failed
	notifyDiscarded notifyState = "discarded" // the revision was withdrawn or the run replaced
)

func (s notifyState) String() string { return string(s) }

// notifyM tells a parent that a run finished. It takes the terminal-notification lease
// fenced on the notice's terminal revision; while another lease is live it parks and
// retries on that task's LeaseReleased notice (delivered as a [noticeEvent]). It sends one
// guarded synthetic prompt with a deadline; the lease is kept until the send settles, even
// past the deadline. A failure releases the lease and retries after Timing.NotifyRetryDelay,
// up to Timing.NotifyAttempts attempts.
type notifyM struct {
	core
	parentID string
	n        Notice
	caps     caps
	t        Timing

	state      notifyState
	attempts   int
	lease      leaseGrant
	held       bool
	sendCall   callNo
	sendTimer  timerID
	retryTimer timerID
	late       bool
}

var _ machine = (*notifyM)(nil)

// newNotify returns a notification machine for a Terminal notice, sent to parentID.
func newNotify(parentID string, n Notice, caps caps) *notifyM {
	m := &notifyM{core: newCore(nil), parentID: parentID, n: n, caps: caps, state: notifyPending}
	m.replied = true
	return m
}

// State returns the machine's state.
func (m *notifyM) State() notifyState { return m.state }

// Attempts returns how many sends were dispatched or attempted.
func (m *notifyM) Attempts() int { return m.attempts }

// notifyText is the text of a parent notification.
func notifyText(alias, id string, st State) string {
	return fmt.Sprintf("Background task %s (%s) finished: %s. Use task_result with task_id: %q to read it.", alias, id, st, id)
}

// Start tries to take the lease and send.
func (m *notifyM) Start(b *Board) []command {
	m.t = b.timing()
	return m.try(b)
}

func (m *notifyM) current(b *Board) (Record, bool) {
	r, ok := b.Get(m.n.TaskID)
	if !ok || r.Generation != m.n.Generation || r.TerminalRevision != m.n.TerminalRevision {
		return r, false
	}
	es := r.EffectiveState()
	return r, es == StateCompleted || es == StateError
}

func (m *notifyM) try(b *Board) []command {
	m.hold = false
	r, ok := m.current(b)
	if !ok {
		m.state = notifyDiscarded
		return nil
	}
	rev := m.n.TerminalRevision
	l, ok := b.acquire(leaseNotification, m.n.TaskID, m.n.Generation, &rev)
	if !ok {
		if _, live := b.liveLease(m.n.TaskID); live {
			m.state, m.hold = notifyParked, true
			if m.caps.shared { // the release may happen in another process: poll
				t, st := m.timer(b, m.t.NotifyRetryDelay)
				m.retryTimer = t
				return []command{st}
			}
			return nil
		}
		m.state = notifyDiscarded
		return nil
	}
	m.lease, m.held, m.state = l, true, notifyPending
	m.attempts++
	m.late = false
	m.sendCall = m.call(true)
	return []command{sendPrompt{Call: m.sendCall, SessionID: m.parentID,
		Prompt: Message{Text: notifyText(r.Alias, r.TaskID, r.EffectiveState()), Synthetic: true}}}
}

// Step consumes one event.
func (m *notifyM) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(t timerID) []command {
		switch t {
		case m.sendTimer:
			m.late = true // stop waiting; the lease stays until the send settles
		case m.retryTimer:
			return m.try(b)
		}
		return nil
	}, func(ev event) []command { return m.handle(b, ev) })
}

func (m *notifyM) handle(b *Board, ev event) []command {
	switch e := ev.(type) {
	case noticeEvent:
		if m.state == notifyParked && e.Notice.Kind == noticeLeaseReleased && e.Notice.TaskID == m.n.TaskID {
			return m.try(b)
		}
	case dispatch:
		if e.Call != m.sendCall {
			return nil
		}
		if b.isDisposed() || !b.validate(m.lease) {
			b.release(m.lease)
			m.held = false
			m.state = notifyDiscarded
			return m.withdraw(e.Call)
		}
		b.noteDispatch(m.lease)
		out := m.proceed(e.Call)
		t, st := m.timer(b, m.t.NotifyTimeout)
		m.sendTimer = t
		m.guard[m.sendCall] = t
		return append(out, st)
	case promptReply:
		out := m.stop(m.sendTimer)
		b.release(m.lease)
		m.held = false
		if e.Err == nil {
			m.state = notifySent
			return out
		}
		if m.attempts < m.t.NotifyAttempts {
			t, st := m.timer(b, m.t.NotifyRetryDelay)
			m.retryTimer = t
			m.state = notifyPending
			return append(out, st)
		}
		m.state = notifyFailed
		return append(out, m.log(slog.LevelWarn, "[task-notify] parent notification failed",
			slog.String("task_id", m.n.TaskID), slog.String("error", e.Err.Error())))
	}
	return nil
}
