package taskboard

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

var timeZero time.Time

const stoppedSummary = "Background session stopped before a terminal task result was received."

// commitInput is a terminal publication for one generation.
type commitInput struct {
	TaskID     string
	Generation uint64
	State      State       // completed, error, cancelled or stopped
	Summary    string      // result text, error text, or the cancel reason ("cancelled[: reason]")
	Lease      *leaseGrant // the live cancellation lease, for a cancelled commit while a lease is live
	ObservedAt time.Time
}

// commitTerminal publishes a terminal state for c.Generation. It is GateStale (no
// change, no notice) unless the record exists, is running and holds that generation. After a
// deadline claim, completed and stopped input is stale and error or cancelled input becomes
// the wall-clock timeout error. A cancelled commit while any lease is live needs c.Lease to
// be the live cancellation lease for that generation; with no live lease it is a
// host-reported cancellation and allowed, unless c.Lease is given and no longer live (it
// was broken by [Board.ForceRelease]): a presented lease must always be valid. stopped needs LastLiveBusyAt < c.ObservedAt (zero
// ObservedAt means now). Every committed transition sets TerminalUnreconciled, increments
// TerminalRevision by one, emits one Terminal notice and runs the retention trim.
func (b *Board) commitTerminal(c commitInput) (Record, gateResult) {
	r, ok := b.records[c.TaskID]
	if !ok || r.State != StateRunning || r.Generation != c.Generation || !c.State.terminal() {
		return b.copyOf(c.TaskID), gateStale
	}
	now := b.now()
	if r.deadlineClaimed() {
		if c.State == StateCompleted || c.State == StateStopped {
			return r.clone(), gateStale
		}
		b.finalizeDeadline(r, "")
		return r.clone(), gateCommitted
	}
	switch c.State {
	case StateCancelled:
		if c.Lease != nil && !b.validate(*c.Lease) {
			return r.clone(), gateStale // the presented lease was released or broken (ForceRelease)
		}
		if live, leased := b.leases[c.TaskID]; leased {
			if c.Lease == nil || c.Lease.TaskID != c.TaskID || c.Lease.Token != live.Token ||
				c.Lease.Kind != leaseCancellation || !b.validate(*c.Lease) || live.Generation != c.Generation {
				return r.clone(), gateStale
			}
		}
		r.CancellationRequested = true
		r.ResultSummary = cancelSummary(c.Summary)
		r.TerminalState = StateCancelled
	case StateStopped:
		at := c.ObservedAt
		if at.IsZero() {
			at = now
		}
		if !r.LastLiveBusyAt.Before(at) {
			return r.clone(), gateStale
		}
		r.ResultSummary = stoppedSummary
		r.TerminalState = ""
	case StateCompleted:
		r.ResultSummary = c.Summary
		r.TerminalState = StateCompleted
		r.TimeoutCount = 0
	case StateError:
		r.ResultSummary = c.Summary
		r.TerminalState = StateError
		r.TotalErrors++
		r.LastErrorAt = now
	}
	b.publish(r, c.State, now)
	return r.clone(), gateCommitted
}

// publish moves a running record into a terminal state.
func (b *Board) publish(r *Record, st State, now time.Time) {
	r.State = st
	r.TerminalUnreconciled = true
	if r.CompletedAt.IsZero() {
		r.CompletedAt = now
	}
	r.StopConfirmationStartedAt = timeZero
	r.DeferredError = ""
	r.QueuedContinuation = false
	r.TerminalRevision++
	r.UpdatedAt = now
	b.emit(noticeTerminal, r)
	b.trim(r.ParentID, r.Agent)
}

// cancelSummary renders "cancelled" or "cancelled: <reason>" with whitespace collapsed;
// a summary that already starts with "cancelled" is kept (collapsed).
func cancelSummary(s string) string {
	s = collapseSpace(s)
	switch {
	case s == "" || s == "cancelled":
		return "cancelled"
	case strings.HasPrefix(s, "cancelled:"):
		return "cancelled: " + collapseSpace(strings.TrimPrefix(s, "cancelled:"))
	}
	return "cancelled: " + s
}

