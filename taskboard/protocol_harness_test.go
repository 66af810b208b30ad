package taskboard

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The protocol harness runs step machines by hand, as §5 asks: host calls stay pending
// until the test settles them, guarded calls wait for an explicit Dispatch, timers fire only
// when the test advances the fake clock, and any board operation may run in between.

var pStart = time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)

const (
	parent1 = "parent-1"
	parent2 = "parent-2"
)

var (
	orch = Caller{SessionID: parent1, Agent: "orchestrator"}
	v1   = caps{Flavor: FlavorV1, StatusMap: true}
	v2   = caps{Flavor: FlavorV2}
	v2w  = caps{Flavor: FlavorV2, IdleWaiter: true}
)

type rig struct {
	t    tbT
	b    *Board
	clk  *manualClock
	runs []*mrun
	// performed lists every host call actually made, in order, across machines.
	performed []command
	logs      []logLine
}

type mrun struct {
	r         *rig
	m         machine
	pending   map[callNo]command // performed, not settled
	awaiting  map[callNo]command // guarded, waiting for Dispatch
	withdrawn map[callNo]bool
	cancelled map[callNo]bool
	timers    map[timerID]time.Time
	order     []callNo
}

func newRig(t tbT, o Options) *rig {
	t.Helper()
	clk := newManualClock(pStart)
	b, err := NewBoard(withClock(o, clk))
	if err != nil {
		t.Fatalf("NewBoard: %v", err)
	}
	b.manage(parent1)
	b.manage(parent2)
	return &rig{t: t, b: b, clk: clk}
}

func (r *rig) launch(id, parent, agent string) Record {
	r.t.Helper()
	rec, err := r.b.registerLaunch(launchInput{TaskID: id, ParentID: parent, Agent: agent, Description: "work on " + id, Objective: "objective " + id})
	if err != nil {
		r.t.Fatalf("RegisterLaunch(%s): %v", id, err)
	}
	r.b.drain()
	return rec
}

func (r *rig) get(id string) Record {
	r.t.Helper()
	rec, ok := r.b.Get(id)
	if !ok {
		r.t.Fatalf("record %s missing", id)
	}
	return rec
}

func (r *rig) complete(id, text string) Record {
	r.t.Helper()
	rec, g := r.b.commitTerminal(commitInput{TaskID: id, Generation: r.get(id).Generation, State: StateCompleted, Summary: text})
	if g != gateCommitted {
		r.t.Fatalf("complete %s: %s", id, g)
	}
	return rec
}

func (r *rig) commit(id string, st State, text string) Record {
	r.t.Helper()
	rec, g := r.b.commitTerminal(commitInput{TaskID: id, Generation: r.get(id).Generation, State: st, Summary: text})
	if g != gateCommitted {
		r.t.Fatalf("commit %s %s: %s", id, st, g)
	}
	return rec
}

func (r *rig) ack(id string) Record {
	r.t.Helper()
	rec := r.get(id)
	out, ok := r.b.markReconciled(id, rec.Generation, rec.TerminalRevision)
	if !ok {
		r.t.Fatalf("MarkReconciled(%s) refused", id)
	}
	return out
}

func (r *rig) start(m machine) *mrun {
	mr := &mrun{r: r, m: m, pending: map[callNo]command{}, awaiting: map[callNo]command{},
		withdrawn: map[callNo]bool{}, cancelled: map[callNo]bool{}, timers: map[timerID]time.Time{}}
	r.runs = append(r.runs, mr)
	mr.exec(m.Start(r.b))
	return mr
}

