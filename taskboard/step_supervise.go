package taskboard

// msgAbortUnconfirmed is the uncertainty of a wall-clock timeout whose abort was not
// confirmed within the grace.
const msgAbortUnconfirmed = "abort was not confirmed"

// supervise is the opt-in wall-clock supervisor of one run. The driver starts one per
// registration when Options.WallClock is set. When the limit elapses with the generation
// still running it claims the deadline, sends one guarded abort (no lease), and after
// Options.AbortGrace finalizes the run as error with TimedOut — uncertain ("abort was not
// confirmed") unless the abort settled confirmed within the grace. A Terminal notice for
// the run before the limit ends the machine early. Late completion, busy or error input
// never replaces the timeout (the board enforces it after the claim).
type supervise struct {
	core
	id        string
	gen       uint64
	limit     timerID
	grace     timerID
	abortCall callNo
	claimed   bool
	confirmed bool
	final     bool
}

var _ machine = (*supervise)(nil)

// newSupervise returns the supervisor of generation gen of taskID.
func newSupervise(taskID string, gen uint64) *supervise {
	m := &supervise{core: newCore(nil), id: taskID, gen: gen}
	m.replied = true
	return m
}

// Claimed reports whether the deadline was claimed; Finalized whether the run was moved to
// error.
func (m *supervise) Claimed() bool   { return m.claimed }
func (m *supervise) Finalized() bool { return m.final }

// Start arms the wall-clock timer (nothing when the supervisor is off).
func (m *supervise) Start(b *Board) []command {
	o := b.options()
	if o.WallClock <= 0 {
		return nil
	}
	t, st := m.timer(b, o.WallClock)
	m.limit = t
	return []command{st}
}

// Step consumes one event.
func (m *supervise) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(t timerID) []command {
		switch t {
		case m.limit:
			if _, ok := b.claimDeadline(m.id, m.gen); !ok {
				return nil
			}
			m.claimed = true
			m.abortCall = m.call(true)
			g, st := m.timer(b, b.options().AbortGrace)
			m.grace = g
			return []command{abort{Call: m.abortCall, SessionID: m.id}, st}
		case m.grace:
			unc := msgAbortUnconfirmed
			if m.confirmed {
				unc = ""
			}
			_, m.final = b.finalizeClaim(m.id, m.gen, unc)
		}
		return nil
	}, func(ev event) []command {
		switch e := ev.(type) {
		case noticeEvent:
			n := e.Notice
			if !m.claimed && n.Kind == noticeTerminal && n.TaskID == m.id && n.Generation == m.gen {
				return m.stop(m.limit)
			}
		case dispatch:
			if e.Call != m.abortCall {
				return nil
			}
			if r, ok := b.Get(m.id); !ok || r.Generation != m.gen || r.State != StateRunning || b.isDisposed() {
				return m.withdraw(e.Call)
			}
			return m.proceed(e.Call)
		case abortReply:
			if _, armed := m.timers[m.grace]; armed && e.Err == nil && e.Confirmed {
				m.confirmed = true
			}
		}
		return nil
	})
}
