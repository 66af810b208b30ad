package taskboard

import "time"

// ReconcilePass is one periodic reconciliation pass: one status-map read bounded by
// Timing.StatusReadTimeout for every record running at the pass start, applied with the
// generation captured then and observedAt = the pass start. busy/retry marks the record
// running; malformed marks it uncertain; idle and absent feed the stop rule; a read error or
// timeout marks every captured record uncertain. No failed, absent or malformed reading ever
// commits a terminal state directly. Without a status map the pass does nothing.
type ReconcilePass struct {
	core
	caps     Caps
	t        Timing
	start    time.Time
	targets  []trackKey
	readCall CallID
	readT    TimerID
}

var _ Machine = (*ReconcilePass)(nil)

// NewReconcilePass returns one reconciliation pass.
func NewReconcilePass(caps Caps) *ReconcilePass {
	m := &ReconcilePass{core: newCore(nil), caps: caps}
	m.replied = true
	return m
}

// Start captures the running records and emits the read.
func (m *ReconcilePass) Start(b *Board) []Command {
	m.t = b.Timing()
	m.start = b.Now()
	if !m.caps.StatusMap {
		m.done = true
		return nil
	}
	for _, r := range b.AllRecords() {
		if r.State == StateRunning {
			m.targets = append(m.targets, trackKey{r.TaskID, r.Generation})
		}
	}
	if len(m.targets) == 0 {
		m.done = true
		return nil
	}
	var st Command
	m.readCall, m.readT, st = m.deadlineRead(b, m.t.StatusReadTimeout)
	return []Command{st, ReadStatus{Call: m.readCall}}
}

// Step consumes one event.
func (m *ReconcilePass) Step(b *Board, ev Event) []Command {
	return m.step(b, ev, func(TimerID) []Command {
		out := m.cancel(m.readCall)
		m.uncertainAll(b, "live status lookup timed out after "+ms(m.t.StatusReadTimeout))
		return out
	}, func(ev Event) []Command {
		e, ok := ev.(StatusReply)
		if !ok {
			return nil
		}
		out := m.stop(m.readT)
		if e.Err != nil {
			m.uncertainAll(b, e.Err.Error())
			return out
		}
		for _, k := range m.targets {
			r, ok := b.Get(k.id)
			if !ok || r.Generation != k.gen || r.State != StateRunning {
				continue
			}
			switch liveOf(e.Snapshot, k.id) {
			case LiveBusy, LiveRetry:
				b.MarkRunningFromLive(k.id, k.gen, m.start)
			case LiveMalformed:
				b.MarkStatusUncertain(k.id, k.gen, MsgMalformedEntry)
			case LiveIdle:
				if r.LastLiveBusyAt.Before(m.start) {
					b.StopCandidate(k.id, k.gen, m.start, MsgIdleUnconfirmed)
				}
			case LiveAbsent:
				if r.LastLiveBusyAt.Before(m.start) {
					b.StopCandidate(k.id, k.gen, m.start, MsgAbsentUnconfirmed)
				}
			}
		}
		return out
	})
}

func (m *ReconcilePass) uncertainAll(b *Board, msg string) {
	for _, k := range m.targets {
		b.MarkStatusUncertain(k.id, k.gen, msg)
	}
}

// Evidence is the terminal-evidence read after a child's idle: up to
// Timing.EvidenceAttempts transcript reads, Timing.StopGrace apart, each bounded by
// Timing.EvidenceReadTimeout. A finished assistant entry newer than the run's baseline
// commits completed with its text; an error entry commits error. When every attempt fails
// the record is marked uncertain ("observation unavailable"). If the run is still running
// afterwards, the idle observation feeds the stop rule.
type Evidence struct {
	core
	id       string
	gen      uint64
	caps     Caps
	t        Timing
	attempts int
	readCall CallID
	readT    TimerID
	retry    TimerID
}

var _ Machine = (*Evidence)(nil)

// NewEvidence returns the evidence machine for generation gen of taskID.
func NewEvidence(taskID string, gen uint64, caps Caps) *Evidence {
	m := &Evidence{core: newCore(nil), id: taskID, gen: gen, caps: caps}
	m.replied = true
	return m
}

// Start emits the first read.
func (m *Evidence) Start(b *Board) []Command {
	m.t = b.Timing()
	return m.read(b)
}

func (m *Evidence) read(b *Board) []Command {
	r, ok := b.Get(m.id)
	if !ok || r.Generation != m.gen || r.State != StateRunning {
		return nil
	}
	m.attempts++
	var st Command
	m.readCall, m.readT, st = m.deadlineRead(b, m.t.EvidenceReadTimeout)
	return []Command{st, ReadMessages{Call: m.readCall, SessionID: m.id, Limit: m.t.ResultHistory}}
}

func (m *Evidence) failed(b *Board) []Command {
	if m.attempts < m.t.EvidenceAttempts {
		t, st := m.timer(b, m.t.StopGrace)
		m.retry = t
		return []Command{st}
	}
	b.MarkStatusUncertain(m.id, m.gen, "observation unavailable")
	m.stopRule(b)
	return nil
}

func (m *Evidence) stopRule(b *Board) {
	if r, ok := b.Get(m.id); ok && r.Generation == m.gen && r.State == StateRunning {
		b.StopCandidate(m.id, m.gen, b.Now(), MsgIdleUnconfirmed)
	}
}

// Step consumes one event.
func (m *Evidence) Step(b *Board, ev Event) []Command {
	return m.step(b, ev, func(t TimerID) []Command {
		if t == m.retry {
			return m.read(b)
		}
		return append(m.cancel(m.readCall), m.failed(b)...)
	}, func(ev Event) []Command {
		e, ok := ev.(MessagesReply)
		if !ok {
			return nil
		}
		out := m.stop(m.readT)
		if e.Err != nil {
			return append(out, m.failed(b)...)
		}
		r, ok := b.Get(m.id)
		if !ok || r.Generation != m.gen {
			return out
		}
		if st, text, ok := terminalEvidence(e.Entries, r.BaselineMessageID); ok {
			b.CommitTerminal(Commit{TaskID: m.id, Generation: m.gen, State: st, Summary: text, ObservedAt: b.Now()})
			return out
		}
		m.stopRule(b)
		return out
	})
}
