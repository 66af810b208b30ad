package taskboard

import (
	"time"
)

// EventKind says what a [HostEvent] reports.
type EventKind string

// Host event kinds.
const (
	EventBusy        EventKind = "busy"
	EventRetry       EventKind = "retry"
	EventIdle        EventKind = "idle"
	EventError       EventKind = "error"
	EventDeleted     EventKind = "deleted"
	EventParentIdle  EventKind = "parent_idle"
	EventUserMessage EventKind = "user_message"
	EventActivity    EventKind = "activity"
)

// HostEvent is one host event.
type HostEvent struct {
	Kind             EventKind
	SessionID        string
	Generation       *uint64   // nil: none given
	At               time.Time // zero: now
	Message          string    // EventError: the error text
	Deferrable       bool      // EventError: a failover-class error, kept until the session stops
	FallbackTeardown bool      // EventDeleted: a fallback model's teardown, not a real deletion
	MessageID, Role  string    // EventUserMessage: the chat message, for the wait-for-user latch
	Parts            []Part    // EventUserMessage
}

// reconcileState schedules the periodic reconciliation passes.
type reconcileState struct {
	stop     func() bool
	inFlight bool
}

// Observe applies one host event. IdleDelay after a parent idle it acknowledges what the
// last [Driver.View] showed; after a child idle it reads the transcript for the completion
// rule (a session idle without an answer ends stopped). A relaunched task's idle and
// error events without their Generation are ignored.
func (d *Driver) Observe(ev HostEvent) {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return
	}
	if d.sh == nil {
		d.observe(ev)
		return
	}
	scope := d.eventScope(ev)
	if len(scope) == 0 {
		return // a shared board that never tracked the session: nothing to apply
	}
	d.step(nil, scope, func() error {
		d.observe(ev)
		return nil
	})
}

// observe applies ev to the board (lock held, inside a step).
func (d *Driver) observe(ev HostEvent) {
	b := d.b
	at := ev.At
	if at.IsZero() {
		at = b.now()
	}
	switch ev.Kind {
	case EventBusy, EventRetry:
		b.observeBusy(ev.SessionID, ev.Generation, at)
	case EventError:
		b.observeError(ev.SessionID, ev.Generation, ev.Message, ev.Deferrable, at)
	case EventActivity:
		b.noteActivity(ev.SessionID, at)
	case EventUserMessage:
		b.clearForMessage(userMessage{SessionID: ev.SessionID, ID: ev.MessageID, Role: ev.Role, Parts: ev.Parts})
	case EventDeleted:
		affected := map[string]bool{ev.SessionID: true}
		for _, c := range b.Records(ev.SessionID) {
			affected[c.TaskID] = true
		}
		if b.hostDeleted(deletionEvent{SessionID: ev.SessionID, Generation: ev.Generation, FallbackTeardown: ev.FallbackTeardown}) {
			d.forget(affected)
		}
	case EventIdle:
		r, ok := b.fence(ev.SessionID, ev.Generation, false, at)
		if ok && r.State == StateRunning {
			id, gen := r.TaskID, r.Generation
			d.after(d.b.timing().IdleDelay, func() {
				r, ok := d.b.Get(id)
				if ok && r.Generation == gen && r.State == StateRunning && !r.LastLiveBusyAt.After(at) && !d.evidenceRunning(id) {
					d.start(newEvidence(id, gen, d.caps))
				}
			})
		}
	case EventParentIdle:
		parent := ev.SessionID
		d.after(d.b.timing().IdleDelay, func() {
			if shown := d.b.shown[parent]; len(shown) > 0 {
				d.b.acknowledgeShown(parent, shown)
				delete(d.b.shown, parent)
			}
		})
	}
	d.drain()
	d.armReconcile() // a withdrawal may have made a record running again
}

// evidenceRunning reports whether an evidence read for taskID is in flight (lock held):
// one evidence machine per record at a time.
func (d *Driver) evidenceRunning(taskID string) bool {
	for r := range d.runs {
		if e, ok := r.m.(*evidence); ok && e.id == taskID {
			return true
		}
	}
	return false
}

// after runs f under the lock after dur, unless the driver closes first. The timer is
// owned by a tiny machine so Close stops it like any other.
func (d *Driver) after(dur time.Duration, f func()) {
	d.start(&delayed{core: newCore(nil), dur: dur, f: f})
}

// delayed is a one-timer machine that runs a board function when its timer fires.
type delayed struct {
	core
	dur time.Duration
	f   func()
	t   timerID
}

func (m *delayed) Start(b *Board) []command {
	m.replied = true
	t, st := m.timer(b, m.dur)
	m.t = t
	return []command{st}
}

func (m *delayed) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(timerID) []command { m.f(); return nil }, func(event) []command { return nil })
}

// armReconcile schedules the next reconciliation tick when the host has a status map and
// a record is running (lock held).
func (d *Driver) armReconcile() {
	if d.cfg.NoReconciliation || d.h.Status == nil || d.closed {
		return
	}
	if d.reconcile == nil {
		d.reconcile = &reconcileState{}
	}
	if d.reconcile.stop != nil {
		return
	}
	d.reconcile.stop = d.cfg.timers.AfterFunc(d.b.timing().ReconcilePeriod, d.reconcileTick)
}

func (d *Driver) reconcileTick() {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return
	}
	d.reconcile.stop = nil
	if d.sh != nil {
		d.reconcileShards()
		d.armReconcile()
		return
	}
	running := false
	for _, r := range d.b.allRecords() {
		if r.State == StateRunning {
			running = true
			break
		}
	}
	if !running {
		return
	}
	if !d.reconcile.inFlight {
		d.reconcile.inFlight = true
		pass := d.start(newReconcilePass(d.caps))
		if pass.m.Done() {
			d.reconcile.inFlight = false
		}
	}
	d.armReconcile()
}

func (d *Driver) stopReconcile() {
	if d.reconcile != nil && d.reconcile.stop != nil {
		d.reconcile.stop()
		d.reconcile.stop = nil
	}
}
