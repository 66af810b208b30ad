package taskboard

import (
	"errors"
	"fmt"
	"pgregory.net/rapid"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The §6 state machine: one Board with a manual clock, driven by any interleaving of board
// operations and of lease-holding host operations (cancel aborts, message writes,
// notification sends, revive admissions, compensation) that settle with success, failure,
// late after their deadline, or never. A dumb model — maps and straight-line rules written
// from the spec, sharing no code with the board — predicts every result; the invariants of
// §6 that concern the board are checked after every step.

// Where each invariant of §6 is checked:
//
//	1, 4, 12       checkBoardStructure (both machines) and sm.checkLeases
//	2              sm.issue (a token issued twice panics), psm.Check (seen/gone tokens)
//	3, 5, 6, 14-17 the model's predictions of Release, Acquire, RegisterLaunch, Adopt,
//	19, 20, 22     CommitTerminal, MarkRunningFromLive, MarkReconciled, with notices
//	7              sm.Tick (records and leases unchanged by the clock alone)
//	8              sm.OpSettle (late abstract settlements), psm.Settle (late machine replies)
//	9              psm.checkReply (message outcomes)
//	10             sm.syncEvictions, sm.checkPools
//	11, 26, 28, 29 psm.checkProceed (preconditions at Dispatch), psm.Check (38)
//	13, 18, 21, 23 checkBoardStructure, sm.checkRecords, sm.checkLedger
//	24, 25         sm.OpSettle (abstract compensation), psm.Check (compensation machine)
//	27, 30, 31     psm.checkReply
//	32             psm.exec (Proceed only for awaited calls, nothing after Close)
//	33-35          the model's stop rule and uncertainty marks; IdleSequence, NonBusyReading
//	36             sm.WaitForUser, sm.UserMessage, sm.HostDeleted, sm.Check
//	37             psm.Bogus, psm.Duplicate, psm.deliver (nothing after Done)
//	38             psm.Check (Done ⇒ no pending call; leases left only by the test or
//	               compensation)
//	39             psm.Settle settles at the deadline instant (tick rule) at random; the
//	               outcome checks above hold either way
//	40             TestDeterminism (board_determinism_test.go)

type mrec struct {
	id, parent, agent, alias                           string
	gen, taskGen, rev                                  uint64
	state, term                                        State
	unrec, uncertain, cancelReq, timedOut, claim, quar bool
	provisional, fallback                              bool
	deferred                                           string
	completedAt, lastBusy, stopConfirm, runStarted     time.Time
	lastUsed                                           time.Time // the retention trims evict the least recently used first
}

type mtomb struct {
	reason        string
	parent, agent string
}

type expNotice struct {
	kind string
	id   string
}

type model struct {
	waiting   map[string]bool   // armed wait_for_user latches
	lastUser  map[string]string // last real user message identity per session
	recs      map[string]*mrec
	leases    map[string]leaseGrant
	tombs     map[string]mtomb
	nextGen   uint64
	nextToken uint64
	aliasNext map[[2]string]uint64
	cap       int
	grace     time.Duration
	notices   []expNotice
	now       func() time.Time
}

func newModel(cap int, now func() time.Time) *model {
	return &model{now: now,
		waiting: map[string]bool{}, lastUser: map[string]string{},
		recs: map[string]*mrec{}, leases: map[string]leaseGrant{}, tombs: map[string]mtomb{},
		aliasNext: map[[2]string]uint64{}, cap: cap, grace: 5 * time.Second,
	}
}

func (m *model) terminalPublish(r *mrec, st, term State, now time.Time) {
	r.state, r.term = st, term
	r.unrec = true
	if r.completedAt.IsZero() {
		r.completedAt = now
	}
	r.stopConfirm = time.Time{}
	r.deferred = ""
	r.rev++
	m.notices = append(m.notices, expNotice{noticeTerminal, r.id})
}

// commit predicts CommitTerminal.
func (m *model) commit(id string, gen uint64, st State, l *leaseGrant, at, now time.Time) gateResult {
	r, ok := m.recs[id]
	if !ok || r.state != StateRunning || r.gen != gen {
		return gateStale
	}
	switch st {
	case StateCompleted, StateError, StateCancelled, StateStopped:
	default:
		return gateStale
	}
	if r.claim {
		if st == StateCompleted || st == StateStopped {
			return gateStale
		}
		r.timedOut = true
		m.terminalPublish(r, StateError, StateError, now)
		return gateCommitted
	}
	switch st {
	case StateCancelled:
		if l != nil && !m.validate(*l) {
			return gateStale // a presented lease must be live (ForceRelease fences it)
		}
		if live, leased := m.leases[id]; leased {
			if l == nil || l.Kind != leaseCancellation || l.Token != live.Token || l.Generation != live.Generation || live.Kind != leaseCancellation || live.Generation != gen {
				return gateStale
			}
		}
		r.cancelReq = true
		m.terminalPublish(r, st, st, now)
	case StateStopped:
		if at.IsZero() {
			at = now
		}
		if !r.lastBusy.Before(at) {
			return gateStale
		}
		m.terminalPublish(r, st, "", now)
	default:
		m.terminalPublish(r, st, st, now)
	}
	return gateCommitted
}

func (m *model) activity(r *mrec, at time.Time) {
	r.stopConfirm = time.Time{}
	if !r.claim {
		r.timedOut = false
	}
	r.uncertain = false
	r.deferred = ""
	if at.After(r.runStarted) {
		r.quar = false
	}
}

// busy predicts MarkRunningFromLive.
func (m *model) busy(id string, gen uint64, at time.Time) bool {
	r, ok := m.recs[id]
	if !ok || r.gen != gen {
		return false
	}
	if at.After(r.lastBusy) {
		r.lastBusy = at
	}
	switch {
	case r.state == StateRunning:
		m.activity(r, at)
	case r.state == StateCancelled || r.state == StateReconciled || r.claim:
	case r.state == StateStopped && !r.unrec:
	case r.unrec && at.After(r.completedAt):
		r.state, r.term = StateRunning, ""
		r.rev++
		r.completedAt = time.Time{}
		r.unrec = false
		m.activity(r, at)
	}
	return true
}

// fenced predicts the event fence of R87.
func (m *model) fenced(id string, gen *uint64, busy bool, at time.Time) (*mrec, bool) {
	r, ok := m.recs[id]
	if !ok {
		return nil, false
	}
	if gen != nil {
		return r, *gen == r.gen
	}
	if r.quar && (!busy || !at.After(r.runStarted)) {
		return r, false
	}
	return r, true
}

func (m *model) uncertainMark(id string, gen uint64) bool {
	r, ok := m.recs[id]
	if !ok || r.gen != gen || r.state != StateRunning {
		return false
	}
	r.uncertain = true
	return true
}

func (m *model) stopCandidate(id string, gen uint64, at, now time.Time) gateResult {
	r, ok := m.recs[id]
	if !ok || r.gen != gen || r.state != StateRunning || r.claim {
		return gateStale
	}
	if r.deferred != "" {
		return m.commit(id, gen, StateError, nil, at, now)
	}
	if r.stopConfirm.IsZero() {
		r.stopConfirm = at
		r.uncertain = true
		return gateDeferred
	}
	if at.Sub(r.stopConfirm) >= m.grace && r.lastBusy.Before(r.stopConfirm) {
		return m.commit(id, gen, StateStopped, nil, at, now)
	}
	return gateDeferred
}

func (m *model) reconcile(id string, gen, rev uint64) bool {
	r, ok := m.recs[id]
	if !ok || r.gen != gen || r.rev != rev || r.state == StateRunning {
		return false
	}
	switch {
	case r.state == StateStopped && r.unrec:
		r.unrec, r.uncertain = false, false
	case r.state == StateCompleted || r.state == StateError || r.state == StateCancelled:
		r.state = StateReconciled
		r.lastUsed = m.now() // only a canonical acknowledgement counts as a use
		r.unrec = false
		if !r.claim {
			r.uncertain = false
		}
	default:
		return false
	}
	return true
}

func (m *model) tombstone(id string, t mtomb) {
	if _, ok := m.tombs[id]; !ok {
		m.tombs[id] = t
	}
}

func (m *model) drop(id string, reason string) {
	if _, ok := m.recs[id]; ok {
		m.tombstone(id, mtomb{reason: reason})
		delete(m.recs, id)
	}
}

func (m *model) clearParent(p string) {
	for id, r := range m.recs {
		if r.parent == p {
			m.tombstone(id, mtomb{reason: reasonParentCleared})
			delete(m.recs, id)
		}
	}
}

func (m *model) validate(l leaseGrant) bool {
	live, ok := m.leases[l.TaskID]
	if !ok || live.Token != l.Token || live.Kind != l.Kind || live.Generation != l.Generation {
		return false
	}
	if l.Kind == leaseNotification {
		r, ok := m.recs[l.TaskID]
		return ok && r.rev == live.TerminalRevision && l.TerminalRevision == live.TerminalRevision
	}
	return true
}

func (m *model) acquire(kind leaseKind, id string, gen uint64, rev *uint64) (leaseGrant, bool) {
	if _, ok := m.leases[id]; ok {
		return leaseGrant{}, false
	}
	r, ok := m.recs[id]
	if !ok || r.gen != gen {
		return leaseGrant{}, false
	}
	l := leaseGrant{TaskID: id, Kind: kind, Generation: gen, Owner: ownerCaller}
	switch kind {
	case leaseCancellation, leaseMessage:
		if r.state != StateRunning {
			return leaseGrant{}, false
		}
	case leaseRelaunch:
	case leaseNotification:
		okState := r.state == StateCompleted || r.state == StateError ||
			(r.state == StateReconciled && (r.term == StateCompleted || r.term == StateError))
		if !okState || (rev != nil && *rev != r.rev) {
			return leaseGrant{}, false
		}
		l.TerminalRevision = r.rev
	default:
		return leaseGrant{}, false
	}
	m.nextToken++
	l.Token = m.nextToken
	m.leases[id] = l
	return l, true
}

func (m *model) release(l leaseGrant) bool {
	live, ok := m.leases[l.TaskID]
	if !ok || live.Token != l.Token || live.Kind != l.Kind || live.Generation != l.Generation || live.TerminalRevision != l.TerminalRevision {
		return false
	}
	delete(m.leases, l.TaskID)
	m.notices = append(m.notices, expNotice{noticeLeaseReleased, l.TaskID})
	return true
}

func (m *model) register(in launchInput, now time.Time) error {
	id := in.TaskID
	live, leased := m.leases[id]
	if in.Early {
		if _, t := m.tombs[id]; t {
			return ErrTombstoned
		}
		if leased {
			return ErrLeaseHeld
		}
	}
	r, exists := m.recs[id]
	if in.Lease != nil {
		l := *in.Lease
		if l.Kind != leaseRelaunch || l.TaskID != id || !m.validate(l) || !exists || r.gen != l.Generation {
			return ErrStaleLease
		}
	}
	if leased && (in.Lease == nil || in.Lease.Token != live.Token) {
		return ErrLeaseHeld
	}
	delete(m.tombs, id)
	m.nextGen++
	if exists && in.PreserveRun {
		if in.Agent != "" {
			r.agent = in.Agent
		}
		if r.provisional && !in.Provisional {
			r.provisional = false
			if r.state != StateRunning {
				m.notices = append(m.notices, expNotice{noticeTerminal, id})
			}
		}
		return nil
	}
	if exists {
		*r = mrec{id: id, parent: r.parent, agent: r.agent, alias: r.alias, gen: m.nextGen, taskGen: r.taskGen + 1,
			state: StateRunning, lastBusy: now, runStarted: now, provisional: in.Provisional, lastUsed: now}
		r.quar = r.taskGen > 1
		if in.Agent != "" {
			r.agent = in.Agent
		}
		m.notices = append(m.notices, expNotice{noticeLaunched, id})
		return nil
	}
	prefix := map[string]string{"explorer": "exp", "oracle": "ora"}[in.Agent]
	k := [2]string{in.ParentID, prefix}
	m.aliasNext[k]++
	m.recs[id] = &mrec{id: id, parent: in.ParentID, agent: in.Agent, alias: fmt.Sprintf("%s-%d", prefix, m.aliasNext[k]),
		gen: m.nextGen, taskGen: 1, state: StateRunning, lastBusy: now, runStarted: now, provisional: in.Provisional, lastUsed: now}
	m.notices = append(m.notices, expNotice{noticeLaunched, id})
	return nil
}

func (m *model) adopt(in adoptInput, now time.Time) error {
	if _, ok := m.leases[in.TaskID]; ok {
		return ErrLeaseHeld
	}
	if _, ok := m.recs[in.TaskID]; ok {
		return ErrExists
	}
	if t, ok := m.tombs[in.TaskID]; ok {
		if t.reason != reasonEvicted || t.parent != in.ParentID || t.agent != in.Agent {
			return ErrTombstoned
		}
		delete(m.tombs, in.TaskID)
	}
	m.nextGen++
	r := &mrec{id: in.TaskID, parent: in.ParentID, agent: in.Agent, alias: in.TaskID, gen: m.nextGen, taskGen: 1,
		state: in.State, lastBusy: now, runStarted: now, lastUsed: now}
	if in.State != StateRunning {
		r.unrec, r.rev, r.completedAt = true, 1, now
		if in.State != StateStopped {
			r.term = in.State
		}
		r.cancelReq = in.State == StateCancelled
	}
	m.recs[in.TaskID] = r
	return nil
}

// poolMember reports whether a record may be evicted by the retention trims.
func (m *model) poolMember(r *mrec) (string, bool) {
	if _, leased := m.leases[r.id]; leased {
		return "", false
	}
	eff := r.state
	if r.state == StateReconciled {
		eff = r.term
	}
	canonical := eff == StateCompleted || eff == StateError || eff == StateCancelled
	switch {
	case canonical && !r.unrec && !r.uncertain:
		return "reusable", true
	case r.state == StateStopped && !r.unrec && !r.uncertain:
		return "retained", true
	}
	return "", false
}

// op is a lease-holding host operation in flight.
type op struct {
	kind    string // cancel, message, notify, revive, compensation
	lease   leaseGrant
	late    bool // its deadline passed while the host call was pending
	done    bool
	forever bool // unconfirmed compensation: the lease is kept for the board's life
}

type sm struct {
	b       *Board
	clk     *manualClock
	m       *model
	issued  []leaseGrant
	ops     []*op
	ids     []string
	parents []string
	agents  []string

	tokens     map[uint64]bool
	maxGen     uint64
	genOf      map[string]uint64
	maxEpoch   uint64
	epochOf    map[string]uint64
	aliasOwner map[[2]string]string
	compAborts map[uint64]int // compensation aborts per lease token
}

func TestStateMachine(t *testing.T) { rapid.Check(t, boardMachine) }

// FuzzStateMachine runs the same state machine under go test -fuzz (the fuzzer's bytes
// drive rapid's choices).
func FuzzStateMachine(f *testing.F) {
	// rapid reads its draws from the fuzz input 8 bytes at a time, and skips an input that
	// runs out before the machine is built; these seeds are long enough to run whole.
	for _, seed := range rapidSeeds(4096) {
		f.Add(seed)
	}
	f.Fuzz(rapid.MakeFuzz(boardMachine))
}

// rapidSeeds returns deterministic fuzz seeds of n bytes for properties run through
// rapid.MakeFuzz: all zeros (rapid's simplest choices) and two xorshift streams.
func rapidSeeds(n int) [][]byte {
	seeds := [][]byte{make([]byte, n)}
	for _, x := range []uint32{2463534242, 88675123} {
		b := make([]byte, n)
		for i := range b {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b[i] = byte(x)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

func boardMachine(rt *rapid.T) {
	cap := rapid.IntRange(1, 2).Draw(rt, "cap")
	clk := newManualClock(t0)
	b, err := NewBoard(Options{Clock: clk, MaxReusablePerAgent: cap, WallClock: time.Minute})
	if err != nil {
		rt.Fatal(err)
	}
	s := &sm{
		b: b, clk: clk, m: newModel(cap, clk.Now),
		ids:     []string{"ses_a", "ses_b", "ses_c", "ses_d"},
		parents: []string{"par-A", "par-B", "ses_a"},
		agents:  []string{"explorer", "oracle"},
		tokens:  map[uint64]bool{}, genOf: map[string]uint64{}, epochOf: map[string]uint64{},
		aliasOwner: map[[2]string]string{}, compAborts: map[uint64]int{},
	}
	rt.Repeat(rapid.StateMachineActions(s))
}

func (s *sm) now() time.Time { return s.b.now() }

func (s *sm) pickID(t *rapid.T) string { return rapid.SampledFrom(s.ids).Draw(t, "id") }

// pickParent and pickAgent favour one (parent, agent) pool so retention trims happen.
func (s *sm) pickParent(t *rapid.T) string {
	return rapid.SampledFrom([]string{s.parents[0], s.parents[0], s.parents[1]}).Draw(t, "parent")
}

func (s *sm) pickAgent(t *rapid.T) string {
	return rapid.SampledFrom([]string{s.agents[0], s.agents[0], s.agents[1]}).Draw(t, "agent")
}

// RunToAck is a macro: launch the ID when it is not running, publish a terminal state for
// its current generation, acknowledge it. Each step goes through the model like the single
// actions, so long lifecycles (and full retention pools) are reached in few steps.
func (s *sm) RunToAck(t *rapid.T) {
	id := s.pickID(t)
	if r, ok := s.m.recs[id]; !ok || r.state != StateRunning {
		in := launchInput{TaskID: id, ParentID: s.pickParent(t), Agent: s.pickAgent(t)}
		want := s.m.register(in, s.now())
		_, got := s.b.registerLaunch(in)
		s.sameErr(t, "RegisterLaunch", got, want)
		if got != nil {
			return
		}
	}
	s.clk.Advance(time.Millisecond)
	r := s.m.recs[id]
	st := rapid.SampledFrom([]State{StateCompleted, StateError, StateCancelled, StateStopped}).Draw(t, "state")
	want := s.m.commit(id, r.gen, st, nil, s.now(), s.now())
	if _, got := s.b.commitTerminal(commitInput{TaskID: id, Generation: r.gen, State: st, Summary: "x", ObservedAt: s.now()}); got != want {
		t.Fatalf("CommitTerminal(%s, %s) = %s, model %s", id, st, got, want)
	}
	if rapid.Bool().Draw(t, "ack") {
		wantAck := s.m.reconcile(id, r.gen, r.rev)
		if _, got := s.b.markReconciled(id, r.gen, r.rev); got != wantAck {
			t.Fatalf("MarkReconciled(%s) = %v, model %v", id, got, wantAck)
		}
	}
}

// pickGen draws a generation: the current one, a stale or future one, or any.
func (s *sm) pickGen(t *rapid.T, id string) uint64 {
	cur := uint64(0)
	if r, ok := s.m.recs[id]; ok {
		cur = r.gen
	}
	switch rapid.IntRange(0, 3).Draw(t, "genKind") {
	case 0, 1:
		return cur
	case 2:
		if cur > 0 {
			return cur - 1
		}
		return 0
	}
	return rapid.Uint64Range(0, s.m.nextGen+1).Draw(t, "gen")
}

func (s *sm) pickLease(t *rapid.T) (leaseGrant, bool) {
	if len(s.issued) == 0 {
		return leaseGrant{}, false
	}
	l := rapid.SampledFrom(s.issued).Draw(t, "lease")
	switch rapid.IntRange(0, 5).Draw(t, "leaseMut") {
	case 0:
		l.Token++
	case 1:
		l.Generation++
	case 2:
		l.TerminalRevision++
	}
	return l, true
}

func (s *sm) issue(l leaseGrant) {
	if s.tokens[l.Token] {
		panic(fmt.Sprintf("token %d issued twice", l.Token))
	}
	s.tokens[l.Token] = true
	s.issued = append(s.issued, l)
}

// --- board operations -------------------------------------------------------------------

func (s *sm) Launch(t *rapid.T) {
	in := launchInput{
		TaskID: s.pickID(t), ParentID: s.pickParent(t),
		Agent:       s.pickAgent(t),
		PreserveRun: rapid.IntRange(0, 4).Draw(t, "preserve") == 0,
		Early:       rapid.IntRange(0, 4).Draw(t, "early") == 0,
		Provisional: rapid.IntRange(0, 6).Draw(t, "provisional") == 0,
	}
	if rapid.Bool().Draw(t, "withLease") {
		if l, ok := s.pickLease(t); ok {
			in.Lease = &l
		}
	}
	want := s.m.register(in, s.now())
	_, got := s.b.registerLaunch(in)
	s.sameErr(t, "RegisterLaunch", got, want)
}

func (s *sm) Acquire(t *rapid.T) {
	id := s.pickID(t)
	kind := rapid.SampledFrom(leaseKinds[:]).Draw(t, "kind")
	gen := s.pickGen(t, id)
	var rev *uint64
	if rapid.Bool().Draw(t, "withRev") {
		v := uint64(0)
		if r, ok := s.m.recs[id]; ok {
			v = r.rev
		}
		v -= uint64(rapid.IntRange(0, 1).Draw(t, "revBack"))
		rev = &v
	}
	wl, wok := s.m.acquire(kind, id, gen, rev)
	gl, gok := s.b.acquire(kind, id, gen, rev)
	if wok != gok || wl != gl {
		t.Fatalf("Acquire(%s, %s, %d): board %v %+v, model %v %+v", kind, id, gen, gok, gl, wok, wl)
	}
	if gok {
		s.issue(gl)
	}
}

func (s *sm) Release(t *rapid.T) {
	l, ok := s.pickLease(t)
	if !ok {
		t.Skip("no lease issued")
	}
	want := s.m.release(l)
	if got := s.b.release(l); got != want {
		t.Fatalf("Release(%+v) = %v, model %v", l, got, want)
	}
}

func (s *sm) HandOver(t *rapid.T) {
	l, ok := s.pickLease(t)
	if !ok {
		t.Skip("no lease issued")
	}
	to := rapid.SampledFrom([]leaseOwner{ownerCaller, ownerAdmission, ownerCompensation}).Draw(t, "to")
	live, isLive := s.m.leases[l.TaskID]
	want := s.m.validate(l) && l.Kind == leaseRelaunch && isLive &&
		((live.Owner == ownerCaller && to == ownerAdmission) ||
			(live.Owner == ownerAdmission && to == ownerCompensation))
	got, gok := s.b.handOver(l, to)
	if gok != want {
		t.Fatalf("HandOver(%+v, %s) = %v, model %v", l, to, gok, want)
	}
	if gok {
		if got.Token != live.Token || got.Owner != to {
			t.Fatalf("HandOver changed the token or owner: %+v", got)
		}
		live.Owner = to
		s.m.leases[l.TaskID] = live
	}
}

func (s *sm) Commit(t *rapid.T) {
	id := s.pickID(t)
	st := rapid.SampledFrom([]State{StateCompleted, StateError, StateCancelled,
		StateStopped, StateRunning, StateReconciled}).Draw(t, "state")
	gen := s.pickGen(t, id)
	var l *leaseGrant
	if rapid.Bool().Draw(t, "withLease") {
		if pl, ok := s.pickLease(t); ok {
			l = &pl
		}
	}
	at := s.now().Add(-time.Duration(rapid.IntRange(0, 3000).Draw(t, "ago")) * time.Millisecond)
	want := s.m.commit(id, gen, st, l, at, s.now())
	_, got := s.b.commitTerminal(commitInput{TaskID: id, Generation: gen, State: st, Summary: "x", Lease: l, ObservedAt: at})
	if got != want {
		t.Fatalf("CommitTerminal(%s, %d, %s): board %s, model %s", id, gen, st, got, want)
	}
}

func (s *sm) pickAt(t *rapid.T, id string) time.Time {
	r := s.m.recs[id]
	switch rapid.IntRange(0, 4).Draw(t, "atKind") {
	case 0:
		if r != nil && !r.completedAt.IsZero() {
			return r.completedAt
		}
	case 1:
		if r != nil && !r.completedAt.IsZero() {
			return r.completedAt.Add(time.Millisecond)
		}
	case 2:
		if r != nil {
			return r.runStarted
		}
	}
	return s.now().Add(-time.Duration(rapid.IntRange(0, 2000).Draw(t, "ago")) * time.Millisecond)
}

func (s *sm) Busy(t *rapid.T) {
	id := s.pickID(t)
	at := s.pickAt(t, id)
	if rapid.Bool().Draw(t, "direct") {
		gen := s.pickGen(t, id)
		want := s.m.busy(id, gen, at)
		if _, got := s.b.markRunningFromLive(id, gen, at); got != want {
			t.Fatalf("MarkRunningFromLive(%s, %d) = %v, model %v", id, gen, got, want)
		}
		return
	}
	var gen *uint64
	if rapid.Bool().Draw(t, "withGen") {
		g := s.pickGen(t, id)
		gen = &g
	}
	want := false
	if r, ok := s.m.fenced(id, gen, true, at); ok {
		want = s.m.busy(id, r.gen, at)
	}
	if _, got := s.b.observeBusy(id, gen, at); got != want {
		t.Fatalf("ObserveBusy(%s) = %v, model %v", id, got, want)
	}
}

func (s *sm) NonBusyReading(t *rapid.T) {
	id := s.pickID(t)
	gen := s.pickGen(t, id)
	switch rapid.IntRange(0, 2).Draw(t, "reading") {
	case 0: // idle or absent → stop rule
		want := s.m.stopCandidate(id, gen, s.now(), s.now())
		if _, got := s.b.stopCandidate(id, gen, s.now(), msgIdleUnconfirmed); got != want {
			t.Fatalf("StopCandidate(%s, %d) = %s, model %s", id, gen, got, want)
		}
	case 1: // malformed or lookup error → uncertainty only
		want := s.m.uncertainMark(id, gen)
		if _, got := s.b.markStatusUncertain(id, gen, msgMalformedEntry); got != want {
			t.Fatalf("MarkStatusUncertain = %v, model %v", got, want)
		}
	case 2:
		r, ok := s.m.recs[id]
		want := ok && r.gen == gen && r.state == StateRunning
		if want {
			r.timedOut = true
		}
		if _, got := s.b.markTimedOut(id, gen); got != want {
			t.Fatalf("MarkTimedOut = %v, model %v", got, want)
		}
	}
}

// IdleSequence is a macro: two or three non-busy readings of the current generation with
// ticks around the 5 s grace between them, optionally a busy in the middle, so the stop
// rule (first reading → confirmation + uncertainty, second ≥ 5 s later → stopped once) is
// exercised in few steps.
func (s *sm) IdleSequence(t *rapid.T) {
	id := s.pickID(t)
	r, ok := s.m.recs[id]
	if !ok {
		t.Skip("no record")
	}
	gen := r.gen
	n := rapid.IntRange(2, 3).Draw(t, "readings")
	for i := range n {
		s.clk.Advance(rapid.SampledFrom([]time.Duration{time.Millisecond, 4999 * time.Millisecond, 5 * time.Second, 6 * time.Second}).Draw(t, "gap"))
		if i == 1 && rapid.IntRange(0, 3).Draw(t, "busyBetween") == 0 {
			at := s.now().Add(-time.Millisecond)
			want := s.m.busy(id, gen, at)
			if _, got := s.b.markRunningFromLive(id, gen, at); got != want {
				t.Fatalf("MarkRunningFromLive = %v, model %v", got, want)
			}
		}
		want := s.m.stopCandidate(id, gen, s.now(), s.now())
		if _, got := s.b.stopCandidate(id, gen, s.now(), msgAbsentUnconfirmed); got != want {
			t.Fatalf("StopCandidate(%s) reading %d = %s, model %s", id, i, got, want)
		}
	}
}

func (s *sm) HostError(t *rapid.T) {
	id := s.pickID(t)
	var gen *uint64
	if rapid.Bool().Draw(t, "withGen") {
		g := s.pickGen(t, id)
		gen = &g
	}
	deferrable := rapid.Bool().Draw(t, "deferrable")
	want := gateStale
	if r, ok := s.m.fenced(id, gen, false, s.now()); ok && r.state == StateRunning && !r.fallback {
		if deferrable {
			r.deferred = "failover"
			want = gateDeferred
		} else {
			want = s.m.commit(id, r.gen, StateError, nil, s.now(), s.now())
		}
	}
	if _, got := s.b.observeError(id, gen, "failover", deferrable, s.now()); got != want {
		t.Fatalf("ObserveError(%s) = %s, model %s", id, got, want)
	}
}

// Fallback toggles the host's fallback-model recovery; session errors are ignored while it
// is on (R86).
func (s *sm) Fallback(t *rapid.T) {
	id := s.pickID(t)
	on := rapid.Bool().Draw(t, "on")
	if r, ok := s.m.recs[id]; ok {
		r.fallback = on
	}
	s.b.SetFallbackRecovering(id, on)
}

func (s *sm) Acknowledge(t *rapid.T) {
	if rapid.Bool().Draw(t, "viaView") {
		p := s.pickParent(t)
		shown := s.b.view(p).shown
		want := 0
		for _, sh := range shown {
			if s.m.reconcile(sh.TaskID, sh.Generation, sh.TerminalRevision) {
				want++
			}
		}
		if got := s.b.acknowledgeShown(p, shown); got != want {
			t.Fatalf("AcknowledgeShown = %d, model %d", got, want)
		}
		return
	}
	id := s.pickID(t)
	gen := s.pickGen(t, id)
	rev := uint64(0)
	if r, ok := s.m.recs[id]; ok {
		rev = r.rev
	}
	rev -= uint64(rapid.IntRange(0, 1).Draw(t, "revBack"))
	want := s.m.reconcile(id, gen, rev)
	if _, got := s.b.markReconciled(id, gen, rev); got != want {
		t.Fatalf("MarkReconciled(%s, %d, %d) = %v, model %v", id, gen, rev, got, want)
	}
}

func (s *sm) MarkUsed(t *rapid.T) {
	id := s.pickID(t)
	p := s.pickParent(t)
	r, ok := s.m.recs[id]
	want := ok && r.parent == p
	if got := s.b.markUsed(p, id); got != want {
		t.Fatalf("MarkUsed(%s, %s) = %v, model %v", p, id, got, want)
	}
	if want {
		r.lastUsed = s.now()
		if !r.completedAt.IsZero() && !r.completedAt.Add(time.Millisecond).Before(r.lastUsed) {
			r.lastUsed = r.completedAt.Add(time.Millisecond)
		}
	}
}

func (s *sm) Drop(t *rapid.T) {
	id := s.pickID(t)
	s.m.drop(id, reasonDropped)
	s.b.Drop(id)
}

func (s *sm) ClearParent(t *rapid.T) {
	p := rapid.SampledFrom(s.parents).Draw(t, "parent")
	s.m.clearParent(p)
	s.b.ClearParent(p)
}

func (s *sm) HostDeleted(t *rapid.T) {
	id := rapid.SampledFrom(append(slices.Clone(s.ids), s.parents...)).Draw(t, "session")
	ev := deletionEvent{SessionID: id, FallbackTeardown: rapid.IntRange(0, 4).Draw(t, "teardown") == 0}
	if rapid.Bool().Draw(t, "withGen") {
		g := s.pickGen(t, id)
		ev.Generation = &g
	}
	want := !ev.FallbackTeardown
	if r, ok := s.m.recs[id]; ok && want {
		switch {
		case ev.Generation == nil && r.taskGen > 1, ev.Generation != nil && *ev.Generation != r.gen:
			want = false
		}
		if want && !r.claim {
			s.m.drop(id, reasonDropped)
		}
	}
	if want {
		s.m.clearParent(id)
		delete(s.m.waiting, id)
		delete(s.m.lastUser, id)
	}
	if got := s.b.hostDeleted(ev); got != want {
		t.Fatalf("HostDeleted(%+v) = %v, model %v", ev, got, want)
	}
}

func (s *sm) Adopt(t *rapid.T) {
	in := adoptInput{
		TaskID: s.pickID(t), ParentID: s.pickParent(t),
		Agent: s.pickAgent(t),
		State: rapid.SampledFrom([]State{StateRunning, StateCompleted, StateStopped, StateCancelled}).Draw(t, "state"),
	}
	want := s.m.adopt(in, s.now())
	_, got := s.b.adopt(in)
	s.sameErr(t, "Adopt", got, want)
}

func (s *sm) Deadline(t *rapid.T) {
	id := s.pickID(t)
	gen := s.pickGen(t, id)
	r, ok := s.m.recs[id]
	running := ok && r.gen == gen && r.state == StateRunning
	if rapid.Bool().Draw(t, "claim") {
		want := running && !r.claim
		if want {
			r.claim, r.timedOut, r.cancelReq = true, true, true
		}
		if _, got := s.b.claimDeadline(id, gen); got != want {
			t.Fatalf("ClaimDeadline = %v, model %v", got, want)
		}
		return
	}
	unc := rapid.SampledFrom([]string{"", "abort was not confirmed"}).Draw(t, "unc")
	running = running && r.claim
	if running {
		r.timedOut = true
		if unc != "" {
			r.uncertain = true
		}
		s.m.terminalPublish(r, StateError, StateError, s.now())
	}
	if _, got := s.b.finalizeClaim(id, gen, unc); got != running {
		t.Fatalf("FinalizeDeadline = %v, model %v", got, running)
	}
}

// WaitForUser arms the latch of an orchestrator session (invariant 36).
func (s *sm) WaitForUser(t *rapid.T) {
	p := s.pickParent(t)
	if _, err := s.b.waitForUser(Caller{SessionID: p, Agent: "orchestrator"}, "need a decision"); err != nil {
		t.Fatalf("WaitForUser(%s): %v", p, err)
	}
	s.m.waiting[p] = true
}

// UserMessage delivers a chat message: real or synthetic or internal, with an identity
// from a small set (so replays happen) or none. Only a real external message with a new
// identity (or none) clears the latch (invariant 36).
func (s *sm) UserMessage(t *rapid.T) {
	m := userMessage{
		SessionID: s.pickParent(t),
		ID:        rapid.SampledFrom([]string{"", "msg-1", "msg-2"}).Draw(t, "msgID"),
		Role:      rapid.SampledFrom([]string{"user", "user", "assistant"}).Draw(t, "role"),
		Parts: []Part{{
			Kind:      rapid.SampledFrom([]string{"text", "file", "image", "tool"}).Draw(t, "partKind"),
			Synthetic: rapid.IntRange(0, 3).Draw(t, "synthetic") == 0,
			Internal:  rapid.IntRange(0, 5).Draw(t, "internal") == 0,
		}},
	}
	p := m.Parts[0]
	real := m.Role == "user" && !p.Internal && !p.Synthetic && (p.Kind == "text" || p.Kind == "file" || p.Kind == "image")
	want := false
	if real && s.b.isManaged(m.SessionID) && (m.ID == "" || s.m.lastUser[m.SessionID] != m.ID) {
		if m.ID != "" {
			s.m.lastUser[m.SessionID] = m.ID
		}
		want = s.m.waiting[m.SessionID]
		delete(s.m.waiting, m.SessionID)
	}
	if got := s.b.clearForMessage(m); got != want {
		t.Fatalf("ClearForMessage(%+v) = %v, model %v", m, got, want)
	}
}

func (s *sm) Tick(t *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{time.Millisecond, 150 * time.Millisecond, 1500 * time.Millisecond,
		5 * time.Second, 10 * time.Second, 24 * time.Hour}).Draw(t, "d")
	leases := s.b.LeasesForTest()
	before := s.b.allRecords()
	s.clk.Advance(d)
	if !slices.Equal(leases, s.b.LeasesForTest()) || !slices.EqualFunc(before, s.b.allRecords(), equalRecords) {
		t.Fatal("advancing the clock changed a lease or a record (R5)")
	}
}

// --- host operations: lease-holding calls that settle, settle late, or never -----------

func (s *sm) OpStart(t *rapid.T) {
	id := s.pickID(t)
	r, ok := s.m.recs[id]
	if !ok {
		t.Skip("no record")
	}
	kind := rapid.SampledFrom([]string{"cancel", "message", "notify", "revive"}).Draw(t, "opKind")
	lk := map[string]leaseKind{"cancel": leaseCancellation, "message": leaseMessage,
		"notify": leaseNotification, "revive": leaseRelaunch}[kind]
	rev := r.rev
	wl, wok := s.m.acquire(lk, id, r.gen, &rev)
	gl, gok := s.b.acquire(lk, id, r.gen, &rev)
	if wok != gok || wl != gl {
		t.Fatalf("op %s acquire: board %v, model %v", kind, gok, wok)
	}
	if !gok {
		return
	}
	s.issue(gl)
	o := &op{kind: kind, lease: gl}
	if kind == "revive" { // the prompt was sent: the admission owner holds the lease
		h, ok := s.b.handOver(gl, ownerAdmission)
		if !ok {
			t.Fatal("hand-over to admission refused")
		}
		live := s.m.leases[id]
		live.Owner = ownerAdmission
		s.m.leases[id] = live
		o.lease = h
	}
	s.ops = append(s.ops, o)
}

func (s *sm) pendingOp(t *rapid.T) *op {
	var open []*op
	for _, o := range s.ops {
		if !o.done && !o.forever {
			open = append(open, o)
		}
	}
	if len(open) == 0 {
		t.Skip("no pending host call")
	}
	return rapid.SampledFrom(open).Draw(t, "op")
}

// OpDeadline: the deadline guarding the pending call passes. The caller gets its timeout;
// the lease stays with the pending call (R59, R63, R81, R85).
func (s *sm) OpDeadline(t *rapid.T) {
	o := s.pendingOp(t)
	if o.late || o.kind == "compensation" {
		t.Skip("no deadline")
	}
	o.late = true
	if o.kind == "cancel" {
		want := s.m.uncertainMark(o.lease.TaskID, o.lease.Generation)
		if _, got := s.b.markStatusUncertain(o.lease.TaskID, o.lease.Generation, "Session abort timed out after 10000ms"); got != want {
			t.Fatalf("abort timeout uncertainty = %v, model %v", got, want)
		}
	}
}

func (s *sm) OpSettle(t *rapid.T) {
	o := s.pendingOp(t)
	success := rapid.Bool().Draw(t, "success")
	id := o.lease.TaskID
	recBefore, hadRec := s.b.Get(id)
	if o.late && o.kind != "revive" {
		// A late settlement releases exactly its own token and nothing else (invariant 8).
		others := s.othersSnapshot(id)
		want := s.m.release(o.lease)
		if got := s.b.release(o.lease); got != want {
			t.Fatalf("late %s settlement release = %v, model %v", o.kind, got, want)
		}
		o.done = true
		if after, ok := s.b.Get(id); hadRec && ok && !equalRecords(recBefore, after) {
			t.Fatalf("late %s settlement changed the record:\n%s", o.kind, diffRecords(recBefore, after))
		}
		s.checkOthersUnchanged(t, id, others)
		return
	}
	switch o.kind {
	case "cancel":
		if success { // abort confirmed and verified quiescent: commit with the lease
			want := s.m.commit(id, o.lease.Generation, StateCancelled, &o.lease, s.now(), s.now())
			l := o.lease
			if _, got := s.b.commitTerminal(commitInput{TaskID: id, Generation: o.lease.Generation, State: StateCancelled, Summary: "obsolete", Lease: &l, ObservedAt: s.now()}); got != want {
				t.Fatalf("cancel commit = %s, model %s", got, want)
			}
		}
		s.settleRelease(t, o)
	case "message", "notify":
		s.settleRelease(t, o)
	case "revive":
		if !success { // admission rejected
			s.settleRelease(t, o)
			return
		}
		valid := s.m.validate(o.lease)
		gv := s.b.validate(o.lease)
		if valid != gv {
			t.Fatalf("Validate(admission lease) = %v, model %v", gv, valid)
		}
		if !valid { // ownership lost: nothing registered, nothing aborted
			o.done = true
			return
		}
		if _, exists := s.m.recs[id]; !exists {
			// Record deleted while the lease was valid: hand over to compensation (unless a
			// HandOver action already did).
			if s.m.leases[id].Owner == ownerCompensation {
				o.kind, o.late = "compensation", false
				return
			}
			h, ok := s.b.handOver(o.lease, ownerCompensation)
			if !ok {
				t.Fatal("hand-over to compensation refused")
			}
			live := s.m.leases[id]
			live.Owner = ownerCompensation
			s.m.leases[id] = live
			o.kind, o.lease, o.late = "compensation", h, false
			return
		}
		l := o.lease
		in := launchInput{TaskID: id, Lease: &l}
		want := s.m.register(in, s.now())
		_, got := s.b.registerLaunch(in)
		s.sameErr(t, "admission RegisterLaunch", got, want)
		s.settleRelease(t, o)
	case "compensation":
		// Exactly one abort per compensation; the lease is released only when the abort
		// was confirmed and the next read showed idle or absent.
		s.compAborts[o.lease.Token]++
		if s.compAborts[o.lease.Token] != 1 {
			t.Fatalf("compensation aborted %d times", s.compAborts[o.lease.Token])
		}
		if _, exists := s.m.recs[id]; exists || !s.m.validate(o.lease) {
			o.done = true // ownership lost
			return
		}
		if success && rapid.Bool().Draw(t, "quiescent") {
			s.settleRelease(t, o)
			return
		}
		o.forever = true
	}
}

func (s *sm) settleRelease(t *rapid.T, o *op) {
	want := s.m.release(o.lease)
	if got := s.b.release(o.lease); got != want {
		t.Fatalf("%s release = %v, model %v", o.kind, got, want)
	}
	o.done = true
}

func (s *sm) othersSnapshot(id string) map[string]Record {
	out := map[string]Record{}
	for _, r := range s.b.allRecords() {
		if r.TaskID != id {
			out[r.TaskID] = r
		}
	}
	return out
}

// checkOthersUnchanged: other records may only have been evicted by the release's trim.
func (s *sm) checkOthersUnchanged(t *rapid.T, id string, before map[string]Record) {
	for oid, r := range before {
		after, ok := s.b.Get(oid)
		if !ok {
			if reason, _ := s.b.tombstoneReason(oid); reason != reasonEvicted {
				t.Fatalf("late settlement on %s deleted %s (%s)", id, oid, reason)
			}
			continue
		}
		if !equalRecords(r, after) {
			t.Fatalf("late settlement on %s changed %s", id, oid)
		}
	}
}

// --- invariants --------------------------------------------------------------------------

func (s *sm) sameErr(t *rapid.T, what string, got, want error) {
	if (got == nil) != (want == nil) || (want != nil && !errors.Is(got, want)) {
		t.Fatalf("%s: board error %v, model %v", what, got, want)
	}
	if got != nil {
		var te *ToolError
		if !errors.As(got, &te) || te.Message == "" {
			t.Fatalf("%s: error %v is not a *ToolError with a message", what, got)
		}
	}
}

func (s *sm) Check(t *rapid.T) {
	for _, p := range s.parents {
		if got := s.b.Waiting(p); got != s.m.waiting[p] {
			t.Fatalf("Waiting(%s) = %v, model %v (36)", p, got, s.m.waiting[p])
		}
	}
	s.syncEvictions(t)
	s.checkNotices(t)
	s.checkLeases(t)
	s.checkRecords(t)
	s.checkLedger(t)
	s.checkPools(t)
}

// syncEvictions predicts the retention trims exactly: in every (parent, agent, pool) group
// of unleased reusable or retained-stopped records, the model keeps the cap most recently
// used (ties: the higher generation) and evicts the rest. The board must have evicted
// exactly those records (tombstoned as evicted), and kept every other; the model mirrors
// the evictions. The pool sizes therefore match the model's exactly.
func (s *sm) syncEvictions(t *rapid.T) {
	groups := map[[3]string][]*mrec{}
	for _, id := range sortedKeys(s.m.recs) {
		r := s.m.recs[id]
		if pool, ok := s.m.poolMember(r); ok {
			k := [3]string{r.parent, r.agent, pool}
			groups[k] = append(groups[k], r)
		}
	}
	evict := map[string]bool{}
	for _, g := range groups {
		sort.Slice(g, func(i, j int) bool {
			if !g[i].lastUsed.Equal(g[j].lastUsed) {
				return g[i].lastUsed.After(g[j].lastUsed)
			}
			return g[i].gen > g[j].gen
		})
		for _, r := range g[min(len(g), s.m.cap):] {
			evict[r.id] = true
		}
	}
	for _, id := range sortedKeys(s.m.recs) {
		r := s.m.recs[id]
		_, onBoard := s.b.Get(id)
		reason, _ := s.b.tombstoneReason(id)
		switch {
		case evict[id] && (onBoard || reason != reasonEvicted):
			t.Fatalf("retention trim: model evicts %s (least recently used, cap %d) but the board kept it (on board %v, tombstone %q)", id, s.m.cap, onBoard, reason)
		case !evict[id] && !onBoard:
			t.Fatalf("retention trim: record %s vanished (tombstone %q) but the model keeps it (state %s unrec %v uncertain %v leased %v)",
				id, reason, r.state, r.unrec, r.uncertain, s.m.leases[id].Token != 0)
		case evict[id]:
			s.m.tombstone(id, mtomb{reason: reasonEvicted, parent: r.parent, agent: r.agent})
			delete(s.m.recs, id)
		}
	}
}

func (s *sm) checkNotices(t *rapid.T) {
	got := s.b.drain()
	want := s.m.notices
	s.m.notices = nil
	if len(got) != len(want) {
		t.Fatalf("notices: board %v, model %v", got, want)
	}
	for i := range got {
		if got[i].Kind != want[i].kind || got[i].TaskID != want[i].id {
			t.Fatalf("notice %d: board %+v, model %+v", i, got[i], want[i])
		}
	}
}

func (s *sm) checkLeases(t *rapid.T) {
	got := s.b.LeasesForTest()
	var want []leaseGrant
	for _, id := range sortedKeys(s.m.leases) {
		want = append(want, s.m.leases[id])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("live leases: board %+v, model %+v", got, want)
	}
	if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i].TaskID < got[j].TaskID }) {
		t.Fatal("LiveLeases not sorted")
	}
	for _, l := range got {
		if ll, ok := s.b.LeaseForTest(l.TaskID); !ok || ll != l {
			t.Fatal("LiveLease disagrees with LiveLeases")
		}
		if !s.tokens[l.Token] {
			t.Fatalf("live lease %v was never issued", l)
		}
		// Exclusion is total (invariant 4): no kind can be acquired while l is live. Probe on
		// a clone-free path: Acquire must fail and must not change anything.
		for _, k := range leaseKinds[:] {
			if r, ok := s.b.Get(l.TaskID); ok {
				if _, ok := s.b.acquire(k, l.TaskID, r.Generation, nil); ok {
					t.Fatalf("acquired %s while %v is live", k, l)
				}
			}
		}
	}
	for _, o := range s.ops {
		if o.forever && !s.b.validate(o.lease) {
			// An unconfirmed compensation lease stays live for the board's life (inv. 25)
			// unless a test action released it by token, which the model records.
			if _, live := s.m.leases[o.lease.TaskID]; live && s.m.leases[o.lease.TaskID].Token == o.lease.Token {
				t.Fatalf("compensation lease %v lost", o.lease)
			}
		}
	}
	for id := range s.m.leases {
		if !s.b.isTracked(id) {
			t.Fatalf("leased %s not tracked", id)
		}
	}
}

