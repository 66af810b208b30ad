package taskboard

import "time"

// statusM is the task_status machine: one status-map read bounded by
// Timing.StatusReadTimeout on v1, none on v2. It never changes the board.
type statusM struct {
	core
	caller Caller
	args   statusArgs
	caps   caps
	t      Timing

	rec       Record
	readCall  callNo
	readTimer timerID

	res StatusResult
	err *ToolError
}

var _ machine = (*statusM)(nil)

// newStatus returns a task_status machine for caller c.
func newStatus(c Caller, a statusArgs, caps caps) *statusM {
	return &statusM{core: newCore(nil), caller: c, args: a, caps: caps}
}

// Outcome returns the tool result and, for a refusal, the *ToolError.
func (m *statusM) Outcome() (StatusResult, error) {
	if m.err != nil {
		return m.res, m.err
	}
	return m.res, nil
}

// Start resolves the reference and emits the status read (v1).
func (m *statusM) Start(b *Board) []command {
	m.t = b.timing()
	if err := guardCaller(b, toolStatus, m.caller, false); err != nil {
		m.err, m.replied = err, true
		return nil
	}
	if err := guardRef(toolStatus, m.args.Ref); err != nil {
		m.err, m.replied = err, true
		return nil
	}
	r, ok := b.Resolve(m.caller.SessionID, m.args.Ref)
	if !ok {
		m.err, m.replied = toolErr(ErrUnknownTask, "Unknown task ID or alias: "+m.args.Ref), true
		return nil
	}
	m.rec = r
	if !m.caps.StatusMap {
		m.answer(b, "", "live status unavailable")
		return nil
	}
	var st command
	m.readCall, m.readTimer, st = m.deadlineRead(b, m.t.StatusReadTimeout)
	return []command{st, readStatus{Call: m.readCall}}
}

// Step consumes one event.
func (m *statusM) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(timerID) []command {
		out := m.cancel(m.readCall)
		m.answer(b, "", "live status lookup timed out after "+ms(m.t.StatusReadTimeout))
		return out
	}, func(ev event) []command {
		e, ok := ev.(statusReply)
		if !ok {
			return nil
		}
		out := m.stop(m.readTimer)
		if e.Err != nil {
			m.answer(b, "", e.Err.Error())
			return out
		}
		switch live := liveOf(e.Snapshot, m.rec.TaskID); live {
		case LiveBusy, LiveRetry, LiveIdle:
			m.answer(b, live, "")
		case LiveAbsent:
			m.answer(b, "", "no live status entry for session")
		default:
			m.answer(b, "", "malformed live status entry for session")
		}
		return out
	})
}

func (m *statusM) answer(b *Board, live LiveStatus, statusErr string) {
	if m.replied {
		return
	}
	r := m.rec
	if cur, ok := b.Get(r.TaskID); ok && cur.Generation == r.Generation {
		r = cur // the board state at the time of the answer
	}
	last := r.RunStartedAt
	for _, t := range []time.Time{r.LastActivityAt, r.LastLiveBusyAt} {
		last = maxTime(last, t)
	}
	idle := b.now().Sub(last)
	if idle < 0 {
		idle = 0
	}
	res := StatusResult{TaskID: r.TaskID, Alias: r.Alias, Agent: r.Agent, LastActivityAt: last,
		IdleForSeconds: int64(idle / time.Second)}
	if live != "" {
		res.State, res.Source = string(live), sourceLive
		res.PossiblyStuck = (live == LiveBusy || live == LiveRetry) && idle >= m.t.PossiblyStuckAfter
	} else {
		res.State, res.Source = string(r.EffectiveState())+" (unconfirmed)", sourceBoard
		res.StatusUncertain, res.LastStatusError = true, statusErr
	}
	m.res, m.replied = res, true
}
