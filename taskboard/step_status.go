package taskboard

import "time"

// Status is the task_status machine: one status-map read bounded by
// Timing.StatusReadTimeout on v1, none on v2. It never changes the board.
type Status struct {
	core
	caller Caller
	args   StatusArgs
	caps   Caps
	t      Timing

	rec       Record
	readCall  CallID
	readTimer TimerID

	res StatusResult
	err *ToolError
}

var _ Machine = (*Status)(nil)

// NewStatus returns a task_status machine for caller c.
func NewStatus(c Caller, a StatusArgs, caps Caps) *Status {
	return &Status{core: newCore(nil), caller: c, args: a, caps: caps}
}

// Outcome returns the tool result and, for a refusal, the *ToolError.
func (m *Status) Outcome() (StatusResult, error) {
	if m.err != nil {
		return m.res, m.err
	}
	return m.res, nil
}

// Start resolves the reference and emits the status read (v1).
func (m *Status) Start(b *Board) []Command {
	m.t = b.Timing()
	if err := guardCaller(b, ToolStatus, m.caller, false); err != nil {
		m.err, m.replied = err, true
		return nil
	}
	if err := guardRef(ToolStatus, m.args.Ref); err != nil {
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
	var st Command
	m.readCall, m.readTimer, st = m.deadlineRead(b, m.t.StatusReadTimeout)
	return []Command{st, ReadStatus{Call: m.readCall}}
}

// Step consumes one event.
func (m *Status) Step(b *Board, ev Event) []Command {
	return m.step(b, ev, func(TimerID) []Command {
		out := m.cancel(m.readCall)
		m.answer(b, "", "live status lookup timed out after "+ms(m.t.StatusReadTimeout))
		return out
	}, func(ev Event) []Command {
		e, ok := ev.(StatusReply)
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

func (m *Status) answer(b *Board, live LiveStatus, statusErr string) {
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
	idle := b.Now().Sub(last)
	if idle < 0 {
		idle = 0
	}
	res := StatusResult{TaskID: r.TaskID, Alias: r.Alias, Agent: r.Agent, LastActivityAt: last,
		IdleForSeconds: int64(idle / time.Second)}
	if live != "" {
		res.State, res.Source = string(live), SourceLive
		res.PossiblyStuck = (live == LiveBusy || live == LiveRetry) && idle >= m.t.PossiblyStuckAfter
	} else {
		res.State, res.Source = string(r.EffectiveState())+" (unconfirmed)", SourceBoard
		res.StatusUncertain, res.LastStatusError = true, statusErr
	}
	m.res, m.replied = res, true
}