func (s *sm) checkRecords(t *rapid.T) {
	all := s.b.allRecords()
	if len(all) != len(s.m.recs) {
		t.Fatalf("board has %d records, model %d", len(all), len(s.m.recs))
	}
	aliases := map[[2]string]string{}
	for _, g := range all {
		w, ok := s.m.recs[g.TaskID]
		if !ok {
			t.Fatalf("board has unexpected record %s", g.TaskID)
		}
		type view struct {
			Parent, Agent, Alias                         string
			Gen, TaskGen, Rev                            uint64
			State, Term                                  State
			Unrec, Uncertain, CancelReq, TimedOut, Claim bool
			Quar, Provisional                            bool
		}
		gv := view{g.ParentID, g.Agent, g.Alias, g.Generation, g.TaskGeneration, g.TerminalRevision, g.State, g.TerminalState,
			g.TerminalUnreconciled, g.StatusUncertain, g.CancellationRequested, g.TimedOut, !g.DeadlineExceededAt.IsZero(), g.Quarantined, g.Provisional}
		wv := view{w.parent, w.agent, w.alias, w.gen, w.taskGen, w.rev, w.state, w.term,
			w.unrec, w.uncertain, w.cancelReq, w.timedOut, w.claim, w.quar, w.provisional}
		if gv != wv {
			t.Fatalf("record %s:\nboard %+v\nmodel %+v", g.TaskID, gv, wv)
		}
		// Generations (invariant 13).
		if g.Generation > s.m.nextGen || g.Generation < s.genOf[g.TaskID] {
			t.Fatalf("generation of %s went %d → %d", g.TaskID, s.genOf[g.TaskID], g.Generation)
		}
		s.genOf[g.TaskID] = g.Generation
		// State invariants (18, 20).
		if g.TerminalUnreconciled && !g.State.terminal() {
			t.Fatalf("%s unreconciled in state %s", g.TaskID, g.State)
		}
		if g.State == StateReconciled && (g.TerminalState == "" || g.TerminalUnreconciled) {
			t.Fatalf("%s reconciled without terminal state", g.TaskID)
		}
		if g.State == StateStopped && g.TerminalState != "" {
			t.Fatalf("%s stopped with terminal state %s", g.TaskID, g.TerminalState)
		}
		if g.reusable(DefaultMaxContextLines) && (g.State == StateStopped || g.TerminalUnreconciled || g.StatusUncertain || !g.EffectiveState().canonical()) {
			t.Fatalf("%s reusable in state %s", g.TaskID, g.State)
		}
		// Resolution never crosses parents (20) and aliases are unambiguous (21).
		for _, p := range s.parents {
			r, ok := s.b.Resolve(p, g.TaskID)
			if ok != (p == g.ParentID) || (ok && r.TaskID != g.TaskID) {
				t.Fatalf("Resolve(%s, %s) = %v", p, g.TaskID, ok)
			}
		}
		k := [2]string{g.ParentID, g.Alias}
		if other, dup := aliases[k]; dup {
			t.Fatalf("alias %s shared by %s and %s", g.Alias, other, g.TaskID)
		}
		aliases[k] = g.TaskID
		if owner, seen := s.aliasOwner[k]; seen && owner != g.TaskID {
			t.Fatalf("alias %s reused: %s then %s", g.Alias, owner, g.TaskID)
		}
		s.aliasOwner[k] = g.TaskID
		if !s.b.isTracked(g.TaskID) {
			t.Fatalf("%s not tracked", g.TaskID)
		}
	}
	if s.m.nextGen < s.maxGen {
		t.Fatal("generation counter went back")
	}
	s.maxGen = s.m.nextGen
}

