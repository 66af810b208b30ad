package taskboard

import "time"

// reconcilePass is one periodic reconciliation pass: one status-map read bounded by
// Timing.StatusReadTimeout for every record running at the pass start, applied with the
// generation captured then and observedAt = the pass start. busy/retry marks the record
// running; malformed marks it uncertain; idle and absent feed the stop rule; a read error or
// timeout marks every captured record uncertain. No failed, absent or malformed reading ever
// commits a terminal state directly. Without a status map the pass does nothing.
type reconcilePass struct {
	core
	caps     caps
	t        Timing
	start    time.Time
	targets  []trackKey
	readCall callNo
	readT    timerID
}

var _ machine = (*reconcilePass)(nil)

// newReconcilePass returns one reconciliation pass.
func newReconcilePass(caps caps) *reconcilePass {
	m := &reconcilePass{core: newCore(nil), caps: caps}
	m.replied = true
	return m
}

// Start captures the running records and emits the read.
func (m *reconcilePass) Start(b *Board) []command {
	m.t = b.timing()
	m.start = b.now()
	if !m.caps.StatusMap {
		m.done = true
		return nil
	}
	for _, r := range b.allRecords() {
		if r.State == StateRunning {
			m.targets = append(m.targets, trackKey{r.TaskID, r.Generation})
		}
	}
	if len(m.targets) == 0 {
		m.done = true
		return nil
	}
	var st command
	m.readCall, m.readT, st = m.deadlineRead(b, m.t.StatusReadTimeout)
	return []command{st, readStatus{Call: m.readCall}}
}

// Step consumes one event.
func (m *reconcilePass) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(timerID) []command {
		out := m.cancel(m.readCall)
		m.uncertainAll(b, "live status lookup timed out after "+ms(m.t.StatusReadTimeout))
		return out
	}, func(ev event) []command {
		e, ok := ev.(statusReply)
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
				b.markRunningFromLive(k.id, k.gen, m.start)
			case LiveMalformed:
				b.markStatusUncertain(k.id, k.gen, msgMalformedEntry)
			case LiveIdle:
				if r.LastLiveBusyAt.Before(m.start) {
					b.stopCandidate(k.id, k.gen, m.start, msgIdleUnconfirmed)
				}
			case LiveAbsent:
				if r.LastLiveBusyAt.Before(m.start) {
					b.stopCandidate(k.id, k.gen, m.start, msgAbsentUnconfirmed)
				}
			}
		}
		return out
	})
}

func (m *reconcilePass) uncertainAll(b *Board, msg string) {
	for _, k := range m.targets {
		b.markStatusUncertain(k.id, k.gen, msg)
	}
}

// evidence is the terminal-evidence read after a child's idle: up to
// Timing.EvidenceAttempts transcript reads, Timing.StopGrace apart, each bounded by
// Timing.EvidenceReadTimeout. A finished assistant entry newer than the run's baseline
// commits completed with its text; an error entry commits error. When every attempt fails
// the record is marked uncertain ("observation unavailable"). If the run is still running
// afterwards, the idle observation feeds the stop rule.
type evidence struct {
	core
	id       string
	gen      uint64
	caps     caps
	t        Timing
	attempts int
	readCall callNo
	readT    timerID
	retry    timerID
}

var _ machine = (*evidence)(nil)

// newEvidence returns the evidence machine for generation gen of taskID.
func newEvidence(taskID string, gen uint64, caps caps) *evidence {
	m := &evidence{core: newCore(nil), id: taskID, gen: gen, caps: caps}
	m.replied = true
	return m
}

// Start emits the first read.
func (m *evidence) Start(b *Board) []command {
	m.t = b.timing()
	return m.read(b)
}

func (m *evidence) read(b *Board) []command {
	r, ok := b.Get(m.id)
	if !ok || r.Generation != m.gen || r.State != StateRunning {
		return nil
	}
	m.attempts++
	var st command
	m.readCall, m.readT, st = m.deadlineRead(b, m.t.EvidenceReadTimeout)
	return []command{st, readMessages{Call: m.readCall, SessionID: m.id, Limit: m.t.ResultHistory}}
}

func (m *evidence) failed(b *Board) []command {
	if m.attempts < m.t.EvidenceAttempts {
		t, st := m.timer(b, m.t.StopGrace)
		m.retry = t
		return []command{st}
	}
	b.markStatusUncertain(m.id, m.gen, "observation unavailable")
	m.stopRule(b)
	return nil
}

func (m *evidence) stopRule(b *Board) {
	if r, ok := b.Get(m.id); ok && r.Generation == m.gen && r.State == StateRunning {
		b.stopCandidate(m.id, m.gen, b.now(), msgIdleUnconfirmed)
	}
}

// Step consumes one event.
func (m *evidence) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(t timerID) []command {
		if t == m.retry {
			return m.read(b)
		}
		return append(m.cancel(m.readCall), m.failed(b)...)
	}, func(ev event) []command {
		e, ok := ev.(messagesReply)
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
			b.commitTerminal(commitInput{TaskID: m.id, Generation: m.gen, State: st, Summary: text, ObservedAt: b.now()})
			return out
		}
		m.stopRule(b)
		return out
	})
}