// markRunningFromLive applies a live busy/retry observation to generation gen. A
// missing record or another generation is a no-op (false). A running record gets the
// activity update; sticky records (cancelled, reconciled, acknowledged stopped, or with a
// deadline claim) only get LastLiveBusyAt; an unacknowledged completed, error or stopped
// record is reopened (withdrawal) iff observedAt > CompletedAt, else only LastLiveBusyAt
// moves.
func (b *Board) markRunningFromLive(taskID string, gen uint64, observedAt time.Time) (Record, bool) {
	r, ok := b.records[taskID]
	if !ok || r.Generation != gen {
		return b.copyOf(taskID), false
	}
	r.LastLiveBusyAt = maxTime(r.LastLiveBusyAt, observedAt)
	switch {
	case r.State == StateRunning:
		b.activity(r, observedAt)
	case r.State == StateCancelled, r.State == StateReconciled, r.deadlineClaimed(),
		r.State == StateStopped && !r.TerminalUnreconciled:
		// sticky
	case (r.State == StateCompleted || r.State == StateError || r.State == StateStopped) &&
		r.TerminalUnreconciled && observedAt.After(r.CompletedAt):
		r.State = StateRunning
		r.TerminalRevision++
		r.TerminalState, r.ResultSummary = "", ""
		r.CompletedAt = timeZero
		r.TerminalUnreconciled = false
		b.activity(r, observedAt)
	}
	r.UpdatedAt = b.now()
	return r.clone(), true
}

// activity is the running-record part of a live busy observation.
func (b *Board) activity(r *Record, observedAt time.Time) {
	r.ActivityRevision++
	r.StopConfirmationStartedAt = timeZero
	r.RecoverableAfterLiveBusy = r.RecoverableAfterLiveBusy || r.TimedOut
	if !r.deadlineClaimed() {
		r.TimedOut = false
	}
	r.StatusUncertain, r.StatusUncertainSince, r.LastStatusError = false, timeZero, ""
	r.QueuedContinuation = false
	r.DeferredError = ""
	if observedAt.After(r.RunStartedAt) {
		r.Quarantined = false
	}
}

// running returns the record when it is running with generation gen.
func (b *Board) running(taskID string, gen uint64) (*Record, bool) {
	r, ok := b.records[taskID]
	if !ok || r.Generation != gen || r.State != StateRunning {
		return nil, false
	}
	return r, true
}

// noteStopConfirmation stamps the start of a stop confirmation on a running record of
// generation gen; the first stamp of an episode is kept.
func (b *Board) noteStopConfirmation(taskID string, gen uint64, at time.Time) (Record, bool) {
	r, ok := b.running(taskID, gen)
	if !ok {
		return b.copyOf(taskID), false
	}
	if r.StopConfirmationStartedAt.IsZero() {
		r.StopConfirmationStartedAt = at
		r.UpdatedAt = b.now()
	}
	return r.clone(), true
}

// markStatusUncertain marks a running record of generation gen uncertain with msg as
// LastStatusError; StatusUncertainSince is stamped once per episode.
func (b *Board) markStatusUncertain(taskID string, gen uint64, msg string) (Record, bool) {
	r, ok := b.running(taskID, gen)
	if !ok {
		return b.copyOf(taskID), false
	}
	now := b.now()
	if !r.StatusUncertain {
		r.StatusUncertain = true
		r.StatusUncertainSince = now
	}
	r.LastStatusError = msg
	r.UpdatedAt = now
	return r.clone(), true
}

// markTimedOut sets TimedOut and counts a timeout on a running record of generation gen.
func (b *Board) markTimedOut(taskID string, gen uint64) (Record, bool) {
	r, ok := b.running(taskID, gen)
	if !ok {
		return b.copyOf(taskID), false
	}
	r.TimedOut = true
	r.TimeoutCount++
	r.UpdatedAt = b.now()
	return r.clone(), true
}

// markQueuedContinuation records that a revive registered generation gen as a queued
// continuation whose transcript starts after baselineMessageID. A busy
// observation clears the flag.
func (b *Board) markQueuedContinuation(taskID string, gen uint64, baselineMessageID string) (Record, bool) {
	r, ok := b.running(taskID, gen)
	if !ok {
		return b.copyOf(taskID), false
	}
	r.QueuedContinuation = true
	r.BaselineMessageID = baselineMessageID
	return r.clone(), true
}