func (s *sm) checkLedger(t *rapid.T) {
	seen := map[uint64]string{}
	all := append(slices.Clone(s.ids), s.parents...)
	slices.Sort(all)
	for _, id := range slices.Compact(all) {
		isTomb := s.b.tombstoned(id)
		if _, want := s.m.tombs[id]; isTomb != want {
			t.Fatalf("Tombstoned(%s) = %v, model %v", id, isTomb, want)
		}
		if isTomb {
			if _, ok := s.b.Get(id); ok {
				t.Fatalf("%s tombstoned and tracked", id)
			}
		}
		ep, ok := s.b.deletionEpoch(id)
		if isTomb && !ok {
			t.Fatalf("%s tombstoned without an epoch", id)
		}
		prev, had := s.epochOf[id]
		if had && !ok {
			t.Fatalf("epoch of %s lost", id)
		}
		if ok {
			if other, dup := seen[ep]; dup {
				t.Fatalf("epoch %d shared by %s and %s", ep, other, id)
			}
			seen[ep] = id
			if ep != prev {
				if ep < prev || ep <= s.maxEpoch && had {
					t.Fatalf("epoch of %s went %d → %d", id, prev, ep)
				}
				if !had && ep <= s.maxEpoch {
					t.Fatalf("new epoch %d for %s not above %d", ep, id, s.maxEpoch)
				}
			}
			s.epochOf[id] = ep
		}
	}
	for _, ep := range s.epochOf {
		s.maxEpoch = max(s.maxEpoch, ep)
	}
}

