package taskboard

import (
	"fmt"
	"strings"
)

// resultM is the task_result machine. A tracked stopped record is re-checked once
// against the v1 status map (a live busy heals it); a completed record is read through one
// ownership read and one transcript read, the generation re-checked after each; an
// untracked session is read the same way and refused without terminal evidence.
type resultM struct {
	core
	caller Caller
	args   resultArgs
	caps   caps
	t      Timing

	ref       string
	rec       Record
	tracked   bool
	phase     resultPhase
	readCall  callNo
	readTimer timerID

	res ResultOutput
	err *ToolError
}

type resultPhase int

const (
	resultIdle resultPhase = iota
	resultLive
	resultSession
	resultMessages
	resultFinished
)

var _ machine = (*resultM)(nil)

// newResult returns a task_result machine for caller c.
func newResult(c Caller, a resultArgs, caps caps) *resultM {
	return &resultM{core: newCore(nil), caller: c, args: a, caps: caps}
}

// Outcome returns the tool result and, for a refusal, the *ToolError.
func (m *resultM) Outcome() (ResultOutput, error) {
	if m.err != nil {
		return m.res, m.err
	}
	return m.res, nil
}

func (m *resultM) fail(err *ToolError) []command {
	m.err, m.replied, m.phase = err, true, resultFinished
	m.res.TaskID = m.rec.TaskID
	return nil
}

func (m *resultM) read(b *Board, phase resultPhase, c command, id callNo) []command {
	m.phase = phase
	m.readCall = id
	d := m.t.ResultReadTimeout
	if phase == resultLive {
		d = m.t.StatusReadTimeout
	}
	t, st := m.timer(b, d)
	m.readTimer = t
	m.guard[id] = t
	return []command{st, c}
}

// Start resolves the reference and decides which reads are needed.
func (m *resultM) Start(b *Board) []command {
	m.t = b.timing()
	if err := guardCaller(b, toolResult, m.caller, false); err != nil {
		return m.fail(err)
	}
	if err := guardRef(toolResult, m.args.Ref); err != nil {
		return m.fail(err)
	}
	m.ref = m.args.Ref
	r, ok := b.Resolve(m.caller.SessionID, m.ref)
	if !ok {
		if sessionShaped(m.ref) && !foreignRecord(b, m.caller, m.ref) && m.ref != m.caller.SessionID {
			m.rec = Record{TaskID: m.ref}
			id := m.call(false)
			return m.read(b, resultSession, readSession{Call: id, SessionID: m.ref}, id)
		}
		return m.fail(toolErr(ErrUnknownTask, "Unknown task ID or alias: "+m.ref))
	}
	m.rec, m.tracked = r, true
	if r.State == StateStopped && m.caps.StatusMap {
		id := m.call(false)
		return m.read(b, resultLive, readStatus{Call: id}, id)
	}
	return m.decide(b, "")
}

// decide answers from the board state, or starts the reads of a completed result.
func (m *resultM) decide(b *Board, live LiveStatus) []command {
	r, ok := b.Get(m.rec.TaskID)
	if !ok {
		return m.fail(toolErr(ErrStale, fmt.Sprintf("Task %s changed generation while its result was being retrieved; call task_result again.", m.ref)))
	}
	m.rec = r
	switch st := r.EffectiveState(); st {
	case StateRunning:
		if live != LiveRetry {
			live = LiveBusy
		}
		m.res = ResultOutput{TaskID: r.TaskID, State: StateRunning, Running: true, Live: live, Generation: r.Generation}
		m.replied, m.phase = true, resultFinished
		return nil
	case StateError:
		return m.fail(toolErr(ErrTaskFailed, fmt.Sprintf("Task %s ended in error: %s", m.ref, r.ResultSummary)))
	case StateCancelled:
		s := r.ResultSummary
		if s == "" {
			s = "cancelled"
		}
		return m.fail(toolErr(ErrTaskFailed, fmt.Sprintf("Task %s was %s", m.ref, s)))
	case StateCompleted:
		id := m.call(false)
		return m.read(b, resultSession, readSession{Call: id, SessionID: r.TaskID}, id)
	}
	return m.fail(toolErr(ErrNoResult, fmt.Sprintf("Task %s has no confirmed completed result. Use task_revive with task_id: %q to continue it.", m.ref, r.TaskID)))
}

