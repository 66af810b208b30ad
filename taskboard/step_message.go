package taskboard

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// messaging is the task_message machine: checks, the message lease, on v1 one
// identity read of the last transcript entries, then one guarded transcript write that
// starts no turn, all within one budget. A write still pending when the budget ends keeps
// the lease until it settles. (The spec's name for this machine, Message, is taken by the
// host's message struct.)
type messaging struct {
	core
	caller Caller
	args   messageArgs
	caps   caps
	t      Timing

	text   string
	ref    string
	rec    Record
	lease  leaseGrant
	held   bool
	due    time.Time
	budget timerID

	phase     msgPhase
	readCall  callNo
	writeCall callNo
	msg       Message

	res MessageResult
	err *ToolError
}

type msgPhase int

const (
	msgIdle msgPhase = iota
	msgLookup
	msgWrite
	msgWriteLate
	msgFinished
)

var _ machine = (*messaging)(nil)

// newMessage returns a task_message machine for caller c.
func newMessage(c Caller, a messageArgs, caps caps) *messaging {
	return &messaging{core: newCore(nil), caller: c, args: a, caps: caps}
}

// Outcome returns the tool result and, for a refusal, the *ToolError.
func (m *messaging) Outcome() (MessageResult, error) {
	if m.err != nil {
		return m.res, m.err
	}
	return m.res, nil
}

func (m *messaging) fail(err *ToolError) {
	m.err = err
	m.res.TaskID, m.res.Alias = m.rec.TaskID, m.rec.Alias
	m.replied = true
}

func (m *messaging) release(b *Board) {
	if m.held {
		b.release(m.lease)
	}
}

// messageRefusal applies task_message's refusal checks to a record.
func messageRefusal(ref string, r Record) *ToolError {
	switch {
	case r.State == StateStopped:
		return toolErr(ErrNotRunning, fmt.Sprintf("Task %s is stopped. task_message only queues messages for running tasks; continue that session with task_revive and task_id: %q.", ref, r.TaskID))
	case r.EffectiveState().canonical():
		return toolErr(ErrNotRunning, fmt.Sprintf("Task %s is terminal (%s). task_message only queues messages for running tasks; it never launches or resumes. Continue that same session with task_revive and task_id: %q.", ref, r.EffectiveState(), r.TaskID))
	case r.State != StateRunning:
		return toolErr(ErrNotRunning, fmt.Sprintf("Task %s board state is %s, not running", ref, r.State))
	case r.CancellationRequested:
		return toolErr(ErrNotRunning, fmt.Sprintf("Task %s cannot queue a message: cancellation was requested", ref))
	}
	return nil
}

// fresh re-checks that the record is still tracked, of the same generation and messageable.
func (m *messaging) fresh(b *Board) *ToolError {
	r, ok := b.Get(m.rec.TaskID)
	if !ok {
		return toolErr(ErrStale, fmt.Sprintf("Task %s is no longer tracked; refusing stale message", m.ref))
	}
	if r.Generation != m.rec.Generation {
		return toolErr(ErrStale, fmt.Sprintf("Task %s run generation changed; refusing stale message", m.ref))
	}
	return messageRefusal(m.ref, r)
}

// Start validates, resolves, takes the lease and emits the identity read (v1) or the write.
func (m *messaging) Start(b *Board) []command {
	m.t = b.timing()
	if err := guardCaller(b, toolMessage, m.caller, false); err != nil {
		m.fail(err)
		return nil
	}
	if err := guardRef(toolMessage, m.args.Ref); err != nil {
		m.fail(err)
		return nil
	}
	m.ref = m.args.Ref
	m.text = strings.TrimSpace(m.args.Text)
	if m.text == "" {
		m.fail(toolErr(ErrInvalidArgs, "task_message requires message"))
		return nil
	}
	if n := utf8.RuneCountInString(m.text); n > MaxMessageChars {
		m.fail(toolErr(ErrInvalidArgs, fmt.Sprintf("task_message message is too long (%d characters; the limit is %d)", n, MaxMessageChars)))
		return nil
	}
	r, ok := b.Resolve(m.caller.SessionID, m.ref)
	if !ok {
		if sessionShaped(m.ref) && !foreignRecord(b, m.caller, m.ref) {
			m.fail(toolErr(ErrUnknownTask, fmt.Sprintf("Unknown task ID or alias: %s. It is not tracked by this board; to continue that session use task_revive with task_id: %q. Do not launch a duplicate.", m.ref, m.ref)))
			return nil
		}
		m.fail(toolErr(ErrUnknownTask, "Unknown task ID or alias: "+m.ref))
		return nil
	}
	m.rec = r
	if err := messageRefusal(m.ref, r); err != nil {
		m.fail(err)
		return nil
	}
	l, ok := b.acquire(leaseMessage, r.TaskID, r.Generation, nil)
	if !ok {
		m.fail(leaseUnavailable(b, r.TaskID, fmt.Sprintf("Task %s cannot queue a message: message/control lease unavailable.", m.ref)))
		return nil
	}
	m.lease, m.held = l, true
	t, st := m.timer(b, m.t.MessageBudget)
	m.budget, m.due = t, b.now().Add(budget(m.t.MessageBudget))
	if m.caps.Flavor == FlavorV2 {
		return append([]command{st}, m.write(b, Message{Text: m.text, Flavor: FlavorV2})...)
	}
	m.phase = msgLookup
	m.readCall = m.call(false)
	m.guard[m.readCall] = t
	return []command{st, readMessages{Call: m.readCall, SessionID: r.TaskID, Limit: m.t.MessageHistory}}
}

