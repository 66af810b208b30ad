package taskboard

import (
	"fmt"
	"sort"
	"strconv"
)

// tombstone is the lifecycle ledger's entry for a deleted task ID.
type tombstone struct {
	reason        string
	parent, agent string // identity recorded at eviction
	state         State  // terminal payload recorded at eviction
	summary       string
}

// launchInput registers a launch. Lease is the relaunch lease of a resume; Early
// marks an event-driven registration, which is refused for tombstoned IDs and whenever a
// lease is live; PreserveRun records an observation of the current run (metadata merge,
// provisional promotion) instead of a relaunch.
type launchInput struct {
	TaskID, ParentID, Agent, Description, Objective string
	Background, PreserveRun, Provisional, Early     bool
	Lease                                           *leaseGrant
	// BaselineMessageID is the last transcript entry before this run (a resume): the
	// run's terminal evidence is read only after it.
	BaselineMessageID string
}

// adoptInput takes over a session the host verified.
type adoptInput struct {
	TaskID, ParentID, Agent string
	State                   State // running or a terminal state as verified by the host
	Summary                 string
}

// recordSuppression tombstones id unless it already is; a new tombstone gets a new
// deletion epoch.
func (b *Board) recordSuppression(id string, t tombstone) {
	if _, ok := b.tombs[id]; ok {
		return
	}
	b.tombs[id] = t
	b.nextEpoch++
	b.epochs[id] = b.nextEpoch
	b.tombQ = append(b.tombQ, tombRef{id, b.nextEpoch})
	b.capTombstones()
}

// tombRef orders tombstones by deletion epoch for the Options.MaxTombstones cap.
type tombRef struct {
	id    string
	epoch uint64
}

// capTombstones forgets the oldest tombstones beyond Options.MaxTombstones, with their
// deletion epochs when nothing else refers to the ID. Entries of tombstones cleared by a
// later registration are skipped, and the queue is compacted when they pile up.
func (b *Board) capTombstones() {
	for len(b.tombs) > b.opts.MaxTombstones && len(b.tombQ) > 0 {
		t := b.tombQ[0]
		b.tombQ = b.tombQ[1:]
		if b.epochs[t.id] != t.epoch {
			continue
		}
		if _, ok := b.tombs[t.id]; !ok {
			continue
		}
		delete(b.tombs, t.id)
		b.pruneEpoch(t.id)
	}
	if len(b.tombQ) > 2*b.opts.MaxTombstones+16 {
		q := make([]tombRef, 0, len(b.tombs))
		for _, t := range b.tombQ {
			if _, ok := b.tombs[t.id]; ok && b.epochs[t.id] == t.epoch {
				q = append(q, t)
			}
		}
		b.tombQ = q
	}
}

// pruneEpoch forgets id's deletion epoch when no record, tombstone or lease refers to it.
func (b *Board) pruneEpoch(id string) {
	_, rec := b.records[id]
	_, tomb := b.tombs[id]
	_, leased := b.leases[id]
	if !rec && !tomb && !leased {
		delete(b.epochs, id)
	}
}

// tombstoned reports whether taskID was deleted and not registered again since.
func (b *Board) tombstoned(taskID string) bool {
	_, ok := b.tombs[taskID]
	return ok
}

// deletionEpoch returns the epoch of taskID's last deletion. It survives a later
// registration, so revive and cancel can detect a deletion across their awaits.
func (b *Board) deletionEpoch(taskID string) (uint64, bool) {
	e, ok := b.epochs[taskID]
	return e, ok
}

// tombstoneReason returns why taskID is tombstoned, if it is.
func (b *Board) tombstoneReason(taskID string) (string, bool) {
	t, ok := b.tombs[taskID]
	return t.reason, ok
}

func launchErr(kind error, id, what string) error {
	return toolErr(kind, fmt.Sprintf("Cannot register launch for %s: %s", id, what))
}