// checkPools: after every step no (parent, agent) pool of unleased reusable or retained
// records exceeds the cap (the trims ran).
func (s *sm) checkPools(t *rapid.T) {
	count := map[[3]string]int{}
	for _, r := range s.m.recs {
		if pool, ok := s.m.poolMember(r); ok {
			count[[3]string{r.parent, r.agent, pool}]++
		}
	}
	for k, n := range count {
		if n > s.m.cap {
			t.Fatalf("pool %v holds %d records over the cap %d", k, n, s.m.cap)
		}
	}
}

// ---------------------------------------------------------------------------------------
// The protocol state machine: the same board, now driven through the step machines of the
// tools (cancel, message, revive with its compensation, notification, status, result) by a
// fake host whose calls stay pending until the test settles them (success, failure, at or
// after their deadline, twice, or never). Guarded calls are performed only after a Dispatch
// answered with Proceed. Board operations run between any two machine steps. After every
// step the board's structural invariants and the host-effect invariants of §6 are checked.

type prun struct {
	kind     string // cancel, message, revive, compensation, notify, status, result
	taskID   string
	m        machine
	pending  map[callNo]command // performed, not settled
	awaiting map[callNo]command // guarded, waiting for Dispatch
	settled  map[callNo]event   // replies already delivered (for duplicates)
	timers   map[timerID]time.Time
	aborts   int
	writes   int
	prompts  int
	checked  bool // the reply-time checks ran

	// compensation evidence: the abort's reply and the quiescence of the fresh read
	abortOK, readQuiet, readKnown, timedOut bool

	// revive: the record when its prompt was dispatched (invariant 30)
	preGen   uint64
	preState State
}

