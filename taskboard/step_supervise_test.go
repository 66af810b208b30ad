package taskboard

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestSuperviseScenarios(t *testing.T) {
	wall := Options{WallClock: time.Minute, AbortGrace: 2 * time.Second}
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E141_past_limit_claim_abort_grace_error_unconfirmed", run: func(t *testing.T, r *rig) {
			rec := r.launch("ses_w", parent1, "explorer")
			s := r.start(newSupervise("ses_w", rec.Generation))
			r.advance(time.Minute)
			if got := r.get("ses_w"); !got.TimedOut || got.DeadlineExceededAt.IsZero() || got.State != StateRunning {
				t.Fatalf("after the limit: %+v", got)
			}
			s.dispatch()
			if r.count("Abort") != 1 {
				t.Fatal("want one abort")
			}
			r.advance(2 * time.Second)
			got := r.get("ses_w")
			if got.State != StateError || !got.TimedOut || !got.StatusUncertain || got.LastStatusError != msgAbortUnconfirmed {
				t.Fatalf("after the grace: %+v", got)
			}
			if _, g := r.b.commitTerminal(commitInput{TaskID: "ses_w", Generation: rec.Generation, State: StateCompleted, Summary: "late"}); g != gateStale {
				t.Fatalf("late completion: %s", g)
			}
			s.abort(true, nil) // late abort: ignored
			done(t, s)
		}},
		{name: "E141_abort_confirmed_within_grace_not_uncertain", run: func(t *testing.T, r *rig) {
			rec := r.launch("ses_w", parent1, "explorer")
			s := r.start(newSupervise("ses_w", rec.Generation))
			r.advance(time.Minute)
			s.dispatch()
			s.abort(true, nil)
			r.advance(2 * time.Second)
			if got := r.get("ses_w"); got.State != StateError || got.StatusUncertain {
				t.Fatalf("%+v", got)
			}
		}},
		{name: "finished_before_limit_no_claim", run: func(t *testing.T, r *rig) {
			rec := r.launch("ses_w", parent1, "explorer")
			s := r.start(newSupervise("ses_w", rec.Generation))
			r.complete("ses_w", "ok")
			r.advance(time.Minute)
			if r.count("Abort") != 0 || s.m.(*supervise).Claimed() {
				t.Fatal("claimed a finished run")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, wall)) })
	}
}

// The driver arms a supervisor at each registration and stops it when the run ends.
func TestDriverSupervisor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := NewBoard(Options{Clock: systemClock{}, WallClock: time.Minute})
		h := &fakeHost{}
		d, _ := newDriverOn(b, Host{Aborter: h, Prompter: h, Sessions: h, Idle: h, Flavor: FlavorV2})
		b.manage(parent1)
		plan, _ := d.Task(context.Background(), orch, TaskCall{Agent: "explorer"})
		if _, err := d.FinishTask(plan, LaunchObservation{TaskID: "ses_1"}); err != nil {
			t.Fatal(err)
		}
		plan, _ = d.Task(context.Background(), orch, TaskCall{Agent: "fixer"})
		d.FinishTask(plan, LaunchObservation{TaskID: "ses_2", TerminalState: StateCompleted, TerminalSummary: "quick"})
		time.Sleep(time.Minute + 11*time.Second)
		synctest.Wait()
		var r1, r2 Record
		d.Do("", func(b *Board) { r1, _ = b.Get("ses_1"); r2, _ = b.Get("ses_2") })
		if r1.State != StateError || !r1.TimedOut || r2.State == StateError || h.count("abort ses_1") != 1 || h.count("abort ses_2") != 0 {
			t.Fatalf("ses_1 %s timedOut=%t; ses_2 %s; calls %v", r1.State, r1.TimedOut, r2.State, h.calls)
		}
		if d.pending() != 0 {
			t.Fatalf("pending: %v", d.PendingKinds())
		}
		d.Close()
	})
}