// registerLaunch records a launch of in.TaskID. The lease checks run first: a
// presented lease must be a valid relaunch lease for this ID and the record's current
// generation (else ErrStaleLease); a live lease must be that presented lease (else
// ErrLeaseHeld). Early registrations fail with ErrTombstoned or ErrLeaseHeld. Then the
// tombstone is cleared (the epoch is kept) and a generation drawn; an existing record is
// either merged (PreserveRun, the draw is discarded) or relaunched; a new record starts
// running with an allocated alias. A new run emits a Launched notice.
func (b *Board) registerLaunch(in launchInput) (Record, error) {
	id := in.TaskID
	if id == "" {
		return Record{}, toolErr(ErrInvalidArgs, "Cannot register launch: task ID is empty")
	}
	live, leased := b.leases[id]
	if in.Early {
		if b.tombstoned(id) {
			return Record{}, launchErr(ErrTombstoned, id, "the session was deleted")
		}
		if leased {
			return Record{}, launchErr(ErrLeaseHeld, id, fmt.Sprintf("a %s lease already owns this session", live.Kind))
		}
	}
	r, exists := b.records[id]
	if in.Lease != nil {
		l := *in.Lease
		if l.Kind != leaseRelaunch || l.TaskID != id || !b.validate(l) || !exists || r.Generation != l.Generation {
			return Record{}, launchErr(ErrStaleLease, id, "relaunch lease is missing, stale, or belongs to another generation")
		}
	}
	if leased && (in.Lease == nil || in.Lease.Token != live.Token) {
		return Record{}, launchErr(ErrLeaseHeld, id, fmt.Sprintf("a %s lease already owns this session", live.Kind))
	}
	delete(b.tombs, id)
	b.nextGen++
	gen := b.nextGen
	now := b.now()

	if exists && in.PreserveRun {
		if in.Agent != "" {
			r.Agent = in.Agent
		}
		if in.Description != "" {
			r.Description = in.Description
		}
		if in.Objective != "" {
			r.Objective = in.Objective
		}
		if in.Background {
			r.Background = true
		}
		if r.Provisional && !in.Provisional {
			r.Provisional = false
			if r.State != StateRunning {
				b.emit(noticeTerminal, r)
			}
		}
		r.UpdatedAt = now
		out := r.clone()
		b.trim(r.ParentID, r.Agent) // a changed agent moves the record into another pool
		return out, nil
	}
	if exists {
		r.Generation = gen
		r.TaskGeneration++
		r.TerminalRevision, r.ActivityRevision = 0, 0
		r.State, r.TerminalState = StateRunning, ""
		r.TimedOut, r.RecoverableAfterLiveBusy, r.StatusUncertain = false, false, false
		r.StatusUncertainSince = timeZero
		r.CancellationRequested, r.TerminalUnreconciled = false, false
		r.CompletedAt, r.DeadlineExceededAt, r.StopConfirmationStartedAt = timeZero, timeZero, timeZero
		r.ResultSummary, r.LastStatusError, r.DeferredError = "", "", ""
		r.QueuedContinuation, r.FallbackRecovering = false, false
		r.BaselineMessageID = in.BaselineMessageID
		r.LastLaunchedAt, r.RunStartedAt, r.LastLiveBusyAt, r.LastUsedAt, r.UpdatedAt = now, now, now, now, now
		r.Quarantined = r.TaskGeneration > 1
		if in.Agent != "" {
			r.Agent = in.Agent
		}
		if in.Description != "" {
			r.Description = in.Description
		}
		if in.Objective != "" {
			r.Objective = in.Objective
		}
		r.Background = in.Background
		r.Provisional = in.Provisional
		b.emit(noticeLaunched, r)
		return r.clone(), nil
	}
	desc := in.Description
	if desc == "" {
		desc = "background " + in.Agent + " task"
	}
	r = &Record{
		TaskID: id, ParentID: in.ParentID, Agent: in.Agent, Description: desc,
		Objective: in.Objective, Background: in.Background, Provisional: in.Provisional,
		Origin: originLaunched, PluginLaunched: true,
		Generation: gen, TaskGeneration: 1, State: StateRunning,
		LaunchedAt: now, LastLaunchedAt: now, RunStartedAt: now, LastLiveBusyAt: now,
		LastUsedAt: now, UpdatedAt: now,
	}
	r.Alias = b.allocAlias(in.ParentID, in.Agent, id)
	b.put(r)
	b.emit(noticeLaunched, r)
	return r.clone(), nil
}

// allocAlias returns <prefix>-<n> from the per-(parent, prefix) counter, or the task ID
// when numbered aliases are deferred for a parent the board never saw managed.
func (b *Board) allocAlias(parent, agent, id string) string {
	if b.opts.DeferNumberedAliases && !b.managed[parent] {
		return id
	}
	p := aliasPrefix(agent)
	k := aliasKey{parent, p}
	for {
		b.aliases[k]++
		a := p + "-" + strconv.FormatUint(b.aliases[k], 10)
		if _, clash := b.byRef(parent, a); !clash {
			return a
		}
	}
}