// fresh reports whether the tracked record still has the generation read at the start.
func (m *resultM) fresh(b *Board) bool {
	if !m.tracked {
		return true
	}
	r, ok := b.Get(m.rec.TaskID)
	return ok && r.Generation == m.rec.Generation
}

func (m *resultM) changed() []command {
	return m.fail(toolErr(ErrStale, fmt.Sprintf("Task %s changed generation while its result was being retrieved; call task_result again.", m.ref)))
}

// Step consumes one event.
func (m *resultM) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(t timerID) []command {
		if t != m.readTimer || m.phase == resultFinished {
			return nil
		}
		out := m.cancel(m.readCall)
		what := "result read"
		if m.phase == resultLive {
			// The re-check is best effort: answer from the board.
			return append(out, m.decide(b, "")...)
		}
		return append(out, m.fail(toolErr(ErrTimeout, fmt.Sprintf("Task %s %s timed out after %s", m.ref, what, ms(m.t.ResultReadTimeout))))...)
	}, func(ev event) []command { return m.handle(b, ev) })
}

func (m *resultM) handle(b *Board, ev event) []command {
	out := m.stop(m.readTimer)
	switch e := ev.(type) {
	case statusReply:
		if m.phase != resultLive {
			return nil
		}
		var live LiveStatus
		if e.Err == nil {
			live = liveOf(e.Snapshot, m.rec.TaskID)
			if live == LiveBusy || live == LiveRetry {
				b.markRunningFromLive(m.rec.TaskID, m.rec.Generation, b.now())
			}
		}
		if !m.fresh(b) {
			return append(out, m.changed()...)
		}
		return append(out, m.decide(b, live)...)
	case sessionReply:
		if m.phase != resultSession {
			return nil
		}
		if e.Err != nil {
			return append(out, m.fail(toolErr(ErrHost, fmt.Sprintf("Task %s result read failed: %s", m.ref, e.Err)))...)
		}
		if e.Info.ParentID != m.caller.SessionID {
			return append(out, m.fail(toolErr(ErrForeignTask, fmt.Sprintf("Task %s does not belong to this session", m.ref)))...)
		}
		if !m.fresh(b) {
			return append(out, m.changed()...)
		}
		id := m.call(false)
		return append(out, m.read(b, resultMessages, readMessages{Call: id, SessionID: m.rec.TaskID, Limit: m.t.ResultHistory}, id)...)
	case messagesReply:
		if m.phase != resultMessages {
			return nil
		}
		if e.Err != nil {
			return append(out, m.fail(toolErr(ErrHost, fmt.Sprintf("Task %s result read failed: %s", m.ref, e.Err)))...)
		}
		if !m.fresh(b) {
			return append(out, m.changed()...)
		}
		if !m.tracked {
			n := len(e.Entries)
			if n == 0 || e.Entries[n-1].Role != "assistant" || !e.Entries[n-1].Finished {
				return append(out, m.fail(toolErr(ErrNoResult, fmt.Sprintf("Task %s shows no terminal evidence of completion; refusing to present partial output as its final result", m.ref)))...)
			}
		}
		text, ok := finalText(e.Entries)
		if !ok {
			return append(out, m.fail(toolErr(ErrNoResult, fmt.Sprintf("Task %s has no completed text result", m.ref)))...)
		}
		if m.tracked {
			b.markUsed(m.caller.SessionID, m.rec.TaskID)
		}
		m.res = ResultOutput{TaskID: m.rec.TaskID, State: StateCompleted, Generation: m.rec.Generation, Text: text}
		m.replied, m.phase = true, resultFinished
		return out
	}
	return out
}

// finalText returns the text of the newest finished assistant entry.
func finalText(entries []TranscriptEntry) (string, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Role == "assistant" && e.Finished && strings.TrimSpace(e.Text) != "" {
			return e.Text, true
		}
	}
	return "", false
}
