package taskboard

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestDriverEvents(t *testing.T) {
	tests := []struct {
		name string
		opts []func(*Options)
		run  func(t *testing.T, x *drv)
	}{
		{name: "parent_idle_acknowledges_what_the_view_showed", run: func(t *testing.T, x *drv) {
			x.launch("ses_a", parent1)
			x.d.Do("", func(b *Board) {
				b.commitTerminal(commitInput{TaskID: "ses_a", Generation: 1, State: StateCompleted, Summary: "ok"})
			})
			x.d.Observe(HostEvent{Kind: EventParentIdle, SessionID: parent1})
			time.Sleep(3 * time.Second)
			synctest.Wait()
			if x.rec("ses_a").State != StateCompleted {
				t.Fatal("acknowledged without a rendered view")
			}
			if v, err := x.d.render(parent1); err != nil || len(v.shown) != 1 {
				t.Fatalf("shown %v", v.shown)
			}
			x.d.Observe(HostEvent{Kind: EventParentIdle, SessionID: parent1})
			time.Sleep(time.Second)
			synctest.Wait()
			if x.rec("ses_a").State != StateCompleted {
				t.Fatal("acknowledged before the 2 s idle delay")
			}
			time.Sleep(time.Second)
			synctest.Wait()
			if r := x.rec("ses_a"); r.State != StateReconciled {
				t.Fatalf("state %s", r.State)
			}
		}},
		{name: "user_message_event_clears_the_wait_only_when_typed_by_a_person", run: func(t *testing.T, x *drv) {
			if _, err := x.d.WaitForUser(orch, "need input"); err != nil {
				t.Fatal(err)
			}
			waiting := func() (w bool) {
				x.d.Do(parent1, func(b *Board) { w = b.Waiting(parent1) })
				return w
			}
			for _, ev := range []HostEvent{
				{Kind: EventUserMessage, SessionID: parent1, MessageID: "m1", Role: "user", Parts: []Part{{Kind: "text", Synthetic: true}}},
				{Kind: EventUserMessage, SessionID: parent1, MessageID: "m1", Role: "assistant", Parts: []Part{{Kind: "text"}}},
				{Kind: EventUserMessage, SessionID: parent1, MessageID: "m1", Role: "user", Parts: []Part{{Kind: "text"}, {Kind: "text", Internal: true}}},
				{Kind: EventUserMessage, SessionID: parent1, MessageID: "m1", Role: "user", Parts: []Part{{Kind: "tool"}}},
				{Kind: EventUserMessage, SessionID: "someone-else", MessageID: "m1", Role: "user", Parts: []Part{{Kind: "text"}}},
			} {
				x.d.Observe(ev)
				if !waiting() {
					t.Fatalf("%+v cleared the wait", ev)
				}
			}
			real := HostEvent{Kind: EventUserMessage, SessionID: parent1, MessageID: "m1", Role: "user", Parts: []Part{{Kind: "file"}}}
			x.d.Observe(real)
			if waiting() {
				t.Fatal("a real user message did not clear the wait")
			}
			if _, err := x.d.WaitForUser(orch, "again"); err != nil {
				t.Fatal(err)
			}
			x.d.Observe(real) // a replay of the same message
			if !waiting() {
				t.Fatal("a replayed message cleared the wait")
			}
		}},
		{name: "child_idle_evidence_commits_completed", run: func(t *testing.T, x *drv) {
			x.launch("ses_a", parent1)
			x.d.Observe(HostEvent{Kind: EventIdle, SessionID: "ses_a"})
			time.Sleep(2*time.Second + time.Millisecond)
			synctest.Wait()
			if r := x.rec("ses_a"); r.State != StateCompleted || r.ResultSummary != "answer" {
				t.Fatalf("record %s %q", r.State, r.ResultSummary)
			}
			res, err := x.d.Result(context.Background(), orch, "exp-1")
			noErr(t, err)
			if res.Text != "answer" {
				t.Fatalf("result %+v", res)
			}
		}},
		{name: "E97_stale_generation_events_ignored", run: func(t *testing.T, x *drv) {
			x.launch("ses_a", parent1)
			stale := uint64(99)
			before := x.rec("ses_a")
			x.d.Observe(HostEvent{Kind: EventError, SessionID: "ses_a", Generation: &stale, Message: "boom"})
			x.d.Observe(HostEvent{Kind: EventIdle, SessionID: "ses_a", Generation: &stale})
			time.Sleep(3 * time.Second)
			synctest.Wait()
			if after := x.rec("ses_a"); !equalRecords(before, after) {
				t.Fatalf("stale events changed the record: %s", diffRecords(before, after))
			}
		}},
		{name: "E102_error_then_idle_stays_error", run: func(t *testing.T, x *drv) {
			x.launch("ses_a", parent1)
			x.d.Observe(HostEvent{Kind: EventError, SessionID: "ses_a", Message: "model crashed"})
			x.d.Observe(HostEvent{Kind: EventIdle, SessionID: "ses_a"})
			time.Sleep(10 * time.Second)
			synctest.Wait()
			if r := x.rec("ses_a"); r.State != StateError || r.ResultSummary != "model crashed" {
				t.Fatalf("record %s %q", r.State, r.ResultSummary)
			}
		}},
		{name: "E45_parked_notification_runs_after_the_late_abort", opts: []func(*Options){notifyAll}, run: func(t *testing.T, x *drv) {
			gate := make(chan struct{})
			x.h.abort = func(ctx context.Context, id string) (bool, error) { return true, blockUntil(ctx, gate) }
			x.launch("ses_a", parent1)
			_, err := x.d.Cancel(context.Background(), orch, "ses_a", "")
			exactErr(t, err, ErrTimeout, "Session abort timed out after 10000ms")
			x.d.Do("", func(b *Board) {
				b.commitTerminal(commitInput{TaskID: "ses_a", Generation: 1, State: StateCompleted, Summary: "done anyway"})
			})
			synctest.Wait()
			if x.h.count("prompt") != 0 {
				t.Fatal("notification sent while the cancellation lease is live")
			}
			if l, ok := x.lease("ses_a"); !ok || l.Kind != leaseCancellation {
				t.Fatalf("lease %v", l)
			}
			close(gate)
			synctest.Wait()
			if x.h.count("prompt "+parent1) != 1 {
				t.Fatalf("calls %v", x.h.calls)
			}
			if r := x.rec("ses_a"); r.State != StateCompleted || x.h.count("status") != 0 {
				t.Fatalf("late abort verified or changed the record: %s", r.State)
			}
			if _, ok := x.lease("ses_a"); ok {
				t.Fatal("lease left after the notification")
			}
		}},
		{name: "notify_all_reports_every_finished_run", opts: []func(*Options){notifyAll}, run: func(t *testing.T, x *drv) {
			var launched int
			x.d.OnLaunched(func(Notice) error { launched++; return nil })
			plan, err := x.d.Task(context.Background(), orch, TaskCall{Agent: "explorer"})
			noErr(t, err)
			if _, err := x.d.FinishTask(plan, LaunchObservation{TaskID: "ses_n"}); err != nil {
				t.Fatal(err)
			}
			x.d.Do("", func(b *Board) {
				b.commitTerminal(commitInput{TaskID: "ses_n", Generation: 1, State: StateError, Summary: "bad"})
			})
			synctest.Wait()
			if launched != 1 || x.h.count("prompt "+parent1) != 1 {
				t.Fatalf("launched %d, calls %v", launched, x.h.calls)
			}
			// A failed task() releases its resume lease.
			x.d.Do("", func(b *Board) {
				r, _ := b.Get("ses_n")
				b.markReconciled("ses_n", r.Generation, r.TerminalRevision)
			})
			plan, err = x.d.Task(context.Background(), orch, TaskCall{Agent: "explorer", Ref: "ses_n"})
			noErr(t, err)
			if _, ok := x.lease("ses_n"); !ok {
				t.Fatal("resume holds no lease")
			}
			x.d.FailTask(plan)
			if _, ok := x.lease("ses_n"); ok {
				t.Fatal("FailTask kept the lease")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				x := newDrv(t, true, tc.opts...)
				tc.run(t, x)
				x.d.Close()
			})
		})
	}
}