type psm struct {
	b        *Board
	clk      *manualClock
	caps     caps
	runs     []*prun
	ids      []string
	issued   []leaseGrant    // leases the test itself acquired
	mine     map[uint64]bool // their tokens
	stolen   map[uint64]bool // machine leases the test released behind their back
	seen     map[uint64]leaseGrant
	gone     map[uint64]bool // tokens that were live once and are gone
	maxGen   uint64
	genOf    map[string]uint64
	epochOf  map[string]uint64
	aliasOf  map[[2]string]string
	notified map[[3]uint64]bool
	cov      map[string]int // deep protocol states reached (coverage guard)
}

// deepStates are the protocol states the state machine must reach in every test run: a
// revive's prompt sent, accepted and its run observed, a verified cancel's commit, an
// orphaned revive's compensation, and a v1 message written with the identity read from
// the transcript.
var deepStates = []string{"revive_send", "revive_accept", "revive_observe", "cancel_commit", "compensation", "message_identity"}

var pcaller = Caller{SessionID: "par-A", Agent: "orchestrator"}

func TestStateMachineProtocols(t *testing.T) {
	cov := map[string]int{}
	defer func() {
		if t.Failed() {
			return
		}
		t.Logf("deep states reached: %v", cov)
		for _, st := range deepStates {
			if cov[st] == 0 {
				t.Errorf("coverage guard: no run reached %s; raise the action weights or add a macro action", st)
			}
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		clk := newManualClock(t0)
		b, err := NewBoard(Options{Clock: clk, MaxReusablePerAgent: rapid.IntRange(1, 2).Draw(rt, "cap")})
		if err != nil {
			rt.Fatal(err)
		}
		b.manage("par-A")
		b.manage("par-B")
		s := &psm{
			b: b, clk: clk,
			caps: rapid.SampledFrom([]caps{
				{Flavor: FlavorV1, StatusMap: true},
				{Flavor: FlavorV1, StatusMap: true},
				{Flavor: FlavorV2, IdleWaiter: true},
				{Flavor: FlavorV2},
			}).Draw(rt, "caps"),
			ids:  []string{"ses_a", "ses_b", "ses_c"},
			mine: map[uint64]bool{}, stolen: map[uint64]bool{}, seen: map[uint64]leaseGrant{}, gone: map[uint64]bool{},
			genOf: map[string]uint64{}, epochOf: map[string]uint64{}, aliasOf: map[[2]string]string{},
			notified: map[[3]uint64]bool{}, cov: cov,
		}
		actions := rapid.StateMachineActions(s)
		// Weights: host progress and the lifecycle operations that make tasks revivable
		// are drawn more often, so the later protocol phases are reached within a run.
		for i := range 3 {
			actions[fmt.Sprintf("HostSteps%d", i)] = s.HostSteps
		}
		actions["StartRevive2"] = s.StartRevive
		actions["Complete2"] = s.Complete
		actions["Scenario2"] = s.Scenario
		rt.Repeat(actions)
	})
}

func (s *psm) now() time.Time { return s.b.now() }

// pickID favours IDs that have a record.
func (s *psm) pickID(t *rapid.T) string {
	var tracked []string
	for _, id := range s.ids {
		if _, ok := s.b.Get(id); ok {
			tracked = append(tracked, id)
		}
	}
	if len(tracked) > 0 && rapid.IntRange(0, 3).Draw(t, "preferTracked") > 0 {
		return rapid.SampledFrom(tracked).Draw(t, "id")
	}
	return rapid.SampledFrom(s.ids).Draw(t, "id")
}

// start runs m.Start and executes its commands.
func (s *psm) start(t *rapid.T, kind, taskID string, m machine) *prun {
	r := &prun{kind: kind, taskID: taskID, m: m,
		pending: map[callNo]command{}, awaiting: map[callNo]command{},
		settled: map[callNo]event{}, timers: map[timerID]time.Time{}}
	s.runs = append(s.runs, r)
	s.exec(t, r, m.Start(s.b))
	return r
}

func callIDOf(c command) (callNo, bool) {
	switch c := c.(type) {
	case abort:
		return c.Call, true
	case readStatus:
		return c.Call, true
	case readSession:
		return c.Call, true
	case readMessages:
		return c.Call, true
	case waitIdle:
		return c.Call, true
	case writeMessage:
		return c.Call, true
	case sendPrompt:
		return c.Call, true
	}
	return 0, false
}

// exec performs a machine's commands the way the driver does, checking the dispatch-time
// invariants (26, 28, 29, 32) when a guarded call is allowed to proceed.
func (s *psm) exec(t *rapid.T, r *prun, cmds []command) {
	for _, c := range cmds {
		switch c := c.(type) {
		case abort, writeMessage, sendPrompt:
			id, _ := callIDOf(c)
			r.awaiting[id] = c
		case readStatus, readSession, readMessages, waitIdle:
			id, _ := callIDOf(c)
			if s.b.isDisposed() {
				continue // no call of any kind after Close (32)
			}
			r.pending[id] = c
		case proceed:
			call, ok := r.awaiting[c.Call]
			if !ok {
				t.Fatalf("%s answered Proceed for call %d it is not waiting on", r.kind, c.Call)
			}
			delete(r.awaiting, c.Call)
			s.checkProceed(t, r, call)
			r.pending[c.Call] = call
		case withdraw:
			if _, ok := r.awaiting[c.Call]; !ok {
				t.Fatalf("%s withdrew call %d it is not waiting on", r.kind, c.Call)
			}
			delete(r.awaiting, c.Call)
		case cancelCall:
			delete(r.pending, c.Call)
		case startTimer:
			if c.After <= 0 {
				t.Fatalf("%s started a timer of %s (budgets are ≥ 1 ms)", r.kind, c.After)
			}
			r.timers[c.Timer] = s.now().Add(c.After)
		case stopTimer:
			delete(r.timers, c.Timer)
		case logLine:
		case spawn:
			kind := "spawned"
			id := ""
			switch m := c.Machine.(type) {
			case *compensation:
				kind, id = "compensation", m.Lease().TaskID
				s.cov["compensation"]++
			case *notifyM:
				kind = "notify"
			}
			s.start(t, kind, id, c.Machine)
		}
	}
}

// checkProceed: a guarded call is performed only when, at dispatch, its preconditions hold.
func (s *psm) checkProceed(t *rapid.T, r *prun, call command) {
	if s.b.isDisposed() {
		t.Fatalf("%s proceeded with %T after Close", r.kind, call)
	}
	rec, hasRec := s.b.Get(r.taskID)
	live, leased := s.b.LeaseForTest(r.taskID)
	switch c := call.(type) {
	case abort:
		r.aborts++
		if c.SessionID != r.taskID && r.taskID != "" {
			t.Fatalf("%s aborted %s, not its task %s", r.kind, c.SessionID, r.taskID)
		}
		switch r.kind {
		case "cancel":
			l, held := r.m.(*cancelM).Lease()
			if !held || !s.b.validate(l) || !hasRec || rec.Generation != l.Generation || rec.State != StateRunning {
				t.Fatalf("cancel aborted %s without a valid lease on a running generation (held %v, record %v %s)", c.SessionID, held, hasRec, rec.State)
			}
		case "compensation":
			l := r.m.(*compensation).Lease()
			if hasRec || !s.b.validate(l) || live.Owner != ownerCompensation {
				t.Fatalf("compensation aborted %s without ownership (record %v, lease %+v)", c.SessionID, hasRec, live)
			}
		case "revive": // the inner cancel of a running generation
			if !leased || live.Kind != leaseCancellation || !hasRec || rec.State != StateRunning || rec.Generation != live.Generation {
				t.Fatalf("revive's cancel aborted %s without its cancellation lease (%+v, %s)", c.SessionID, live, rec.State)
			}
		}
		if r.aborts > 1 {
			t.Fatalf("%s performed %d aborts", r.kind, r.aborts)
		}
	case writeMessage:
		r.writes++
		if r.writes > 1 {
			t.Fatalf("message performed %d writes", r.writes)
		}
		if !hasRec || rec.State != StateRunning || rec.CancellationRequested || !leased || live.Kind != leaseMessage || live.Generation != rec.Generation {
			t.Fatalf("message wrote to %s: record %v %s cancel-requested %v lease %+v", c.SessionID, hasRec, rec.State, rec.CancellationRequested, live)
		}
		if c.Message.Text == "" {
			t.Fatal("empty message written")
		}
		if c.Message.Model != "" {
			s.cov["message_identity"]++
		}
	case sendPrompt:
		r.prompts++
		switch r.kind {
		case "revive":
			if r.prompts > 1 {
				t.Fatalf("revive sent %d prompts", r.prompts)
			}
			if !hasRec || !leased || live.Kind != leaseRelaunch || live.Generation != rec.Generation || !rec.Revivable() {
				t.Fatalf("revive prompted %s: record %v %s revivable %v lease %+v", c.SessionID, hasRec, rec.State, rec.Revivable(), live)
			}
			r.preGen, r.preState = rec.Generation, rec.EffectiveState()
			s.cov["revive_send"]++
		case "notify":
			if !hasRec || !leased || live.Kind != leaseNotification || !s.b.validate(live) {
				t.Fatalf("notification sent for %s without a valid notification lease (%+v)", r.taskID, live)
			}
		}
	}
}

