package taskboard

import "time"

// Host events as board inputs. Each is fenced: an explicit generation other than the
// current one is ignored; after a same-ID relaunch (Record.Quarantined) events without a
// generation are ignored — idle and error always, busy when observedAt ≤ RunStartedAt —
// until a busy observed after RunStartedAt clears the quarantine.

// fence returns the record an event for (taskID, gen) applies to.
func (b *Board) fence(taskID string, gen *uint64, busy bool, at time.Time) (*Record, bool) {
	r, ok := b.records[taskID]
	if !ok {
		return nil, false
	}
	if gen != nil {
		return r, *gen == r.Generation
	}
	if r.Quarantined && (!busy || !at.After(r.RunStartedAt)) {
		return r, false
	}
	return r, true
}

// observeBusy applies a live busy/retry event (gen nil when the host gave none) through the
// fence, then markRunningFromLive.
func (b *Board) observeBusy(taskID string, gen *uint64, at time.Time) (Record, bool) {
	r, ok := b.fence(taskID, gen, true, at)
	if !ok {
		return b.copyOf(taskID), false
	}
	return b.markRunningFromLive(taskID, r.Generation, at)
}

// Stop-rule messages.
const (
	msgIdleUnconfirmed   = "Runtime session is idle; task termination is unconfirmed."
	msgAbsentUnconfirmed = "Runtime status response did not contain a live session state; task termination is unconfirmed."
	msgMalformedEntry    = "malformed live status entry for session"
)

// stopCandidate applies one non-busy (idle or absent) observation at `at` to a running
// generation with no deadline claim. A deferred error is committed as error
// (GateCommitted). The first observation of an episode stamps the stop confirmation and
// marks the record uncertain with msg (GateDeferred). A later one at least StopGrace after
// the stamp, with no busy since the stamp, commits stopped (GateCommitted); one inside the
// grace is GateDeferred. Anything else is GateStale.
func (b *Board) stopCandidate(taskID string, gen uint64, at time.Time, msg string) (Record, gateResult) {
	r, ok := b.running(taskID, gen)
	if !ok || r.deadlineClaimed() {
		return b.copyOf(taskID), gateStale
	}
	if r.DeferredError != "" {
		return b.commitTerminal(commitInput{TaskID: taskID, Generation: gen, State: StateError, Summary: r.DeferredError, ObservedAt: at})
	}
	if r.StopConfirmationStartedAt.IsZero() {
		b.noteStopConfirmation(taskID, gen, at)
		rec, _ := b.markStatusUncertain(taskID, gen, msg)
		return rec, gateDeferred
	}
	start := r.StopConfirmationStartedAt
	if at.Sub(start) >= b.opts.Timing.StopGrace && r.LastLiveBusyAt.Before(start) {
		return b.commitTerminal(commitInput{TaskID: taskID, Generation: gen, State: StateStopped, ObservedAt: at})
	}
	return r.clone(), gateDeferred
}

// observeError applies a session.error event. Ignored (GateStale) when fenced out,
// not running, or while the host recovers the task on a fallback model. A deferrable
// (failover-class) error is stored as DeferredError (GateDeferred): a later non-busy
// observation commits it, a busy clears it. Otherwise the error is committed.
func (b *Board) observeError(taskID string, gen *uint64, msg string, deferrable bool, at time.Time) (Record, gateResult) {
	r, ok := b.fence(taskID, gen, false, at)
	if !ok || r.State != StateRunning || r.FallbackRecovering {
		return b.copyOf(taskID), gateStale
	}
	if deferrable {
		r.DeferredError = msg
		r.LastErrorAt = at
		r.UpdatedAt = b.now()
		return r.clone(), gateDeferred
	}
	return b.commitTerminal(commitInput{TaskID: taskID, Generation: r.Generation, State: StateError, Summary: msg, ObservedAt: at})
}

// deletionEvent is the host's session.deleted.
type deletionEvent struct {
	SessionID        string
	Generation       *uint64 // nil when the host gave none
	FallbackTeardown bool
}

// hostDeleted applies a session.deleted event and reports whether it was genuine.
// A fallback teardown is ignored; so is an event without a generation for a record with
// TaskGeneration > 1, and one whose generation is not the current one. A genuine deletion
// clears the session's wait-for-user latch and last user identity, drops its record (unless
// it has a deadline claim) and clears its children. Leases stay live.
func (b *Board) hostDeleted(ev deletionEvent) bool {
	if ev.FallbackTeardown || ev.SessionID == "" {
		return false
	}
	if r, ok := b.records[ev.SessionID]; ok {
		if ev.Generation == nil && r.TaskGeneration > 1 {
			return false
		}
		if ev.Generation != nil && *ev.Generation != r.Generation {
			return false
		}
		if !r.deadlineClaimed() {
			b.Drop(ev.SessionID)
		}
	}
	delete(b.waits, ev.SessionID)
	delete(b.lastUser, ev.SessionID)
	b.ClearParent(ev.SessionID)
	return true
}

// Part kinds that make a message real.
const (
	partText  = "text"
	partFile  = "file"
	partImage = "image"
)

// userMessage is a chat message the host saw, for the wait-for-user latch.
type userMessage struct {
	SessionID, ID, Role string
	Parts               []Part
}

// Part is one part of a user message. A message with role "user", no Internal part and a
// text, file or image part that is not Synthetic was typed by a person.
type Part struct {
	Kind                string // the host's part type: text, file, image, tool, …
	Synthetic, Internal bool
}

// realExternal reports a message typed by a person: role user, no internal-initiator part,
// at least one non-synthetic text, file or image part.
func realExternal(m userMessage) bool {
	if m.Role != "user" {
		return false
	}
	real := false
	for _, p := range m.Parts {
		if p.Internal {
			return false
		}
		if !p.Synthetic && (p.Kind == partText || p.Kind == partFile || p.Kind == partImage) {
			real = true
		}
	}
	return real
}

// armWait arms the wait-for-user latch of a session (the wait_for_user tool calls it after
// its checks).
func (b *Board) armWait(sessionID string) { b.waits[sessionID] = true }

// Waiting reports whether sessionID has an armed wait_for_user latch.
func (b *Board) Waiting(sessionID string) bool { return b.waits[sessionID] }

// clearForMessage clears the session's wait when m is a real external user message in a
// managed session whose identity (message ID) differs from the last one seen; it stores the
// identity (an empty ID clears and stores nothing). It returns true iff an armed wait was
// cleared. Synthetic or internal messages and replays of the last identity change nothing.
func (b *Board) clearForMessage(m userMessage) bool {
	if !b.managed[m.SessionID] || !realExternal(m) {
		return false
	}
	if m.ID != "" {
		if last, ok := b.lastUser[m.SessionID]; ok && last == m.ID {
			return false
		}
		b.lastUser[m.SessionID] = m.ID
	}
	was := b.waits[m.SessionID]
	delete(b.waits, m.SessionID)
	return was
}
