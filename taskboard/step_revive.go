package taskboard

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// reviveM is the task_revive machine. In order: resolve and fence (generation,
// deletion epoch), refuse a queued continuation, check the idle-verification capability
// before any side effect, refuse while a previous revive is unsettled, cancel a running
// generation through the cancel sub-machine, take the relaunch lease, capture the transcript
// baseline (5 s), verify idleness (v1 status read or v2 idle wait, 5 s), then send one
// guarded queued prompt. From the send on, the lease belongs to the admission owner: an
// acceptance registers the new generation exactly once (or, if the record vanished, hands
// the lease to a [compensation] machine); a rejection releases it; a pending admission at
// the 10 s deadline answers admission_unknown and keeps waiting.
//
// Outcome returns the result once Replied is true.
type reviveM struct {
	core
	caller Caller
	args   reviveArgs
	caps   caps
	t      Timing

	prompt, ref, id string
	gen, epoch      uint64
	busyAt          time.Time
	lease           leaseGrant
	held            bool
	baseline        string
	inner           *cancelM

	phase       revivePhase
	readCall    callNo
	readTimer   timerID
	sendCall    callNo
	admitTimer  timerID
	preGen      uint64
	preState    State
	preRev      uint64
	newGen      uint64
	waiting     bool // a caller still waits for the admission's outcome
	compensator *compensation

	res ReviveResult
	err *ToolError
}

type revivePhase int

const (
	reviveIdle revivePhase = iota
	reviveCancel
	reviveBaseline
	reviveVerify
	reviveSend
	reviveAdmission
	reviveObserve
	reviveFinished
)

var _ machine = (*reviveM)(nil)

// newRevive returns a task_revive machine for caller c.
func newRevive(c Caller, a reviveArgs, caps caps) *reviveM {
	return &reviveM{core: newCore(nil), caller: c, args: a, caps: caps}
}

// Outcome returns the tool result and, for a refusal, the *ToolError.
func (m *reviveM) Outcome() (ReviveResult, error) {
	if m.err != nil {
		return m.res, m.err
	}
	return m.res, nil
}

// Registered returns the generation this revive registered, if it registered one.
func (m *reviveM) Registered() (uint64, bool) { return m.newGen, m.newGen != 0 }

// Done reports whether the revive and its cancel sub-machine have nothing pending.
func (m *reviveM) Done() bool { return m.core.Done() && (m.inner == nil || m.inner.Done()) }

func (m *reviveM) fail(err *ToolError) {
	if !m.replied {
		m.err = err
		m.res.TaskID = m.id
		m.replied = true
	}
}

// wrap prefixes a refusal that does not already name the task.
func (m *reviveM) wrap(kind error, msg string) *ToolError {
	if strings.HasPrefix(msg, "Task "+m.ref+" ") {
		return toolErr(kind, msg)
	}
	return toolErr(kind, fmt.Sprintf("Task %s revive failed: %s", m.ref, msg))
}

func (m *reviveM) release(b *Board) {
	if m.held {
		b.release(m.lease)
	}
}

// abandon releases the lease and ends the machine with err.
func (m *reviveM) abandon(b *Board, err *ToolError) []command {
	m.release(b)
	m.fail(err)
	m.phase = reviveFinished
	return nil
}

