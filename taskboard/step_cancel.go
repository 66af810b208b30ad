package taskboard

import (
	"fmt"
	"time"
)

// cancelM is the task_cancel machine: resolve, take the cancellation lease, send
// one guarded abort with a deadline, then verify quiescence within a bounded budget and
// commit cancelled with the lease. An abort still pending at its deadline keeps the lease
// until it settles; the late settlement only releases the token.
//
// Outcome returns the result once Replied is true.
type cancelM struct {
	core
	caller Caller
	args   cancelArgs
	caps   caps
	inner  bool // run by task_revive: no guard, no resolution
	t      Timing

	ref, id string
	gen     uint64
	epoch   uint64
	lease   leaseGrant
	held    bool

	phase       cancelPhase
	abortCall   callNo
	abortTimer  timerID
	abortStart  time.Time
	verifyTimer timerID
	pollTimer   timerID
	readCall    callNo
	windowOpen  bool
	windowStart time.Time
	windowAct   uint64
	last        string
	sessionCall callNo
	ownerTimer  timerID

	res CancelResult
	err *ToolError
}

type cancelPhase int

const (
	cancelIdle cancelPhase = iota
	cancelOwner
	cancelAbort
	cancelAbortLate
	cancelVerify
	cancelFinished
)

var _ machine = (*cancelM)(nil)

// newCancel returns a task_cancel machine for caller c.
func newCancel(c Caller, a cancelArgs, caps caps) *cancelM {
	return &cancelM{core: newCore(nil), caller: c, args: a, caps: caps}
}

// newInnerCancel is the cancel sub-machine of task_revive for a known running record; it
// shares the revive's ID allocator.
func newInnerCancel(i *ids, ref string, r Record, caps caps) *cancelM {
	return &cancelM{core: newCore(i), caps: caps, inner: true, ref: ref, id: r.TaskID,
		gen: r.Generation, args: cancelArgs{Ref: ref, Reason: "revived"}}
}

// Outcome returns the tool result and, for a refusal, the *ToolError.
func (m *cancelM) Outcome() (CancelResult, error) {
	if m.err != nil {
		return m.res, m.err
	}
	return m.res, nil
}

// Lease returns the cancellation lease the machine holds or held, if it got one.
func (m *cancelM) Lease() (leaseGrant, bool) { return m.lease, m.held }

func (m *cancelM) fail(b *Board, err *ToolError) {
	m.err = err
	m.res.TaskID = m.id
	if m.res.TaskID == "" {
		m.res.TaskID = m.ref
	}
	if r, ok := b.Get(m.id); ok {
		m.res.State = string(r.EffectiveState())
	} else if m.res.State == "" {
		m.res.State = cancelUnknown
	}
	m.res.Message = err.Message
	m.replied = true
}

func (m *cancelM) note(state string, msg string) {
	m.res = CancelResult{TaskID: m.ref, State: state, Message: msg}
	m.replied = true
}

func (m *cancelM) finish() { m.phase = cancelFinished }

func (m *cancelM) release(b *Board) {
	if m.held {
		b.release(m.lease)
	}
}

// Start resolves the reference and, for a running task, takes the lease and emits the
// guarded abort.
func (m *cancelM) Start(b *Board) []command {
	m.t = b.timing()
	if !m.inner {
		if err := guardCaller(b, toolCancel, m.caller, true); err != nil {
			m.fail(b, err)
			return nil
		}
		if err := guardRef(toolCancel, m.args.Ref); err != nil {
			m.fail(b, err)
			return nil
		}
		m.ref = m.args.Ref
		if m.ref == m.caller.SessionID {
			m.note(cancelUnknown, "cannot cancel parent session")
			return nil
		}
		r, ok := b.Resolve(m.caller.SessionID, m.ref)
		if !ok {
			if foreignRecord(b, m.caller, m.ref) {
				m.fail(b, toolErr(ErrForeignTask, fmt.Sprintf("Task %s belongs to a different parent session. No action was sent.", m.ref)))
				m.res.State = cancelUnknown
				return nil
			}
			if aliasShape.MatchString(m.ref) {
				m.note(cancelUnknown, "unknown or unowned background task")
				return nil
			}
			// One ownership read: does the host say this session is the caller's child?
			m.phase = cancelOwner
			var st command
			m.sessionCall, m.ownerTimer, st = m.deadlineRead(b, m.t.StatusReadTimeout)
			return []command{readSession{Call: m.sessionCall, SessionID: m.ref}, st}
		}
		m.id, m.gen = r.TaskID, r.Generation
		if r.Origin != originLaunched && r.Origin != "" && r.TaskGeneration <= 1 {
			if r.State == StateRunning {
				m.fail(b, toolErr(ErrRefused, fmt.Sprintf("Task %s is still executing. task_cancel did not take over a recovered session; no abort was sent.", m.ref)))
			} else {
				m.fail(b, toolErr(ErrNotRunning, fmt.Sprintf("Task is %s, not running. No abort was sent.", r.EffectiveState())))
			}
			return nil
		}
		if r.State != StateRunning {
			m.fail(b, toolErr(ErrNotRunning, fmt.Sprintf("stale/uncertain cancellation: task is %s, not running", r.EffectiveState())))
			return nil
		}
	}
	m.epoch, _ = b.deletionEpoch(m.id)
	l, ok := b.acquire(leaseCancellation, m.id, m.gen, nil)
	if !ok {
		m.fail(b, leaseUnavailable(b, m.id, fmt.Sprintf("stale/uncertain cancellation: cancellation lease unavailable for %s.", m.ref)))
		return nil
	}
	m.lease, m.held = l, true
	m.phase = cancelAbort
	m.abortCall = m.call(true)
	t, st := m.timer(b, m.t.AbortTimeout)
	m.abortTimer = t
	m.guard[m.abortCall] = t
	return []command{abort{Call: m.abortCall, SessionID: m.id}, st}
}