func (mr *mrun) exec(cmds []command) {
	for _, c := range cmds {
		switch c := c.(type) {
		case startTimer:
			mr.timers[c.Timer] = mr.r.b.now().Add(c.After)
		case stopTimer:
			delete(mr.timers, c.Timer)
		case cancelCall:
			delete(mr.pending, c.Call)
			mr.cancelled[c.Call] = true
		case logLine:
			mr.r.logs = append(mr.r.logs, c)
		case spawn:
			mr.r.start(c.Machine)
		case proceed:
			call := mr.awaiting[c.Call]
			delete(mr.awaiting, c.Call)
			mr.pending[c.Call] = call
			mr.r.performed = append(mr.r.performed, call)
		case withdraw:
			delete(mr.awaiting, c.Call)
			mr.withdrawn[c.Call] = true
		default:
			id := callID(c)
			mr.order = append(mr.order, id)
			switch c.(type) {
			case abort, writeMessage, sendPrompt:
				mr.awaiting[id] = c
			default:
				mr.pending[id] = c
				mr.r.performed = append(mr.r.performed, c)
			}
		}
	}
}

func callID(c command) callNo {
	v := reflect.ValueOf(c).FieldByName("Call")
	return callNo(v.Uint())
}

func (mr *mrun) step(ev event) {
	if _, isDispatch := ev.(dispatch); !isDispatch {
		if v := reflect.ValueOf(ev).FieldByName("Call"); v.IsValid() {
			delete(mr.pending, callNo(v.Uint()))
		}
	}
	mr.exec(mr.m.Step(mr.r.b, ev))
}

// dispatch delivers Dispatch to the oldest guarded call waiting for it.
func (mr *mrun) dispatch() {
	mr.r.t.Helper()
	for _, id := range mr.order {
		if _, ok := mr.awaiting[id]; ok {
			mr.step(dispatch{Call: id})
			return
		}
	}
	mr.r.t.Fatalf("no guarded call awaits Dispatch")
}

// call returns the oldest pending call of the given type ("Abort", "ReadStatus", …).
func (mr *mrun) call(kind string) (callNo, bool) {
	for _, id := range mr.order {
		if c, ok := mr.pending[id]; ok && kindIs(c, kind) {
			return id, true
		}
	}
	return 0, false
}

func (mr *mrun) must(kind string) callNo {
	mr.r.t.Helper()
	id, ok := mr.call(kind)
	if !ok {
		mr.r.t.Fatalf("no pending %s call; pending=%v awaiting=%v", kind, mr.pending, mr.awaiting)
	}
	return id
}

func (mr *mrun) has(kind string) bool { _, ok := mr.call(kind); return ok }

// Replies to the oldest pending call of each kind.
func (mr *mrun) abort(confirmed bool, err error) {
	mr.r.t.Helper()
	mr.step(abortReply{Call: mr.must("Abort"), Confirmed: confirmed, Err: err})
}
func (mr *mrun) status(s map[string]LiveStatus, err error) {
	mr.r.t.Helper()
	mr.step(statusReply{Call: mr.must("ReadStatus"), Snapshot: s, Err: err})
}
func (mr *mrun) session(info SessionInfo, err error) {
	mr.r.t.Helper()
	mr.step(sessionReply{Call: mr.must("ReadSession"), Info: info, Err: err})
}
func (mr *mrun) messages(es []TranscriptEntry, err error) {
	mr.r.t.Helper()
	mr.step(messagesReply{Call: mr.must("ReadMessages"), Entries: es, Err: err})
}
func (mr *mrun) idle(err error) {
	mr.r.t.Helper()
	mr.step(idleReply{Call: mr.must("WaitIdle"), Err: err})
}
func (mr *mrun) write(err error) {
	mr.r.t.Helper()
	mr.step(writeReply{Call: mr.must("WriteMessage"), Err: err})
}
func (mr *mrun) prompt(err error) {
	mr.r.t.Helper()
	mr.step(promptReply{Call: mr.must("SendPrompt"), Err: err})
}

// advance moves the clock by d, firing every due timer of every machine in due order
// (timers due at the same instant fire in the order they were started).
func (r *rig) advance(d time.Duration) {
	end := r.clk.Now().Add(d)
	for {
		var best *mrun
		var bestID timerID
		var bestDue time.Time
		for _, mr := range r.runs {
			for id, due := range mr.timers {
				if due.After(end) {
					continue
				}
				if best == nil || due.Before(bestDue) || (due.Equal(bestDue) && (mr != best && indexOf(r.runs, mr) < indexOf(r.runs, best) || mr == best && id < bestID)) {
					best, bestID, bestDue = mr, id, due
				}
			}
		}
		if best == nil {
			break
		}
		r.clk.Set(bestDue)
		delete(best.timers, bestID)
		best.step(fired{Timer: bestID})
	}
	r.clk.Set(end)
}