// Start runs the checks that need no host call and emits the first one.
func (m *reviveM) Start(b *Board) []command {
	m.t = b.timing()
	if err := guardCaller(b, toolRevive, m.caller, true); err != nil {
		m.fail(err)
		return nil
	}
	m.prompt = strings.TrimSpace(m.args.Prompt)
	if m.prompt == "" {
		m.fail(toolErr(ErrInvalidArgs, "task_revive requires prompt"))
		return nil
	}
	if err := guardRef(toolRevive, m.args.Ref); err != nil {
		m.fail(err)
		return nil
	}
	m.ref = m.args.Ref
	r, ok := b.Resolve(m.caller.SessionID, m.ref)
	if !ok || m.ref == m.caller.SessionID || r.TaskID == m.caller.SessionID {
		m.fail(toolErr(ErrUnknownTask, "Unknown or unowned background task: "+m.ref))
		return nil
	}
	m.id, m.gen = r.TaskID, r.Generation
	m.epoch, _ = b.deletionEpoch(m.id)
	if r.State == StateRunning && r.QueuedContinuation {
		m.fail(toolErr(ErrUnsettled, fmt.Sprintf("Task %s already has a queued continuation; do not retry task_revive. Use task_status to inspect it.", m.ref)))
		return nil
	}
	if !m.caps.StatusMap && !m.caps.IdleWaiter {
		m.fail(toolErr(ErrCapability, "task_revive idle-verification capability unavailable: the host must expose session.status or waitForSessionIdle; no abort or prompt was sent"))
		return nil
	}
	if l, ok := b.liveLease(m.id); ok && l.Phase() != phaseNone {
		m.fail(toolErr(ErrUnsettled, fmt.Sprintf("Task %s cannot be revived: a previous revive is still unsettled (%s); do not retry task_revive. Use task_status to inspect it.", m.ref, l.Phase())))
		return nil
	}
	if r.State == StateRunning {
		if r.FallbackRecovering {
			m.fail(toolErr(ErrRefused, fmt.Sprintf("Task %s is recovering on a fallback model; wait for its result. Use task_cancel if it is obsolete.", m.ref)))
			return nil
		}
		m.phase = reviveCancel
		m.inner = newInnerCancel(m.ids, m.ref, r, m.caps)
		out := m.inner.Start(b)
		return append(out, m.afterCancel(b)...)
	}
	return m.acquire(b)
}

// afterCancel continues once the cancel sub-machine replied.
func (m *reviveM) afterCancel(b *Board) []command {
	if m.phase != reviveCancel || !m.inner.Replied() {
		return nil
	}
	if _, err := m.inner.Outcome(); err != nil {
		te := err.(*ToolError)
		m.fail(toolErr(te.Kind, fmt.Sprintf("Task %s revive failed: %s", m.ref, te.Message)))
		m.phase = reviveFinished
		return nil
	}
	if err := m.stale(b); err != nil {
		m.fail(err)
		m.phase = reviveFinished
		return nil
	}
	return m.acquire(b)
}

// acquire checks revivability, takes the relaunch lease and starts the baseline read.
func (m *reviveM) acquire(b *Board) []command {
	r, _ := b.Get(m.id)
	if !r.Revivable() {
		st := string(r.EffectiveState())
		if r.StatusUncertain {
			st += " (status uncertain)"
		}
		m.fail(toolErr(ErrNotRevivable, fmt.Sprintf("Task %s cannot be revived: state %s is not a verified retained terminal session", m.ref, st)))
		m.phase = reviveFinished
		return nil
	}
	l, ok := b.acquire(leaseRelaunch, m.id, m.gen, nil)
	if !ok {
		m.fail(leaseUnavailable(b, m.id, fmt.Sprintf("Task %s cannot be revived: relaunch lease unavailable.", m.ref)))
		m.phase = reviveFinished
		return nil
	}
	m.lease, m.held = l, true
	m.busyAt = r.LastLiveBusyAt
	m.epoch, _ = b.deletionEpoch(m.id)
	m.phase = reviveBaseline
	var st command
	m.readCall, m.readTimer, st = m.deadlineRead(b, m.t.BaselineTimeout)
	return []command{st, readMessages{Call: m.readCall, SessionID: m.id, Limit: 1}}
}

// stale applies the generation fence and the freshness checks to the current record.
func (m *reviveM) stale(b *Board) *ToolError {
	r, ok := b.Get(m.id)
	if ep, _ := b.deletionEpoch(m.id); !ok || ep != m.epoch {
		return toolErr(ErrStale, fmt.Sprintf("Task %s is no longer tracked; refusing stale revive", m.ref))
	}
	if r.Generation != m.gen {
		return toolErr(ErrStale, fmt.Sprintf("Task %s run generation changed; refusing stale revive", m.ref))
	}
	if m.held && !b.validate(m.lease) {
		return m.wrap(ErrStale, "relaunch lease is missing, stale, or belongs to another generation")
	}
	if m.held && (!r.LastLiveBusyAt.Equal(m.busyAt) || !r.Revivable()) {
		return toolErr(ErrStale, fmt.Sprintf("Task %s became active again (%s) before the revive prompt was sent; the prompt was NOT sent and no duplicate was launched. Use task_status to inspect it.", m.ref, r.State))
	}
	return nil
}