// Step consumes one event.
func (m *cancelM) Step(b *Board, ev event) []command {
	return m.step(b, ev, func(t timerID) []command { return m.fire(b, t) }, func(ev event) []command { return m.handle(b, ev) })
}

func (m *cancelM) fire(b *Board, t timerID) []command {
	switch {
	case m.phase == cancelOwner:
		m.note(cancelUnknown, "unknown or unowned background task")
		m.finish()
		return m.cancel(m.sessionCall)
	case t == m.abortTimer && m.phase == cancelAbort:
		msg := "Session abort timed out after " + ms(m.t.AbortTimeout)
		if m.awaiting[m.abortCall] {
			// Never dispatched: nothing is in flight, so nothing needs the lease.
			m.release(b)
			m.fail(b, toolErr(ErrTimeout, msg))
			m.finish()
			return nil
		}
		b.markStatusUncertain(m.id, m.gen, msg)
		m.fail(b, toolErr(ErrTimeout, msg))
		m.phase = cancelAbortLate // the lease stays until the abort settles
		return nil
	case t == m.pollTimer && m.phase == cancelVerify:
		return m.read(b)
	case t == m.verifyTimer && m.phase == cancelVerify:
		var out []command
		if m.readCall != 0 {
			out = append(out, m.cancel(m.readCall)...)
			m.readCall = 0
		}
		out = append(out, m.stop(m.pollTimer)...)
		last := m.last
		if last == "" {
			last = "pending"
		}
		msg := fmt.Sprintf("Session abort returned but task did not stay stopped: %s (%s)", m.ref, last)
		b.markStatusUncertain(m.id, m.gen, msg)
		m.release(b)
		m.fail(b, toolErr(ErrUnconfirmed, msg))
		m.finish()
		return out
	}
	return nil
}

func (m *cancelM) handle(b *Board, ev event) []command {
	switch e := ev.(type) {
	case sessionReply:
		if m.phase != cancelOwner {
			return m.verifyReply(b, ev)
		}
		m.finish()
		if e.Err == nil && e.Info.ParentID == m.caller.SessionID {
			m.note(cancelUnknown, "best-effort/uncertain cancellation: session ownership was observed, but no tracked generation exists; no remote abort was attempted")
		} else {
			m.note(cancelUnknown, "unknown or unowned background task")
		}
		return m.stop(m.ownerTimer)
	case dispatch:
		if e.Call != m.abortCall {
			return nil
		}
		if m.phase != cancelAbort || m.replied {
			return m.withdraw(e.Call)
		}
		if msg := m.dispatchRefusal(b); msg != "" {
			out := m.withdraw(e.Call)
			m.release(b)
			m.fail(b, toolErr(ErrStale, msg))
			m.finish()
			return out
		}
		m.abortStart = b.now()
		b.noteDispatch(m.lease)
		return m.proceed(e.Call)
	case abortReply:
		if m.phase == cancelAbortLate {
			m.release(b) // the late settlement only releases the token
			m.finish()
			return nil
		}
		if m.phase != cancelAbort {
			return nil
		}
		out := m.stop(m.abortTimer)
		switch {
		case e.Err != nil:
			m.release(b)
			m.fail(b, toolErr(ErrHost, "Session abort failed: "+e.Err.Error()))
			m.finish()
			return out
		case !e.Confirmed:
			m.release(b)
			m.fail(b, toolErr(ErrUnconfirmed, "Session abort was not confirmed: "+m.ref))
			m.finish()
			return out
		}
		m.phase = cancelVerify
		t, st := m.timer(b, m.t.VerifyBudget)
		m.verifyTimer = t
		out = append(out, st)
		return append(out, m.read(b)...)
	case statusReply, idleReply:
		return m.verifyReply(b, ev)
	}
	return nil
}