// deliver hands one event to a run and executes the answer.
func (s *psm) deliver(t *rapid.T, r *prun, ev event) {
	wasDone := r.m.Done()
	cmds := r.m.Step(s.b, ev)
	if wasDone && len(cmds) != 0 {
		t.Fatalf("%s returned %d commands after Done (37)", r.kind, len(cmds))
	}
	s.exec(t, r, cmds)
	switch e := ev.(type) {
	case promptReply:
		if r.kind == "revive" && e.Err == nil {
			s.cov["revive_accept"]++
		}
	case messagesReply:
		if r.kind == "revive" && r.prompts > 0 && e.Err == nil {
			s.cov["revive_observe"]++
		}
	}
	if c, ok := r.m.(*cancelM); ok && r.kind == "cancel" && !wasDone && r.m.Replied() {
		if res, err := c.Outcome(); err == nil && res.State == string(StateCancelled) {
			s.cov["cancel_commit"]++
		}
	}
}

func (s *psm) openRuns(pred func(*prun) bool) []*prun {
	var out []*prun
	for _, r := range s.runs {
		if pred(r) {
			out = append(out, r)
		}
	}
	return out
}

// --- tool starts ---------------------------------------------------------------------

func (s *psm) StartCancel(t *rapid.T) {
	id := s.pickID(t)
	s.start(t, "cancel", id, newCancel(pcaller, cancelArgs{Ref: id, Reason: "obsolete"}, s.caps))
}

func (s *psm) StartMessage(t *rapid.T) {
	id := s.pickID(t)
	s.start(t, "message", id, newMessage(pcaller, messageArgs{Ref: id, Text: "also check the tests"}, s.caps))
}

func (s *psm) StartRevive(t *rapid.T) {
	id := s.pickID(t)
	s.start(t, "revive", id, newRevive(pcaller, reviveArgs{Ref: id, Prompt: "continue"}, s.caps))
}

func (s *psm) StartRead(t *rapid.T) {
	id := s.pickID(t)
	before := s.b.allRecords()
	leases := s.b.LeasesForTest()
	if rapid.Bool().Draw(t, "status") {
		s.start(t, "status", id, newStatus(pcaller, statusArgs{Ref: id}, s.caps))
		if !slices.EqualFunc(before, s.b.allRecords(), equalRecords) || !slices.Equal(leases, s.b.LeasesForTest()) {
			t.Fatal("task_status changed the board (R43)")
		}
		return
	}
	s.start(t, "result", id, newResult(pcaller, resultArgs{Ref: id}, s.caps))
}

// --- host side -----------------------------------------------------------------------

func (s *psm) Dispatch(t *rapid.T) {
	runs := s.openRuns(func(r *prun) bool { return len(r.awaiting) > 0 })
	if len(runs) == 0 {
		t.Skip("nothing awaits dispatch")
	}
	r := rapid.SampledFrom(runs).Draw(t, "run")
	calls := sortedCalls(r.awaiting)
	call := rapid.SampledFrom(calls).Draw(t, "call")
	s.deliver(t, r, dispatch{Call: call})
	if _, still := r.awaiting[call]; still {
		t.Fatalf("%s answered a Dispatch with neither Proceed nor Withdraw", r.kind)
	}
}

// RaceDispatch changes the board for a guarded call's task between the call's emission
// and its Dispatch (R98: "tests may run any board operation between emission and
// dispatch"): complete it, drop it, relaunch it, steal its lease, or observe it busy; then
// dispatches. checkProceed fails if the machine proceeds anyway.
func (s *psm) RaceDispatch(t *rapid.T) {
	runs := s.openRuns(func(r *prun) bool { return len(r.awaiting) > 0 })
	if len(runs) == 0 {
		t.Skip("nothing awaits dispatch")
	}
	r := rapid.SampledFrom(runs).Draw(t, "run")
	call := rapid.SampledFrom(sortedCalls(r.awaiting)).Draw(t, "call")
	id := r.taskID
	if id == "" {
		if c, ok := r.awaiting[call].(abort); ok {
			id = c.SessionID
		}
	}
	if rec, ok := s.b.Get(id); ok {
		switch rapid.IntRange(0, 4).Draw(t, "race") {
		case 0:
			st := rapid.SampledFrom([]State{StateCompleted, StateError}).Draw(t, "state")
			s.b.commitTerminal(commitInput{TaskID: id, Generation: rec.Generation, State: st, Summary: "raced"})
		case 1:
			s.b.Drop(id)
		case 2:
			s.b.registerLaunch(launchInput{TaskID: id, ParentID: rec.ParentID, Agent: rec.Agent})
		case 3:
			if l, ok := s.b.LeaseForTest(id); ok {
				s.b.release(l)
				s.stolen[l.Token] = true
			}
		case 4:
			s.clk.Advance(time.Millisecond)
			s.b.markRunningFromLive(id, rec.Generation, s.now())
		}
	}
	s.Check(t)
	if _, still := r.awaiting[call]; !still {
		return // the Check above may have moved it (a notice delivered to a parked run)
	}
	s.deliver(t, r, dispatch{Call: call})
}

