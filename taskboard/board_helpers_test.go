package taskboard

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

type env struct {
	t   *testing.T
	b   *Board
	clk *manualClock
}

func newEnv(t *testing.T, o Options) *env {
	t.Helper()
	clk := newManualClock(t0)
	b, err := NewBoard(withClock(o, clk))
	if err != nil {
		t.Fatalf("NewBoard: %v", err)
	}
	return &env{t: t, b: b, clk: clk}
}

func (e *env) tick(d time.Duration) { e.clk.Advance(d) }

func (e *env) launch(id, parent, agent string) Record {
	e.t.Helper()
	r, err := e.b.registerLaunch(launchInput{TaskID: id, ParentID: parent, Agent: agent, Description: "do " + id})
	if err != nil {
		e.t.Fatalf("RegisterLaunch(%s): %v", id, err)
	}
	return r
}

func (e *env) rec(id string) Record {
	e.t.Helper()
	r, ok := e.b.Get(id)
	if !ok {
		e.t.Fatalf("record %s missing", id)
	}
	return r
}

func (e *env) commit(id string, st State, summary string) (Record, gateResult) {
	e.t.Helper()
	return e.b.commitTerminal(commitInput{TaskID: id, Generation: e.rec(id).Generation, State: st, Summary: summary, ObservedAt: e.b.now()})
}

func (e *env) mustCommit(id string, st State, summary string) Record {
	e.t.Helper()
	r, g := e.commit(id, st, summary)
	if g != gateCommitted {
		e.t.Fatalf("commit %s %s: %s", id, st, g)
	}
	return r
}

func (e *env) ack(id string) Record {
	e.t.Helper()
	r := e.rec(id)
	out, ok := e.b.markReconciled(id, r.Generation, r.TerminalRevision)
	if !ok {
		e.t.Fatalf("MarkReconciled(%s) refused (state %s)", id, r.State)
	}
	return out
}

// stop drives the stop rule to a committed stopped state.
func (e *env) stop(id string) Record {
	e.t.Helper()
	gen := e.rec(id).Generation
	e.tick(time.Millisecond)
	if _, g := e.b.stopCandidate(id, gen, e.b.now(), msgIdleUnconfirmed); g != gateDeferred {
		e.t.Fatalf("first stop candidate: %s", g)
	}
	e.tick(5 * time.Second)
	r, g := e.b.stopCandidate(id, gen, e.b.now(), msgIdleUnconfirmed)
	if g != gateCommitted || r.State != StateStopped {
		e.t.Fatalf("second stop candidate: %s %s", g, r.State)
	}
	return r
}

func (e *env) acquire(kind leaseKind, id string) leaseGrant {
	e.t.Helper()
	l, ok := e.b.acquire(kind, id, e.rec(id).Generation, nil)
	if !ok {
		e.t.Fatalf("Acquire(%s, %s) refused", kind, id)
	}
	return l
}

func (e *env) noticesOf(kind string) []Notice {
	var out []Notice
	for _, n := range e.b.drain() {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

func wantErr(t *testing.T, err, kind error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %q, got nil", msg)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error %v is not %v", err, kind)
	}
	var te *ToolError
	if !errors.As(err, &te) {
		t.Fatalf("error %T is not *ToolError", err)
	}
	if te.Message != msg {
		t.Fatalf("message:\n got %q\nwant %q", te.Message, msg)
	}
}

func contains(t *testing.T, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q does not contain %q", s, sub)
	}
}

func notContains(t *testing.T, s, sub string) {
	t.Helper()
	if strings.Contains(s, sub) {
		t.Fatalf("%q contains %q", s, sub)
	}
}

func ptr[T any](v T) *T { return &v }

// withClock returns o reading time from c.
func withClock(o Options, c Clock) Options {
	o.Clock = c
	return o
}