func (m *cancelM) dispatchRefusal(b *Board) string {
	if b.isDisposed() || !b.validate(m.lease) {
		return fmt.Sprintf("Cancellation lease is no longer valid for %s generation %d", m.ref, m.gen)
	}
	r, ok := b.Get(m.id)
	if !ok || r.State != StateRunning {
		return fmt.Sprintf("stale/uncertain cancellation: %s is no longer running", m.ref)
	}
	if r.Generation != m.gen {
		return fmt.Sprintf("stale/uncertain cancellation: %s generation changed", m.ref)
	}
	return ""
}

// read issues the next verification read for the host's flavour.
func (m *cancelM) read(b *Board) []command {
	id := m.call(false)
	m.readCall = id
	m.guard[id] = m.verifyTimer
	switch {
	case m.caps.StatusMap:
		return []command{readStatus{Call: id}}
	case m.caps.IdleWaiter:
		return []command{waitIdle{Call: id, SessionID: m.id}}
	}
	return []command{readSession{Call: id, SessionID: m.id}}
}

func (m *cancelM) verifyReply(b *Board, ev event) []command {
	if m.phase != cancelVerify {
		return nil
	}
	m.readCall = 0
	r, ok := b.Get(m.id)
	if ep, _ := b.deletionEpoch(m.id); !ok || ep != m.epoch {
		out := append(m.stop(m.verifyTimer), m.stop(m.pollTimer)...)
		m.release(b)
		m.fail(b, toolErr(ErrStale, fmt.Sprintf("stale/uncertain cancellation: %s was deleted", m.ref)))
		m.finish()
		return out
	}
	quiescent := false
	switch e := ev.(type) {
	case statusReply:
		if e.Err != nil {
			m.last = "lookup-error: " + e.Err.Error()
			m.windowOpen = false
			break
		}
		live := liveOf(e.Snapshot, m.id)
		m.last = string(live)
		if live != LiveIdle && live != LiveAbsent {
			m.windowOpen = false
			break
		}
		now := b.now()
		if !m.windowOpen || r.ActivityRevision != m.windowAct {
			m.windowOpen, m.windowStart, m.windowAct = true, now, r.ActivityRevision
		}
		quiescent = now.Sub(m.windowStart) >= m.t.VerifyStable
	case idleReply:
		if e.Err != nil {
			m.last = "host-info: " + e.Err.Error()
			return nil // one wait only; the budget decides
		}
		quiescent = true
	case sessionReply:
		switch {
		case e.Err != nil:
			m.last = "host-info: " + e.Err.Error()
		case !e.Info.IdleAt.IsZero() && !e.Info.IdleAt.Before(m.abortStart):
			quiescent = true
		default:
			m.last = fmt.Sprintf("host-info: outcome=%q, not idle since the abort", e.Info.Outcome)
		}
	}
	if !quiescent {
		t, st := m.timer(b, m.t.VerifyPoll)
		m.pollTimer = t
		return []command{st}
	}
	out := append(m.stop(m.verifyTimer), m.stop(m.pollTimer)...)
	m.commit(b)
	return out
}

func (m *cancelM) commit(b *Board) {
	reason := collapseSpace(m.args.Reason)
	summary := "cancelled"
	if reason != "" {
		summary += ": " + reason
	}
	l := m.lease
	_, gate := b.commitTerminal(commitInput{TaskID: m.id, Generation: m.gen, State: StateCancelled,
		Summary: summary, Lease: &l, ObservedAt: b.now()})
	if gate != gateCommitted {
		m.release(b)
		m.fail(b, toolErr(ErrStale, fmt.Sprintf("stale/uncertain cancellation: %s generation changed", m.ref)))
		m.finish()
		return
	}
	m.release(b)
	m.res = CancelResult{TaskID: m.id, State: string(StateCancelled), Reason: reason}
	m.replied = true
	m.finish()
}