// Step consumes one event, forwarding the cancel sub-machine's events to it.
func (m *reviveM) Step(b *Board, ev event) []command {
	if m.inner != nil && !m.inner.Done() && m.innerOwns(ev) {
		out := m.inner.Step(b, ev)
		return append(out, m.afterCancel(b)...)
	}
	return m.step(b, ev, func(t timerID) []command { return m.fire(b, t) }, func(ev event) []command { return m.handle(b, ev) })
}

func (m *reviveM) innerOwns(ev event) bool {
	if f, ok := ev.(fired); ok {
		_, armed := m.inner.timers[f.Timer]
		return armed
	}
	if id, ok := ev.call(); ok {
		return m.inner.pending[id] || m.inner.awaiting[id]
	}
	return false
}

func (m *reviveM) fire(b *Board, t timerID) []command {
	switch {
	case t == m.readTimer && m.phase == reviveBaseline:
		out := m.cancel(m.readCall)
		return append(out, m.abandon(b, m.wrap(ErrTimeout, "Baseline capture deadline exceeded; the revive prompt was NOT sent"))...)
	case t == m.readTimer && m.phase == reviveVerify:
		out := m.cancel(m.readCall)
		if m.caps.StatusMap {
			return append(out, m.abandon(b, m.unverified("live status lookup timed out after "+ms(m.t.StatusReadTimeout)))...)
		}
		return append(out, m.abandon(b, m.wrap(ErrTimeout, "Session idle wait timed out; the revive prompt was NOT sent. Retry task_revive."))...)
	case t == m.admitTimer && m.phase == reviveAdmission:
		m.res = ReviveResult{TaskID: m.id, Generation: m.preGen, State: m.preState, Status: reviveAdmissionUnknown}
		m.replied = true
		m.waiting = false
	case t == m.readTimer && m.phase == reviveObserve:
		out := m.cancel(m.readCall)
		out = append(out, m.log(slog.LevelWarn, "[task-revive] observation failed", slog.String("task_id", m.id), slog.String("error", "observation read timed out")))
		return append(out, m.finishObservation(b)...)
	}
	return nil
}

func (m *reviveM) unverified(reason string) *ToolError {
	return toolErr(ErrUnconfirmed, fmt.Sprintf("Task %s could not be verified against the live session map (%s); the revive prompt was NOT sent. Retry task_revive.", m.ref, reason))
}