func (m *messaging) write(b *Board, msg Message) []command {
	if !b.now().Before(m.due) {
		m.release(b)
		m.fail(toolErr(ErrTimeout, "Task message transport timed out after "+ms(m.t.MessageBudget)))
		m.phase = msgFinished
		return m.stop(m.budget)
	}
	m.phase = msgWrite
	m.msg = msg
	m.writeCall = m.call(true)
	m.guard[m.writeCall] = m.budget
	return []command{writeMessage{Call: m.writeCall, SessionID: m.rec.TaskID, Message: msg}}
}

// Step consumes one event.
func (m *messaging) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(t timerID) []command { return m.fire(b, t) }, func(ev event) []command { return m.handle(b, ev) })
}

func (m *messaging) fire(b *Board, t timerID) []command {
	if t != m.budget {
		return nil
	}
	switch m.phase {
	case msgLookup:
		out := m.cancel(m.readCall)
		m.release(b)
		m.fail(toolErr(ErrTimeout, "Task message model lookup timed out after "+ms(m.t.MessageBudget)))
		m.phase = msgFinished
		return out
	case msgWrite:
		msg := "Task message transport timed out after " + ms(m.t.MessageBudget)
		if m.awaiting[m.writeCall] { // not dispatched yet: no write will start
			m.release(b)
			m.fail(toolErr(ErrTimeout, msg))
			m.phase = msgFinished
			return nil
		}
		m.fail(toolErr(ErrTimeout, msg))
		m.res.LeaseRetained = true
		m.phase = msgWriteLate
	}
	return nil
}

func (m *messaging) handle(b *Board, ev event) []command {
	switch e := ev.(type) {
	case messagesReply:
		if m.phase != msgLookup {
			return nil
		}
		if e.Err != nil {
			m.release(b)
			m.fail(toolErr(ErrHost, "Task message model lookup failed: "+e.Err.Error()))
			m.phase = msgFinished
			return m.stop(m.budget)
		}
		if err := m.fresh(b); err != nil {
			m.release(b)
			m.fail(err)
			m.phase = msgFinished
			return m.stop(m.budget)
		}
		msg, ok := identity(e.Entries, m.rec.Agent)
		if !ok {
			m.release(b)
			m.fail(toolErr(ErrRefused, fmt.Sprintf("Task %s has no authoritative model identity; refusing message", m.ref)))
			m.phase = msgFinished
			return m.stop(m.budget)
		}
		msg.Text, msg.Flavor = m.text, FlavorV1
		return m.write(b, msg)
	case dispatch:
		if e.Call != m.writeCall {
			return nil
		}
		if m.phase != msgWrite || m.replied {
			return m.withdraw(e.Call)
		}
		err := m.dispatchRefusal(b)
		if err != nil {
			out := m.withdraw(e.Call)
			m.release(b)
			m.fail(err)
			m.phase = msgFinished
			return append(out, m.stop(m.budget)...)
		}
		b.noteDispatch(m.lease)
		return m.proceed(e.Call)
	case writeReply:
		if m.phase == msgWriteLate {
			m.release(b) // exactly this token; the record is left alone
			m.phase = msgFinished
			return nil
		}
		if m.phase != msgWrite {
			return nil
		}
		out := m.stop(m.budget)
		m.phase = msgFinished
		if e.Err != nil {
			m.release(b)
			m.fail(toolErr(ErrHost, "Task message transport failed: "+e.Err.Error()))
			return out
		}
		if !b.validate(m.lease) {
			m.release(b)
			m.fail(toolErr(ErrStale, fmt.Sprintf("Task %s message lease is no longer valid; refusing stale message", m.ref)))
			return out
		}
		if err := m.fresh(b); err != nil {
			m.release(b)
			m.fail(err)
			return out
		}
		m.release(b)
		m.res = MessageResult{TaskID: m.rec.TaskID, Alias: m.rec.Alias, Status: messageQueued}
		m.replied = true
		return out
	}
	return nil
}

func (m *messaging) dispatchRefusal(b *Board) *ToolError {
	r, ok := b.Get(m.rec.TaskID)
	switch {
	case !ok:
		return toolErr(ErrStale, fmt.Sprintf("Task %s is no longer tracked; refusing stale message", m.ref))
	case r.Generation != m.rec.Generation:
		return toolErr(ErrStale, fmt.Sprintf("Task %s run generation changed; refusing stale message", m.ref))
	case b.isDisposed() || !b.validate(m.lease):
		return toolErr(ErrStale, fmt.Sprintf("Task %s message lease is no longer valid; refusing stale message", m.ref))
	}
	return messageRefusal(m.ref, r)
}

// identity picks the model identity of a v1 write from the transcript: newest to
// oldest, skipping summaries and entries without both provider and model, the first user
// or assistant entry gives provider and model; the variant comes from that entry, else the
// newest user entry, else "default"; the agent from that entry, else the record's.
func identity(entries []TranscriptEntry, recordAgent string) (Message, bool) {
	newestUserVariant := ""
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.Role == "user" && e.Variant != "" {
			newestUserVariant = e.Variant
			break
		}
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Summary || e.Provider == "" || e.Model == "" || (e.Role != "user" && e.Role != "assistant") {
			continue
		}
		m := Message{Agent: e.Agent, Provider: e.Provider, Model: e.Model, Variant: e.Variant}
		if m.Variant == "" {
			m.Variant = newestUserVariant
		}
		if m.Variant == "" {
			m.Variant = "default"
		}
		if m.Agent == "" {
			m.Agent = recordAgent
		}
		return m, true
	}
	return Message{}, false
}