// markReconciled acknowledges terminal revision terminalRev of generation gen. Any
// mismatch, a running record, or a record that is neither terminal-unreconciled nor
// canonical terminal is a no-op (false). stopped only clears the unreconciled flag and the
// uncertainty; a canonical state becomes reconciled (TerminalState kept), uncertainty
// cleared unless a deadline was claimed, LastUsedAt = now. The retention trim runs.
func (b *Board) markReconciled(taskID string, gen, terminalRev uint64) (Record, bool) {
	r, ok := b.records[taskID]
	if !ok || r.Generation != gen || r.TerminalRevision != terminalRev || r.State == StateRunning {
		return b.copyOf(taskID), false
	}
	now := b.now()
	switch {
	case r.State == StateStopped && r.TerminalUnreconciled:
		r.TerminalUnreconciled = false
		r.StatusUncertain, r.StatusUncertainSince = false, timeZero
	case r.State.canonical():
		r.State = StateReconciled
		r.TerminalUnreconciled = false
		if !r.deadlineClaimed() {
			r.StatusUncertain, r.StatusUncertainSince = false, timeZero
		}
		r.LastUsedAt = now
	default:
		return r.clone(), false
	}
	r.UpdatedAt = now
	out := r.clone()
	b.trim(r.ParentID, r.Agent)
	return out, true
}

// shownEntry identifies one "Needs acknowledgement" line of a rendered view.
type shownEntry struct {
	TaskID                       string
	Generation, TerminalRevision uint64
}

// acknowledgeShown applies MarkReconciled to every shown entry that belongs to parentID and
// returns how many were acknowledged.
func (b *Board) acknowledgeShown(parentID string, shown []shownEntry) int {
	n := 0
	for _, s := range shown {
		if r, ok := b.records[s.TaskID]; !ok || r.ParentID != parentID {
			continue
		}
		if _, ok := b.markReconciled(s.TaskID, s.Generation, s.TerminalRevision); ok {
			n++
		}
	}
	return n
}

// markUsed records that the parent read or reused the task: LastUsedAt = max(now,
// CompletedAt + 1 ms). It returns false when ref does not resolve within parentID.
func (b *Board) markUsed(parentID, ref string) bool {
	r, ok := b.byRef(parentID, ref)
	if !ok {
		return false
	}
	t := b.now()
	if !r.CompletedAt.IsZero() {
		t = maxTime(t, r.CompletedAt.Add(time.Millisecond))
	}
	r.LastUsedAt = t
	return true
}

// noteActivity records host activity (a tool call, a part) for task_status.
func (b *Board) noteActivity(taskID string, at time.Time) {
	if r, ok := b.records[taskID]; ok {
		r.LastActivityAt = maxTime(r.LastActivityAt, at)
	}
}

// NoteContextFile records that the task read path with lines lines. Files under 10
// lines are ignored; one entry is kept per path (the latest); the 9 most recently read
// entries are kept.
func (b *Board) NoteContextFile(taskID, path string, lines int, at time.Time) {
	r, ok := b.records[taskID]
	if !ok || lines < minContextFileLines {
		return
	}
	files := r.contextFiles[:0:0]
	for _, f := range r.contextFiles {
		if f.Path != path {
			files = append(files, f)
		}
	}
	files = append(files, contextFile{Path: path, Lines: lines, LastReadAt: at})
	sort.SliceStable(files, func(i, j int) bool { return files[i].LastReadAt.After(files[j].LastReadAt) })
	if len(files) > maxContextFilesKept {
		files = files[:maxContextFilesKept]
	}
	r.contextFiles = files
}

// SetFallbackRecovering records whether the host is recovering the task on a fallback model.
func (b *Board) SetFallbackRecovering(taskID string, on bool) {
	if r, ok := b.records[taskID]; ok {
		r.FallbackRecovering = on
	}
}

// claimDeadline claims a running generation for the wall-clock supervisor: sets
// DeadlineExceededAt, TimedOut and CancellationRequested. Fails when the record is not
// running with that generation or was already claimed.
func (b *Board) claimDeadline(taskID string, gen uint64) (Record, bool) {
	r, ok := b.running(taskID, gen)
	if !ok || r.deadlineClaimed() {
		return b.copyOf(taskID), false
	}
	now := b.now()
	r.DeadlineExceededAt = now
	r.TimedOut = true
	r.CancellationRequested = true
	r.UpdatedAt = now
	return r.clone(), true
}