func (m *reviveM) handle(b *Board, ev event) []command {
	switch e := ev.(type) {
	case messagesReply:
		switch m.phase {
		case reviveBaseline:
			out := m.stop(m.readTimer)
			if e.Err != nil {
				return append(out, m.abandon(b, m.wrap(ErrHost, "baseline capture failed: "+e.Err.Error()))...)
			}
			if err := m.stale(b); err != nil {
				return append(out, m.abandon(b, err)...)
			}
			baseline, err := baselineOf(m.id, e.Entries)
			if err != nil {
				return append(out, m.abandon(b, m.wrap(ErrHost, "baseline capture failed: "+err.Error()))...)
			}
			m.baseline = baseline
			return append(out, m.verify(b)...)
		case reviveObserve:
			out := m.stop(m.readTimer)
			if e.Err != nil {
				out = append(out, m.log(slog.LevelWarn, "[task-revive] observation failed", slog.String("task_id", m.id), slog.String("error", e.Err.Error())))
			} else {
				m.observe(b, e.Entries)
			}
			return append(out, m.finishObservation(b)...)
		}
	case statusReply:
		if m.phase != reviveVerify {
			return nil
		}
		out := m.stop(m.readTimer)
		if err := m.stale(b); err != nil {
			return append(out, m.abandon(b, err)...)
		}
		if e.Err != nil {
			return append(out, m.abandon(b, m.unverified(e.Err.Error()))...)
		}
		switch live := liveOf(e.Snapshot, m.id); live {
		case LiveBusy, LiveRetry:
			return append(out, m.abandon(b, toolErr(ErrBusyAtHost, fmt.Sprintf("Task %s is executing at the host (live status: %s); the revive prompt was NOT sent and no duplicate was launched. Use task_status to inspect it.", m.ref, live)))...)
		case LiveMalformed:
			return append(out, m.abandon(b, m.unverified("malformed live status entry for session"))...)
		}
		return append(out, m.send(b)...)
	case idleReply:
		if m.phase != reviveVerify {
			return nil
		}
		out := m.stop(m.readTimer)
		if err := m.stale(b); err != nil {
			return append(out, m.abandon(b, err)...)
		}
		if e.Err != nil {
			return append(out, m.abandon(b, m.wrap(ErrUnconfirmed, "Invalid session idle wait operation/result; the revive prompt was NOT sent: "+e.Err.Error()))...)
		}
		return append(out, m.send(b)...)
	case dispatch:
		if e.Call != m.sendCall {
			return nil
		}
		if m.phase != reviveSend || m.replied {
			return m.withdraw(e.Call)
		}
		err := m.stale(b)
		if err == nil && b.isDisposed() {
			err = m.wrap(ErrClosed, "the board was closed; the revive prompt was NOT sent")
		}
		var admitted leaseGrant
		ok := err == nil
		if ok {
			admitted, ok = b.handOver(m.lease, ownerAdmission)
			if !ok {
				err = m.wrap(ErrStale, "relaunch lease is missing, stale, or belongs to another generation")
			}
		}
		if !ok {
			return append(m.withdraw(e.Call), m.abandon(b, err)...)
		}
		m.lease = admitted
		b.noteDispatch(admitted)
		r, _ := b.Get(m.id)
		m.preGen, m.preState, m.preRev = r.Generation, r.EffectiveState(), r.TerminalRevision
		m.phase = reviveAdmission
		m.waiting = true
		out := m.proceed(e.Call)
		t, st := m.timer(b, m.t.AdmissionTimeout)
		m.admitTimer = t
		m.guard[m.sendCall] = t
		return append(out, st)
	case promptReply:
		if m.phase != reviveAdmission {
			return nil
		}
		out := m.stop(m.admitTimer)
		if e.Err != nil {
			m.release(b)
			m.phase = reviveFinished
			if m.waiting {
				m.fail(m.wrap(ErrHost, e.Err.Error()))
				return out
			}
			return append(out, m.log(slog.LevelWarn, "[task-revive] admission failed", slog.String("task_id", m.id), slog.String("error", e.Err.Error())))
		}
		return append(out, m.accept(b)...)
	}
	return nil
}

// verify starts the idle verification for the host's flavour.
func (m *reviveM) verify(b *Board) []command {
	m.phase = reviveVerify
	m.readCall = m.call(false)
	var t timerID
	var st command
	var read command
	if m.caps.StatusMap {
		t, st = m.timer(b, m.t.StatusReadTimeout)
		read = readStatus{Call: m.readCall}
	} else {
		t, st = m.timer(b, m.t.IdleWaitTimeout)
		read = waitIdle{Call: m.readCall, SessionID: m.id}
	}
	m.readTimer = t
	m.guard[m.readCall] = t
	return []command{st, read}
}

// send emits the guarded prompt; the admission deadline starts with it.
func (m *reviveM) send(b *Board) []command {
	r, _ := b.Get(m.id)
	m.phase = reviveSend
	m.sendCall = m.call(true)
	return []command{sendPrompt{Call: m.sendCall, SessionID: m.id, Prompt: Message{Agent: r.Agent, Text: m.prompt}}}
}