func sortedCalls[V any](m map[callNo]V) []callNo {
	out := make([]callNo, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

var smErrHost = errors.New("HTTP 503")

// reply builds a host answer for a pending call.
func (s *psm) reply(t *rapid.T, r *prun, id callNo, c command) event {
	fail := rapid.IntRange(0, 6).Draw(t, "fail") == 0
	var err error
	if fail {
		err = smErrHost
	}
	switch c := c.(type) {
	case abort:
		return abortReply{Call: id, Confirmed: rapid.IntRange(0, 3).Draw(t, "confirmed") > 0, Err: err}
	case readStatus:
		snap := map[string]LiveStatus{}
		for _, sid := range s.ids {
			st := rapid.SampledFrom([]LiveStatus{LiveIdle, LiveIdle, LiveBusy,
				LiveRetry, LiveMalformed, LiveAbsent}).Draw(t, "live")
			if st != LiveAbsent {
				snap[sid] = st
			}
		}
		return statusReply{Call: id, Snapshot: snap, Err: err}
	case readSession:
		info := SessionInfo{ParentID: rapid.SampledFrom([]string{"par-A", "par-A", "par-B"}).Draw(t, "hostParent")}
		switch rapid.IntRange(0, 2).Draw(t, "idleAt") {
		case 0:
			info.IdleAt = s.now()
		case 1:
			info.IdleAt = s.now().Add(-time.Hour)
		}
		return sessionReply{Call: id, Info: info, Err: err}
	case readMessages:
		menu := [][]TranscriptEntry{
			nil,
			{{ID: "m1", Role: "user", Provider: "p", Model: "a", Text: "go"}},
			{{ID: "m1", Role: "user", Provider: "p", Model: "a", Text: "go"}, {ID: "m2", Role: "assistant", Provider: "p", Model: "b", Text: "done", Finished: true}},
			{{ID: "m3", Role: "assistant", Provider: "p", Model: "b", Error: "boom", Finished: true}},
		}
		e := menu[rapid.IntRange(0, len(menu)-1).Draw(t, "transcript")]
		if c.Limit > 0 && len(e) > c.Limit {
			e = e[len(e)-c.Limit:]
		}
		return messagesReply{Call: id, Entries: e, Err: err}
	case waitIdle:
		return idleReply{Call: id, Err: err}
	case writeMessage:
		return writeReply{Call: id, Err: err}
	case sendPrompt:
		return promptReply{Call: id, Err: err}
	}
	t.Fatalf("no reply for %T", c)
	return nil
}

// Settle answers one pending host call, optionally at exactly the due time of the run's
// earliest timer (the tick rule), and checks that a late settlement changes nothing but
// its own lease (invariant 8).
func (s *psm) Settle(t *rapid.T) {
	runs := s.openRuns(func(r *prun) bool { return len(r.pending) > 0 })
	if len(runs) == 0 {
		t.Skip("nothing pending")
	}
	r := rapid.SampledFrom(runs).Draw(t, "run")
	id := rapid.SampledFrom(sortedCalls(r.pending)).Draw(t, "call")
	c := r.pending[id]
	if rapid.IntRange(0, 3).Draw(t, "atDeadline") == 0 {
		if due, ok := earliest(r.timers); ok {
			s.clk.Set(due)
		}
	}
	ev := s.reply(t, r, id, c)
	delete(r.pending, id)
	r.settled[id] = ev
	if r.kind == "compensation" {
		if _, isAbort := c.(abort); !isAbort {
			if due, ok := earliest(r.timers); ok && !s.now().Before(due) {
				r.timedOut = true // settled at the deadline instant: late (tick rule)
			}
		}
		r.noteCompensationReply(ev, c)
	}

	late := r.m.Replied() && (r.kind == "cancel" || r.kind == "message")
	if _, isAbort := c.(abort); late && r.kind == "cancel" && !isAbort {
		late = false
	}
	if _, isWrite := c.(writeMessage); late && r.kind == "message" && !isWrite {
		late = false
	}
	var before Record
	var hadRec bool
	var leaseBefore []leaseGrant
	var others map[string]Record
	if late {
		before, hadRec = s.b.Get(r.taskID)
		leaseBefore = s.b.LeasesForTest()
		others = map[string]Record{}
		for _, rec := range s.b.allRecords() {
			if rec.TaskID != r.taskID {
				others[rec.TaskID] = rec
			}
		}
	}
	s.deliver(t, r, ev)
	if late {
		if after, ok := s.b.Get(r.taskID); hadRec && ok && !equalRecords(before, after) {
			t.Fatalf("late %s settlement changed the record:\n%s", r.kind, diffRecords(before, after))
		}
		for oid, rec := range others {
			if after, ok := s.b.Get(oid); ok && !equalRecords(rec, after) {
				t.Fatalf("late %s settlement on %s changed %s", r.kind, r.taskID, oid)
			}
		}
		now := s.b.LeasesForTest()
		for _, l := range now {
			if !slices.Contains(leaseBefore, l) {
				t.Fatalf("late %s settlement created lease %+v", r.kind, l)
			}
		}
		if len(leaseBefore)-len(now) > 1 {
			t.Fatalf("late %s settlement released %d leases", r.kind, len(leaseBefore)-len(now))
		}
	}
}

// HostSteps is a macro: up to ten host steps in a row (dispatch, settle or fire, drawn
// among what is possible), so multi-call protocols (revive: baseline, idle check, prompt,
// admission, observation; compensation: abort, read) reach their later phases.
func (s *psm) HostSteps(t *rapid.T) {
	n := rapid.IntRange(1, 20).Draw(t, "hostSteps")
	for range n {
		var opts []string
		if len(s.openRuns(func(r *prun) bool { return len(r.awaiting) > 0 })) > 0 {
			opts = append(opts, "dispatch", "dispatch")
		}
		if len(s.openRuns(func(r *prun) bool { return len(r.pending) > 0 })) > 0 {
			opts = append(opts, "settle", "settle", "settle")
		}
		if len(s.openRuns(func(r *prun) bool { return len(r.timers) > 0 })) > 0 {
			opts = append(opts, "fire")
		}
		if len(opts) == 0 {
			return
		}
		if len(s.openRuns(func(r *prun) bool {
			return r.kind == "revive" && r.hasPending(func(c command) bool { _, ok := c.(sendPrompt); return ok })
		})) > 0 {
			opts = append(opts, "delete")
		}
		opts = append(opts, "board")
		switch rapid.SampledFrom(opts).Draw(t, "hostStep") {
		case "delete":
			s.Delete(t)
		case "board": // a board change between two host steps
			switch rapid.IntRange(0, 3).Draw(t, "boardChange") {
			case 0:
				s.Complete(t)
			case 1:
				s.StealRelease(t)
			case 2:
				s.LiveBusy(t)
			case 3:
				s.Launch(t)
			}
		case "dispatch":
			s.Dispatch(t)
		case "settle":
			s.Settle(t)
		case "fire":
			s.Fire(t)
		}
		s.Check(t)
	}
}

// Duplicate re-delivers an already delivered reply: it must be ignored (37, 29).
func (s *psm) Duplicate(t *rapid.T) {
	runs := s.openRuns(func(r *prun) bool { return len(r.settled) > 0 })
	if len(runs) == 0 {
		t.Skip("nothing settled")
	}
	r := rapid.SampledFrom(runs).Draw(t, "run")
	id := rapid.SampledFrom(sortedCalls(r.settled)).Draw(t, "call")
	before := s.b.allRecords()
	leases := s.b.LeasesForTest()
	cmds := r.m.Step(s.b, r.settled[id])
	if len(cmds) != 0 || !slices.EqualFunc(before, s.b.allRecords(), equalRecords) || !slices.Equal(leases, s.b.LeasesForTest()) {
		t.Fatalf("%s acted on a duplicate reply (%d commands)", r.kind, len(cmds))
	}
}

// Bogus delivers a reply for a call and a firing for a timer the machine never issued.
func (s *psm) Bogus(t *rapid.T) {
	if len(s.runs) == 0 {
		t.Skip("no machine")
	}
	r := rapid.SampledFrom(s.runs).Draw(t, "run")
	before := s.b.allRecords()
	leases := s.b.LeasesForTest()
	for _, ev := range []event{abortReply{Call: 1 << 40, Confirmed: true}, fired{Timer: 1 << 40},
		promptReply{Call: 1 << 41}, dispatch{Call: 1 << 42}} {
		if cmds := r.m.Step(s.b, ev); len(cmds) != 0 {
			t.Fatalf("%s acted on an unknown event %T", r.kind, ev)
		}
	}
	if !slices.EqualFunc(before, s.b.allRecords(), equalRecords) || !slices.Equal(leases, s.b.LeasesForTest()) {
		t.Fatal("unknown events changed the board")
	}
}

func earliest(m map[timerID]time.Time) (time.Time, bool) {
	var best time.Time
	ok := false
	for _, d := range m {
		if !ok || d.Before(best) {
			best, ok = d, true
		}
	}
	return best, ok
}

// Scenario is a macro action: one tool protocol on a fresh running task, driven with the
// host answering every call at once and favourably, so that every test run reaches the
// deep phases (revive send, accept and observe; a verified cancel's commit; an orphaned
// revive's compensation; a v1 message with the identity read from the transcript). The
// other actions may interleave with what it leaves behind.
func (s *psm) Scenario(t *rapid.T) {
	id := rapid.SampledFrom(s.ids).Draw(t, "scenarioID")
	if _, leased := s.b.LeaseForTest(id); leased || s.b.isDisposed() {
		t.Skip("leased or closed")
	}
	s.b.Drop(id)
	rec, err := s.b.registerLaunch(launchInput{TaskID: id, ParentID: "par-A", Agent: "explorer"})
	if err != nil {
		t.Fatalf("RegisterLaunch for the scenario: %v", err)
	}
	kind := rapid.SampledFrom([]string{"revive", "cancel", "message", "compensation"}).Draw(t, "scenario")
	switch kind {
	case "cancel":
		s.start(t, "cancel", id, newCancel(pcaller, cancelArgs{Ref: id, Reason: "obsolete"}, s.caps))
	case "message":
		s.start(t, "message", id, newMessage(pcaller, messageArgs{Ref: id, Text: "also check the tests"}, s.caps))
	default:
		s.b.commitTerminal(commitInput{TaskID: id, Generation: rec.Generation, State: StateCompleted, Summary: "done"})
		r := s.start(t, "revive", id, newRevive(pcaller, reviveArgs{Ref: id, Prompt: "continue"}, s.caps))
		if kind == "compensation" {
			s.drive(t, func() bool {
				return r.hasPending(func(c command) bool { _, ok := c.(sendPrompt); return ok })
			})
			s.b.Drop(id) // deleted while the prompt's admission is unsettled
		}
	}
	s.drive(t, nil)
}

// drive answers every awaiting dispatch, pending call and armed timer, in run order, with
// favourable host replies, until nothing is left or stop reports true.
func (s *psm) drive(t *rapid.T, stop func() bool) {
	for range 200 {
		if stop != nil && stop() {
			return
		}
		if runs := s.openRuns(func(r *prun) bool { return len(r.awaiting) > 0 }); len(runs) > 0 {
			r := runs[0]
			call := sortedCalls(r.awaiting)[0]
			s.deliver(t, r, dispatch{Call: call})
			if _, still := r.awaiting[call]; still {
				t.Fatalf("%s answered a Dispatch with neither Proceed nor Withdraw", r.kind)
			}
		} else if runs := s.openRuns(func(r *prun) bool { return len(r.pending) > 0 }); len(runs) > 0 {
			r := runs[0]
			id := sortedCalls(r.pending)[0]
			c := r.pending[id]
			ev := s.favourable(id, c)
			delete(r.pending, id)
			r.settled[id] = ev
			if r.kind == "compensation" {
				r.noteCompensationReply(ev, c)
			}
			s.deliver(t, r, ev)
		} else if runs := s.openRuns(func(r *prun) bool { return len(r.timers) > 0 }); len(runs) > 0 {
			r := runs[0]
			var tid timerID
			var due time.Time
			for id, d := range r.timers {
				if tid == 0 || d.Before(due) || (d.Equal(due) && id < tid) {
					tid, due = id, d
				}
			}
			if due.After(s.now()) {
				s.clk.Set(due)
			}
			delete(r.timers, tid)
			if r.kind == "compensation" && len(r.pending) > 0 {
				r.timedOut = true
			}
			s.deliver(t, r, fired{Timer: tid})
		} else {
			return
		}
		s.Check(t)
	}
}

// favourable is the best answer a host can give to c: confirmed, idle, accepted, with a
// transcript that carries a model identity.
func (s *psm) favourable(id callNo, c command) event {
	switch c.(type) {
	case abort:
		return abortReply{Call: id, Confirmed: true}
	case readStatus:
		snap := map[string]LiveStatus{}
		for _, sid := range s.ids {
			snap[sid] = LiveIdle
		}
		return statusReply{Call: id, Snapshot: snap}
	case readSession:
		return sessionReply{Call: id, Info: SessionInfo{ParentID: "par-A", IdleAt: s.now()}}
	case readMessages:
		return messagesReply{Call: id, Entries: []TranscriptEntry{
			{ID: "m1", Role: "user", Provider: "p", Model: "a", Text: "go"},
			{ID: "m2", Role: "assistant", Provider: "p", Model: "b", Text: "done", Finished: true},
		}}
	case waitIdle:
		return idleReply{Call: id}
	case writeMessage:
		return writeReply{Call: id}
	case sendPrompt:
		return promptReply{Call: id}
	}
	return nil
}

// Fire advances the clock to one armed timer's due time (if needed) and fires it.
func (s *psm) Fire(t *rapid.T) {
	runs := s.openRuns(func(r *prun) bool { return len(r.timers) > 0 })
	if len(runs) == 0 {
		t.Skip("no timer")
	}
	r := rapid.SampledFrom(runs).Draw(t, "run")
	var ids []timerID
	for id := range r.timers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	id := rapid.SampledFrom(ids).Draw(t, "timer")
	s.clk.Set(r.timers[id])
	delete(r.timers, id)
	if r.kind == "compensation" && len(r.pending) > 0 {
		r.timedOut = true // the read's deadline passed with the read pending
	}
	s.deliver(t, r, fired{Timer: id})
}

// Close disposes the board as Driver.Close does: pending calls are abandoned (their
// settlements never delivered) and every later Dispatch must be withdrawn.
func (s *psm) Close(t *rapid.T) {
	if rapid.IntRange(0, 5).Draw(t, "reallyClose") != 0 {
		t.Skip("rarely")
	}
	leases := s.b.LeasesForTest()
	s.b.dispose()
	for _, r := range s.runs {
		r.pending = map[callNo]command{}
		r.timers = map[timerID]time.Time{}
	}
	if !slices.Equal(leases, s.b.LeasesForTest()) {
		t.Fatal("Close changed the leases (R100)")
	}
}

// --- board operations between machine steps -----------------------------------------

func (s *psm) Launch(t *rapid.T) {
	id := s.pickID(t)
	in := launchInput{TaskID: id, ParentID: rapid.SampledFrom([]string{"par-A", "par-A", "par-B"}).Draw(t, "parent"), Agent: "explorer"}
	if _, err := s.b.registerLaunch(in); err != nil && !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("RegisterLaunch: %v", err)
	}
}

func (s *psm) Complete(t *rapid.T) {
	id := s.pickID(t)
	r, ok := s.b.Get(id)
	if !ok {
		return
	}
	st := rapid.SampledFrom([]State{StateCompleted, StateError, StateStopped}).Draw(t, "state")
	s.b.commitTerminal(commitInput{TaskID: id, Generation: r.Generation, State: st, Summary: "done", ObservedAt: s.now()})
}

func (s *psm) Acknowledge(t *rapid.T) {
	s.b.acknowledgeShown("par-A", s.b.view("par-A").shown)
}

func (s *psm) LiveBusy(t *rapid.T) {
	id := s.pickID(t)
	if r, ok := s.b.Get(id); ok {
		s.clk.Advance(time.Millisecond)
		s.b.markRunningFromLive(id, r.Generation, s.now())
	}
}

// HostEvent applies an event the host reports on its own: an idle or absent reading
// (stop rule), a session error (deferrable or not), a busy without a generation, or a
// malformed reading.
func (s *psm) HostEvent(t *rapid.T) {
	id := s.pickID(t)
	r, ok := s.b.Get(id)
	if !ok {
		t.Skip("no record")
	}
	switch rapid.IntRange(0, 3).Draw(t, "event") {
	case 0:
		s.b.stopCandidate(id, r.Generation, s.now(), msgIdleUnconfirmed)
	case 1:
		s.b.observeError(id, nil, "provider overloaded", rapid.Bool().Draw(t, "deferrable"), s.now())
	case 2:
		s.b.observeBusy(id, nil, s.now())
	case 3:
		s.b.markStatusUncertain(id, r.Generation, msgMalformedEntry)
	}
}

func (s *psm) Delete(t *rapid.T) {
	id := s.pickID(t)
	// Favour a task whose revive prompt is in flight: the orphaned-admission path (R79.2,
	// compensation) needs a deletion exactly there.
	for _, r := range s.runs {
		if r.kind == "revive" && r.hasPending(func(c command) bool { _, ok := c.(sendPrompt); return ok }) &&
			rapid.Bool().Draw(t, "orphan") {
			id = r.taskID
			break
		}
	}
	if rapid.Bool().Draw(t, "drop") {
		s.b.Drop(id)
		return
	}
	var gen *uint64
	if r, ok := s.b.Get(id); ok {
		gen = &r.Generation
	}
	s.b.hostDeleted(deletionEvent{SessionID: id, Generation: gen})
}

func (s *psm) LeaseOp(t *rapid.T) {
	id := s.pickID(t)
	if rapid.Bool().Draw(t, "acquire") || len(s.issued) == 0 {
		r, ok := s.b.Get(id)
		if !ok {
			t.Skip("no record")
		}
		if l, ok := s.b.acquire(rapid.SampledFrom(leaseKinds[:]).Draw(t, "kind"), id, r.Generation, nil); ok {
			s.issued = append(s.issued, l)
			s.mine[l.Token] = true
		}
		return
	}
	s.b.release(rapid.SampledFrom(s.issued).Draw(t, "lease"))
}

// StealRelease releases any live lease with its exact token, as a buggy or foreign holder
// could (§5 E44: "the test releases the lease"); machines must notice at their next check.
func (s *psm) StealRelease(t *rapid.T) {
	live := s.b.LeasesForTest()
	if len(live) == 0 {
		return
	}
	l := rapid.SampledFrom(live).Draw(t, "steal")
	if !s.b.release(l) {
		t.Fatalf("exact release of live lease %+v failed", l)
	}
	s.stolen[l.Token] = true
}

func (s *psm) Tick(t *rapid.T) {
	s.clk.Advance(rapid.SampledFrom([]time.Duration{time.Millisecond, 150 * time.Millisecond, time.Second, 5 * time.Second, time.Hour}).Draw(t, "d"))
}

// --- invariants ----------------------------------------------------------------------

func (s *psm) Check(t *rapid.T) {
	// Notices: start a notification machine per completed/error publication of a revived
	// run's revision not notified yet (as the driver does), and hand LeaseReleased
	// notices to the parked ones.
	for _, n := range s.b.drain() {
		switch n.Kind {
		case noticeTerminal:
			if n.State != StateCompleted && n.State != StateError {
				continue
			}
			if r, ok := s.b.Get(n.TaskID); !ok || r.TaskGeneration < 2 {
				continue // the driver reports revived runs
			}
			k := [3]uint64{uint64(len(n.TaskID)), n.Generation, n.TerminalRevision}
			if s.notified[k] {
				continue
			}
			s.notified[k] = true
			s.start(t, "notify", n.TaskID, newNotify(n.ParentID, n, s.caps))
		case noticeLeaseReleased:
			for _, r := range s.runs {
				if r.kind == "notify" && !r.m.Done() {
					s.deliver(t, r, noticeEvent{Notice: n})
				}
			}
		}
	}
	checkBoardStructure(t, s.b, s.ids, []string{"par-A", "par-B"}, s.genOf, s.epochOf, s.aliasOf, &s.maxGen)

	live := s.b.LeasesForTest()
	for _, l := range live {
		if prev, ok := s.seen[l.Token]; ok && (prev.TaskID != l.TaskID || prev.Kind != l.Kind || prev.Generation != l.Generation) {
			t.Fatalf("token %d reused: %+v then %+v (2)", l.Token, prev, l)
		}
		if s.gone[l.Token] {
			t.Fatalf("token %d came back after its release", l.Token)
		}
		s.seen[l.Token] = l
	}
	for tok := range s.seen {
		if !slices.ContainsFunc(live, func(l leaseGrant) bool { return l.Token == tok }) {
			s.gone[tok] = true
		}
	}

	allDone := true
	for _, r := range s.runs {
		if r.kind == "compensation" && r.m.Done() && !s.b.isDisposed() {
			// 24: exactly one abort; 25: released iff the abort was confirmed and the
			// fresh read was quiescent (a timed-out read never releases).
			l := r.m.(*compensation).Lease()
			if r.aborts > 1 || (r.aborts == 0 && !s.stolen[l.Token]) {
				t.Fatalf("compensation for %s performed %d aborts", r.taskID, r.aborts)
			}
			live := s.b.validate(l)
			if r.readKnown && !r.timedOut && live == (r.abortOK && r.readQuiet) && !s.stolen[l.Token] {
				t.Fatalf("compensation for %s: lease live %v after abort ok %v, read quiescent %v", r.taskID, live, r.abortOK, r.readQuiet)
			}
			if !live && (!r.abortOK || r.timedOut) && !s.stolen[l.Token] {
				t.Fatalf("compensation for %s released its lease without a confirmed abort and a fresh quiescent read", r.taskID)
			}
		}
		if r.m.Done() {
			if len(r.pending) > 0 {
				t.Fatalf("%s is Done with %d host calls pending", r.kind, len(r.pending))
			}
		} else {
			allDone = false
		}
		if r.m.Replied() && !r.checked {
			r.checked = true
			s.checkReply(t, r)
		}
	}
	// 38: once every machine is Done, the only leases left are the test's own and
	// unconfirmed compensation leases.
	if allDone && !s.b.isDisposed() {
		for _, l := range live {
			if !s.mine[l.Token] && l.Owner != ownerCompensation {
				t.Fatalf("lease %+v outlived every machine", l)
			}
		}
	}
}

// checkReply runs the outcome checks at the moment a tool machine replies.
func (s *psm) checkReply(t *rapid.T, r *prun) {
	switch m := r.m.(type) {
	case *cancelM:
		res, err := m.Outcome()
		if err == nil && res.State == string(StateCancelled) {
			rec, ok := s.b.Get(r.taskID)
			l, _ := m.Lease()
			if ok && rec.Generation == l.Generation && rec.State != StateCancelled {
				t.Fatalf("cancel succeeded but %s is %s (27)", r.taskID, rec.State)
			}
			if live, ok := s.b.LeaseForTest(r.taskID); ok && live.Token == l.Token {
				t.Fatal("cancel succeeded with its lease still live (27)")
			}
		}
		if err != nil && errors.Is(err, ErrTimeout) && len(r.pending) == 0 && r.aborts > 0 && !s.b.isDisposed() {
			// abort timed out: its lease must stay live until the abort settles
			if l, held := m.Lease(); held && r.hasPendingAbort() {
				if !s.b.validate(l) && !s.stolen[l.Token] {
					t.Fatal("abort timed out but its lease was released")
				}
			}
		}
	case *messaging:
		res, err := m.Outcome()
		if err == nil && res.Status != "queued" {
			t.Fatalf("message status %q", res.Status)
		}
		if res.LeaseRetained && r.hasPending(func(c command) bool { _, ok := c.(writeMessage); return ok }) {
			if l, ok := s.b.LeaseForTest(r.taskID); (!ok || l.Kind != leaseMessage) && !s.anyStolen(r.taskID) {
				t.Fatal("LeaseRetained with the write pending but no message lease is live (9)")
			}
		}
		if err != nil && !r.hasPending(func(c command) bool { _, ok := c.(writeMessage); return ok }) {
			// any failure with no write pending leaves the message lease free (9)
			if l, ok := s.b.LeaseForTest(r.taskID); ok && l.Kind == leaseMessage && !s.mine[l.Token] && !s.messageRunHolds(r) {
				t.Fatalf("message failed (%v) and left its lease %+v", err, l)
			}
		}
	case *reviveM:
		res, err := m.Outcome()
		if gen, registered := m.Registered(); registered {
			rec, ok := s.b.Get(r.taskID)
			becameStale := err != nil && strings.Contains(err.Error(), "revive became stale before launch completed")
			if becameStale && ok && rec.Generation == gen {
				t.Fatalf("revive became stale although %s still holds generation %d (31)", r.taskID, gen)
			}
			if err == nil && res.Status != reviveAdmissionUnknown && (!ok || rec.Generation != gen || res.Generation != gen) {
				t.Fatalf("revive succeeded with generation %d but the record holds %d (31)", gen, rec.Generation)
			}
		}
		if err == nil && res.Status == reviveAdmissionUnknown && (res.Generation != r.preGen || res.State != r.preState) {
			t.Fatalf("admission_unknown shows generation %d %s, pre-admission was %d %s (30)", res.Generation, res.State, r.preGen, r.preState)
		}
		promptPending := r.hasPending(func(c command) bool { _, ok := c.(sendPrompt); return ok })
		if err == nil && res.Status == reviveAdmissionUnknown && promptPending && !s.anyStolen(r.taskID) {
			if l, ok := s.b.LeaseForTest(r.taskID); !ok || l.Owner != ownerAdmission {
				t.Fatalf("admission_unknown without an admission-owned lease (%+v)", l)
			}
		}
	}
}

// noteCompensationReply records what the compensation machine was told, so the release
// rule (25) can be checked when it is Done.
func (r *prun) noteCompensationReply(ev event, c command) {
	switch e := ev.(type) {
	case abortReply:
		r.abortOK = e.Err == nil && e.Confirmed
	case statusReply:
		entry, present := e.Snapshot[r.taskID]
		r.readKnown = true
		r.readQuiet = e.Err == nil && (!present || entry == LiveIdle)
	case idleReply:
		r.readKnown = true
		r.readQuiet = e.Err == nil
	}
}

// anyStolen reports whether the test released a lease of taskID behind its holder's back.
func (s *psm) anyStolen(taskID string) bool {
	for tok := range s.stolen {
		if s.seen[tok].TaskID == taskID {
			return true
		}
	}
	return false
}

func (r *prun) hasPending(pred func(command) bool) bool {
	for _, c := range r.pending {
		if pred(c) {
			return true
		}
	}
	return false
}

// messageRunHolds reports whether another, unfinished message machine may hold the lease.
func (s *psm) messageRunHolds(self *prun) bool {
	for _, r := range s.runs {
		if r != self && r.kind == "message" && r.taskID == self.taskID && !r.m.Done() {
			return true
		}
	}
	return false
}

func (r *prun) hasPendingAbort() bool {
	for _, c := range r.pending {
		if _, ok := c.(abort); ok {
			return true
		}
	}
	return false
}

// checkBoardStructure checks the model-free invariants of §6 on any board.
func checkBoardStructure(t *rapid.T, b *Board, ids, parents []string, genOf, epochOf map[string]uint64, aliasOf map[[2]string]string, maxGen *uint64) {
	live := b.LeasesForTest()
	seenIDs := map[string]bool{}
	for i, l := range live {
		if seenIDs[l.TaskID] {
			t.Fatalf("two live leases for %s (1)", l.TaskID)
		}
		seenIDs[l.TaskID] = true
		if i > 0 && live[i-1].TaskID >= l.TaskID {
			t.Fatal("LiveLeases not sorted by task ID (12)")
		}
		if !b.isTracked(l.TaskID) {
			t.Fatalf("leased %s not tracked", l.TaskID)
		}
		if r, ok := b.Get(l.TaskID); ok {
			for _, k := range leaseKinds[:] {
				if _, ok := b.acquire(k, l.TaskID, r.Generation, nil); ok {
					t.Fatalf("acquired %s while %+v is live (4)", k, l)
				}
			}
		}
	}
	aliases := map[[2]string]string{}
	for _, r := range b.allRecords() {
		if r.Generation < genOf[r.TaskID] {
			t.Fatalf("generation of %s went back (13)", r.TaskID)
		}
		genOf[r.TaskID] = r.Generation
		*maxGen = max(*maxGen, r.Generation)
		switch {
		case r.TerminalUnreconciled && !r.State.terminal(),
			r.State == StateReconciled && (r.TerminalState == "" || r.TerminalUnreconciled),
			r.State == StateRunning && r.TerminalUnreconciled,
			r.State == StateStopped && r.TerminalState != "":
			t.Fatalf("record %s breaks the state invariants (18): %+v", r.TaskID, r)
		}
		if r.reusable(DefaultMaxContextLines) && r.State == StateStopped {
			t.Fatalf("stopped %s reusable (20)", r.TaskID)
		}
		if b.tombstoned(r.TaskID) {
			t.Fatalf("%s tracked and tombstoned", r.TaskID)
		}
		k := [2]string{r.ParentID, r.Alias}
		if other, dup := aliases[k]; dup {
			t.Fatalf("alias %s shared by %s and %s (21)", r.Alias, other, r.TaskID)
		}
		aliases[k] = r.TaskID
		if owner, ok := aliasOf[k]; ok && owner != r.TaskID {
			t.Fatalf("alias %s reused (21)", r.Alias)
		}
		aliasOf[k] = r.TaskID
		for _, p := range parents {
			if got, ok := b.Resolve(p, r.TaskID); ok != (p == r.ParentID) || (ok && got.TaskID != r.TaskID) {
				t.Fatalf("Resolve(%s, %s) crossed parents (20)", p, r.TaskID)
			}
		}
	}
	maxEpoch := uint64(0)
	for _, e := range epochOf {
		maxEpoch = max(maxEpoch, e)
	}
	for _, id := range ids {
		ep, ok := b.deletionEpoch(id)
		if b.tombstoned(id) && !ok {
			t.Fatalf("%s tombstoned without an epoch (23)", id)
		}
		prev, had := epochOf[id]
		if had && (!ok || ep < prev) {
			t.Fatalf("epoch of %s lost or went back (23)", id)
		}
		if ok && ep != prev && ep <= maxEpoch {
			t.Fatalf("new epoch %d of %s not above %d (23)", ep, id, maxEpoch)
		}
		if ok {
			epochOf[id] = ep
		}
	}
}