// finalizeClaim moves a running, claimed generation to error with TimedOut, TimeoutCount+1 and the
// summary "Task exceeded its wall-clock limit of <n> ms"; a non-empty uncertainty marks it
// uncertain. It emits the Terminal notice.
func (b *Board) finalizeClaim(taskID string, gen uint64, uncertainty string) (Record, bool) {
	r, ok := b.running(taskID, gen)
	if !ok || !r.deadlineClaimed() {
		return b.copyOf(taskID), false
	}
	b.finalizeDeadline(r, uncertainty)
	return r.clone(), true
}

func (b *Board) finalizeDeadline(r *Record, uncertainty string) {
	now := b.now()
	r.TimedOut = true
	r.TimeoutCount++
	r.TotalErrors++
	r.LastErrorAt = now
	r.TerminalState = StateError
	r.ResultSummary = fmt.Sprintf("Task exceeded its wall-clock limit of %d ms", b.opts.WallClock.Milliseconds())
	if uncertainty != "" {
		if !r.StatusUncertain {
			r.StatusUncertainSince = now
		}
		r.StatusUncertain = true
		r.LastStatusError = uncertainty
	}
	b.publish(r, StateError, now)
}

// Get returns a copy of taskID's record.
func (b *Board) Get(taskID string) (Record, bool) {
	r, ok := b.records[taskID]
	if !ok {
		return Record{}, false
	}
	return r.clone(), true
}

func (b *Board) copyOf(taskID string) Record {
	r, _ := b.Get(taskID)
	return r
}

// byRef resolves an exact task ID or alias within parentID.
func (b *Board) byRef(parentID, ref string) (*Record, bool) {
	if ref == "" {
		return nil, false
	}
	if r, ok := b.records[ref]; ok {
		if r.ParentID == parentID {
			return r, true
		}
		return nil, false
	}
	if id, ok := b.aliasIdx[aliasKey{parentID, ref}]; ok {
		return b.records[id], true
	}
	return nil, false
}

// Resolve returns the record that ref (an exact task ID or an alias) names within parentID.
// It never crosses parents: another parent's record is not found.
func (b *Board) Resolve(parentID, ref string) (Record, bool) {
	r, ok := b.byRef(parentID, ref)
	if !ok {
		return Record{}, false
	}
	return r.clone(), true
}

// Records returns copies of parentID's records ordered by launch time, then task ID.
func (b *Board) Records(parentID string) []Record {
	var out []Record
	for _, r := range b.ordered(parentID) {
		out = append(out, r.clone())
	}
	return out
}

// ordered returns parentID's records (not copies) by launch time, then task ID.
func (b *Board) ordered(parentID string) []*Record {
	out := make([]*Record, 0, len(b.children[parentID]))
	for id := range b.children[parentID] {
		out = append(out, b.records[id])
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LaunchedAt.Equal(out[j].LaunchedAt) {
			return out[i].LaunchedAt.Before(out[j].LaunchedAt)
		}
		return out[i].TaskID < out[j].TaskID
	})
	return out
}

// allRecords returns copies of every record, ordered by task ID.
func (b *Board) allRecords() []Record {
	out := make([]Record, 0, len(b.records))
	for _, id := range b.sortedIDs() {
		out = append(out, b.records[id].clone())
	}
	return out
}

// isTracked reports whether taskID has a record or a live lease.
func (b *Board) isTracked(taskID string) bool {
	_, rec := b.records[taskID]
	_, leased := b.leases[taskID]
	return rec || leased
}

// hasRunning reports whether parentID has a running, non-provisional child.
func (b *Board) hasRunning(parentID string) bool {
	for id := range b.children[parentID] {
		if r := b.records[id]; !r.Provisional && r.State == StateRunning {
			return true
		}
	}
	return false
}

// hasTerminalUnreconciled reports whether parentID has a non-provisional child whose terminal
// result was not acknowledged.
func (b *Board) hasTerminalUnreconciled(parentID string) bool {
	for id := range b.children[parentID] {
		if r := b.records[id]; !r.Provisional && r.TerminalUnreconciled {
			return true
		}
	}
	return false
}