// accept applies an admission acceptance, before or after the deadline.
func (m *reviveM) accept(b *Board) []command {
	m.phase = reviveFinished
	if !b.validate(m.lease) {
		out := []command{m.log(slog.LevelWarn, "[task-revive] admission settled after ownership was lost", slog.String("task_id", m.id))}
		if m.waiting {
			m.fail(m.wrap(ErrStale, "relaunch lease is missing, stale, or belongs to another generation"))
		}
		return out
	}
	r, ok := b.Get(m.id)
	if !ok {
		cl, _ := b.handOver(m.lease, ownerCompensation)
		m.held = false // the compensation owner has it now
		m.compensator = newCompensation(cl, m.caps)
		if m.waiting {
			m.fail(m.wrap(ErrStale, "admission accepted but invalidated by loss of the record; compensation initiated"))
		}
		return []command{spawn{Machine: m.compensator}}
	}
	if r.TerminalUnreconciled {
		if _, ok := b.markReconciled(m.id, m.preGen, m.preRev); !ok {
			m.release(b)
			if m.waiting {
				m.fail(toolErr(ErrStale, fmt.Sprintf("Task %s old round could not be acknowledged; no new generation was registered", m.ref)))
			}
			return nil
		}
		r, _ = b.Get(m.id)
	}
	l := m.lease
	nr, err := b.registerLaunch(launchInput{TaskID: m.id, ParentID: r.ParentID, Agent: r.Agent,
		Description: r.Description, Objective: r.Objective, Background: r.Background, Lease: &l})
	if err != nil {
		m.release(b)
		if m.waiting {
			m.fail(m.wrap(ErrStale, err.Error()))
		}
		return nil
	}
	m.newGen = nr.Generation
	b.tracked[m.id] = m.newGen
	b.markQueuedContinuation(m.id, m.newGen, m.baseline)
	m.release(b)
	// One observation read for a fast terminal result; no lease is held.
	m.phase = reviveObserve
	var st command
	m.readCall, m.readTimer, st = m.deadlineRead(b, m.t.ResultReadTimeout)
	return []command{st, readMessages{Call: m.readCall, SessionID: m.id, Limit: m.t.ResultHistory}}
}

// observe commits a fast terminal result found after the baseline.
func (m *reviveM) observe(b *Board, entries []TranscriptEntry) {
	if st, text, ok := terminalEvidence(entries, m.baseline); ok {
		b.commitTerminal(commitInput{TaskID: m.id, Generation: m.newGen, State: st, Summary: text, ObservedAt: b.now()})
	}
}

// terminalEvidence looks, newest first, at the entries after baseline for a finished
// assistant entry (completed, its text) or an error entry (error, its message). When the
// baseline entry is not in the read (the host's IDs changed, or more entries than the read
// returns were added since), nothing in it can be attributed to this run: no evidence.
func terminalEvidence(entries []TranscriptEntry, baseline string) (State, string, bool) {
	start := 0
	if baseline != "" {
		start = -1
		for i, e := range entries {
			if e.ID == baseline {
				start = i + 1
			}
		}
		if start < 0 {
			return "", "", false
		}
	}
	for i := len(entries) - 1; i >= start; i-- {
		e := entries[i]
		if e.Role != "assistant" {
			continue
		}
		if e.Error != "" {
			return StateError, e.Error, true
		}
		if e.Finished {
			return StateCompleted, e.Text, true
		}
		return "", "", false
	}
	return "", "", false
}

func (m *reviveM) finishObservation(b *Board) []command {
	m.phase = reviveFinished
	if !m.waiting {
		return nil
	}
	r, ok := b.Get(m.id)
	if !ok || r.Generation != m.newGen {
		m.fail(toolErr(ErrStale, fmt.Sprintf("Task %s revive became stale before launch completed", m.ref)))
		return nil
	}
	res := ReviveResult{TaskID: m.id, Generation: r.Generation, State: r.EffectiveState(), Status: reviveStarted}
	if r.EffectiveState() != StateRunning {
		res.Status = string(r.EffectiveState())
	}
	if r.StatusUncertain {
		res.StatusUncertain = true
		res.Observation = r.LastStatusError
		if res.Observation == "" {
			res.Observation = "Task termination is unconfirmed."
		}
	}
	if r.ResultSummary != "" {
		res.Summary = r.ResultSummary
		res.Failed = r.EffectiveState() != StateCompleted
	}
	m.res = res
	m.replied = true
	return nil
}