func indexOf(runs []*mrun, m *mrun) int {
	for i, x := range runs {
		if x == m {
			return i
		}
	}
	return -1
}

// count returns how many performed host calls have the given type.
func (r *rig) count(kind string) int {
	n := 0
	for _, c := range r.performed {
		if kindIs(c, kind) {
			n++
		}
	}
	return n
}

func (r *rig) logged(msg string) bool {
	for _, l := range r.logs {
		if l.Msg == msg {
			return true
		}
	}
	return false
}

func (r *rig) noLease(id string) {
	r.t.Helper()
	if l, ok := r.b.LeaseForTest(id); ok {
		r.t.Fatalf("lease %v still live for %s", l, id)
	}
}

func (r *rig) hasLease(id string, kind leaseKind) leaseGrant {
	r.t.Helper()
	l, ok := r.b.LeaseForTest(id)
	if !ok || l.Kind != kind {
		r.t.Fatalf("want a live %s lease for %s, got %v (live=%t)", kind, id, l, ok)
	}
	return l
}

// outcome extracts the tool outcome of a machine.
type outcomer[R any] interface{ Outcome() (R, error) }

func outcome[R any](t *testing.T, mr *mrun) (R, error) {
	t.Helper()
	if !mr.m.Replied() {
		t.Fatalf("machine has not replied")
	}
	return mr.m.(outcomer[R]).Outcome()
}

// checkErr asserts err is a *ToolError of kind whose message contains msg ("" = any).
func checkErr(t *testing.T, err, kind error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %v %q, got nil", kind, msg)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("want kind %v, got %v (%q)", kind, errors.Unwrap(err), err)
	}
	var te *ToolError
	if !errors.As(err, &te) {
		t.Fatalf("want *ToolError, got %T", err)
	}
	if msg != "" && !strings.Contains(te.Message, msg) {
		t.Fatalf("message %q does not contain %q", te.Message, msg)
	}
}

func exactErr(t *testing.T, err, kind error, msg string) {
	t.Helper()
	checkErr(t, err, kind, "")
	if err.Error() != msg {
		t.Fatalf("message:\n got %q\nwant %q", err.Error(), msg)
	}
}

// leaseErr checks an ErrLeaseUnavailable refusal: it starts with msg and names the
// operator's way out, Board.ForceRelease, and its risk.
func leaseErr(t *testing.T, err error, msg string) {
	t.Helper()
	checkErr(t, err, ErrLeaseUnavailable, "")
	if !strings.HasPrefix(err.Error(), msg) || !strings.Contains(err.Error(), "Board.ForceRelease(") || !strings.Contains(err.Error(), "risks") {
		t.Fatalf("message:\n got %q\nwant prefix %q naming Board.ForceRelease and its risk", err.Error(), msg)
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func idle(ids ...string) map[string]LiveStatus {
	s := map[string]LiveStatus{}
	for _, id := range ids {
		s[id] = LiveIdle
	}
	return s
}

func busy(ids ...string) map[string]LiveStatus {
	s := map[string]LiveStatus{}
	for _, id := range ids {
		s[id] = LiveBusy
	}
	return s
}

func done(t *testing.T, mr *mrun) {
	t.Helper()
	if !mr.m.Done() {
		t.Fatalf("machine not done: pending=%v awaiting=%v timers=%v", mr.pending, mr.awaiting, mr.timers)
	}
}

var errHost = fmt.Errorf("HTTP 500")

// kindIs reports whether command c is of the kind named like its host call ("Abort",
// "ReadStatus", …; the command types themselves are unexported).
func kindIs(c command, kind string) bool {
	n := reflect.TypeOf(c).Name()
	return n != "" && kind != "" && strings.EqualFold(n[:1], kind[:1]) && n[1:] == kind[1:]
}