// adopt takes over an untracked session the host verified as a child of in.ParentID.
// Errors: ErrLeaseHeld when a lease is live for the ID, ErrExists when a record exists,
// ErrTombstoned when the ID is tombstoned (unless by eviction with the same parent and
// agent, in which case the tombstone is cleared and the epoch kept), ErrInvalidArgs for an
// empty ID or a state that is not running or terminal.
func (b *Board) adopt(in adoptInput) (Record, error) {
	id := in.TaskID
	if id == "" {
		return Record{}, toolErr(ErrInvalidArgs, "Cannot adopt: task ID is empty")
	}
	st := in.State
	if st == "" {
		st = StateRunning
	}
	if st != StateRunning && !st.terminal() {
		return Record{}, toolErr(ErrInvalidArgs, fmt.Sprintf("Cannot adopt %s: state %s is not running or terminal", id, st))
	}
	if l, ok := b.leases[id]; ok {
		return Record{}, toolErr(ErrLeaseHeld, fmt.Sprintf("Cannot adopt %s: a %s lease already owns this session", id, l.Kind))
	}
	if _, ok := b.records[id]; ok {
		return Record{}, toolErr(ErrExists, fmt.Sprintf("Cannot adopt %s: it is already tracked", id))
	}
	if t, ok := b.tombs[id]; ok {
		if t.reason != reasonEvicted || t.parent != in.ParentID || t.agent != in.Agent {
			return Record{}, toolErr(ErrTombstoned, fmt.Sprintf("Cannot adopt %s: the session was deleted from this board", id))
		}
		delete(b.tombs, id)
	}
	b.nextGen++
	now := b.now()
	r := &Record{
		TaskID: id, ParentID: in.ParentID, Agent: in.Agent, Alias: id,
		Description: "background " + in.Agent + " task", Origin: originAdopted,
		RecoveredWithoutPrompt: true, Generation: b.nextGen, TaskGeneration: 1, State: st,
		LaunchedAt: now, LastLaunchedAt: now, RunStartedAt: now, LastLiveBusyAt: now,
		LastUsedAt: now, UpdatedAt: now,
	}
	if st != StateRunning {
		r.TerminalUnreconciled = true
		r.TerminalRevision = 1
		r.CompletedAt = now
		r.ResultSummary = in.Summary
		if st.canonical() {
			r.TerminalState = st
		}
		if st == StateStopped {
			r.ResultSummary = stoppedSummary
		}
		if st == StateCancelled {
			r.CancellationRequested = true
		}
	}
	b.put(r)
	return r.clone(), nil
}

// Drop deletes and tombstones taskID's record, emitting no notice.
func (b *Board) Drop(taskID string) {
	if _, ok := b.records[taskID]; !ok {
		return
	}
	b.recordSuppression(taskID, tombstone{reason: reasonDropped})
	b.remove(taskID)
}

// ClearParent drops every record whose parent is parentID.
func (b *Board) ClearParent(parentID string) {
	for _, id := range b.childIDs(parentID) {
		b.recordSuppression(id, tombstone{reason: reasonParentCleared})
		b.remove(id)
	}
}

// trim runs the retention trims for (parent, agent) over the reusable pool and the
// retained-stopped pool. Leased records neither count nor get evicted. Evictions run
// in a fixed order (over-budget records by task ID, then each pool from its least recently
// used end), so deletion epochs are deterministic.
func (b *Board) trim(parent, agent string) {
	var over, reusable, retained []*Record
	for id := range b.children[parent] {
		r := b.records[id]
		if r.Agent != agent {
			continue
		}
		if _, leased := b.leases[id]; leased {
			continue
		}
		switch {
		case r.reusableIgnoringBudget() && r.contextLines() > b.opts.MaxContextLines:
			over = append(over, r)
		case r.reusableIgnoringBudget():
			reusable = append(reusable, r)
		case r.retainedStopped():
			retained = append(retained, r)
		}
	}
	sort.Slice(over, func(i, j int) bool { return over[i].TaskID < over[j].TaskID })
	for _, r := range over {
		b.evict(r)
	}
	for _, pool := range [][]*Record{reusable, retained} {
		if len(pool) <= b.opts.MaxReusablePerAgent {
			continue
		}
		// Most recently used first; ties: higher generation (generations are unique).
		sort.Slice(pool, func(i, j int) bool {
			if !pool[i].LastUsedAt.Equal(pool[j].LastUsedAt) {
				return pool[i].LastUsedAt.After(pool[j].LastUsedAt)
			}
			return pool[i].Generation > pool[j].Generation
		})
		for _, r := range pool[b.opts.MaxReusablePerAgent:] {
			b.evict(r)
		}
	}
}

func (b *Board) evict(r *Record) {
	b.recordSuppression(r.TaskID, tombstone{
		reason: reasonEvicted, parent: r.ParentID, agent: r.Agent,
		state: r.EffectiveState(), summary: r.ResultSummary,
	})
	b.remove(r.TaskID)
}

// put stores a record and indexes it by parent and alias.
func (b *Board) put(r *Record) {
	b.records[r.TaskID] = r
	kids := b.children[r.ParentID]
	if kids == nil {
		kids = map[string]struct{}{}
		b.children[r.ParentID] = kids
	}
	kids[r.TaskID] = struct{}{}
	b.aliasIdx[aliasKey{r.ParentID, r.Alias}] = r.TaskID
}

// remove deletes a record and its index entries.
func (b *Board) remove(id string) {
	r, ok := b.records[id]
	if !ok {
		return
	}
	delete(b.records, id)
	if kids := b.children[r.ParentID]; kids != nil {
		delete(kids, id)
		if len(kids) == 0 {
			delete(b.children, r.ParentID)
		}
	}
	if b.aliasIdx[aliasKey{r.ParentID, r.Alias}] == id {
		delete(b.aliasIdx, aliasKey{r.ParentID, r.Alias})
	}
}

// childIDs returns the task IDs whose parent is parentID, sorted.
func (b *Board) childIDs(parentID string) []string {
	kids := b.children[parentID]
	ids := make([]string, 0, len(kids))
	for id := range kids {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (b *Board) sortedIDs() []string {
	ids := make([]string, 0, len(b.records))
	for id := range b.records {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
