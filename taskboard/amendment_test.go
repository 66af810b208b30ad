package taskboard

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// spawn runs task() for a fresh background spawn of id through the driver.
func (x *drv) spawn(id string) TaskPlan {
	x.t.Helper()
	p, err := x.d.Task(context.Background(), orch, TaskCall{Agent: "explorer", Description: "work on " + id, Background: true})
	noErr(x.t, err)
	return p
}

func (x *drv) finish(p TaskPlan, obs LaunchObservation) TaskLaunchResult {
	x.t.Helper()
	res, err := x.d.FinishTask(p, obs)
	noErr(x.t, err)
	return res
}

func (x *drv) completeRun(id, text string) {
	x.t.Helper()
	x.d.Do("", func(b *Board) {
		r, _ := b.Get(id)
		if _, g := b.commitTerminal(commitInput{TaskID: id, Generation: r.Generation, State: StateCompleted, Summary: text}); g != gateCommitted {
			x.t.Fatalf("commit %s: %s", id, g)
		}
	})
}

func (x *drv) ackRun(id string) {
	x.t.Helper()
	x.d.Do("", func(b *Board) {
		r, _ := b.Get(id)
		if _, ok := b.markReconciled(id, r.Generation, r.TerminalRevision); !ok {
			x.t.Fatalf("ack %s refused", id)
		}
	})
}

// TestAmendmentScenarios covers the fencing, liveness and driver rules of the first
// amendment (edge cases 151–160).
func TestAmendmentScenarios(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		run  func(t *testing.T, x *drv)
	}{
		{name: "E151_after_hook_replayed_one_record_one_run_unread_result_kept", run: func(t *testing.T, x *drv) {
			var launched atomic.Int32
			x.d.OnLaunched(func(Notice) error { launched.Add(1); return nil })
			p := x.spawn("ses_s")
			x.finish(p, LaunchObservation{TaskID: "ses_s", Background: true})
			x.completeRun("ses_s", "the answer")
			res := x.finish(p, LaunchObservation{TaskID: "ses_s", Background: true}) // replayed
			synctest.Wait()
			r := x.rec("ses_s")
			if r.TaskGeneration != 1 || r.Generation != 1 || r.State != StateCompleted || !r.TerminalUnreconciled || r.ResultSummary != "the answer" {
				t.Fatalf("record after replay: gen %d/%d %s unreconciled=%t %q", r.Generation, r.TaskGeneration, r.State, r.TerminalUnreconciled, r.ResultSummary)
			}
			if res.State != StateCompleted || res.Alias != "exp-1" || launched.Load() != 1 {
				t.Fatalf("replay result %+v, launched %d", res, launched.Load())
			}
		}},
		{name: "E152_event_registration_then_after_hook_one_run_deletion_honoured", run: func(t *testing.T, x *drv) {
			p := x.spawn("ses_e")
			x.d.Do("", func(b *Board) {
				if _, err := b.registerLaunch(launchInput{TaskID: "ses_e", ParentID: parent1, Agent: "explorer", Early: true}); err != nil {
					t.Fatal(err)
				}
			})
			x.finish(p, LaunchObservation{TaskID: "ses_e", Description: "the real description", Background: true})
			r := x.rec("ses_e")
			if r.Generation != 1 || r.TaskGeneration != 1 || r.Quarantined || r.Description != "the real description" {
				t.Fatalf("record: gen %d/%d quarantined=%t desc %q", r.Generation, r.TaskGeneration, r.Quarantined, r.Description)
			}
			x.d.Observe(HostEvent{Kind: EventDeleted, SessionID: "ses_e"})
			var ok bool
			x.d.Do("", func(b *Board) { _, ok = b.Get("ses_e") })
			if ok {
				t.Fatal("a genuine deletion without generation was ignored")
			}
		}},
		{name: "E153_delayed_G1_output_after_G2_resume_reported_stale", run: func(t *testing.T, x *drv) {
			p1 := x.spawn("ses_t")
			x.finish(p1, LaunchObservation{TaskID: "ses_t", Background: true})
			x.completeRun("ses_t", "one")
			x.ackRun("ses_t")
			p2, err := x.d.Task(context.Background(), orch, TaskCall{Agent: "explorer", Ref: "ses_t", Background: true})
			noErr(t, err)
			x.finish(p2, LaunchObservation{TaskID: "ses_t", Background: true})
			g2 := x.rec("ses_t").Generation
			_, err = x.d.FinishTask(p1, LaunchObservation{TaskID: "ses_t", TerminalState: StateCompleted, TerminalSummary: "late G1"})
			checkErr(t, err, ErrStale, "generation 2 is current")
			r := x.rec("ses_t")
			if r.Generation != g2 || r.TaskGeneration != 2 || r.State != StateRunning || r.ResultSummary != "" {
				t.Fatalf("G2 replaced: gen %d (want %d) run %d %s %q", r.Generation, g2, r.TaskGeneration, r.State, r.ResultSummary)
			}
			if _, ok := x.lease("ses_t"); ok {
				t.Fatal("lease left behind")
			}
		}},
		{name: "E154_resume_evidence_ignores_previous_answer", run: func(t *testing.T, x *drv) {
			var mu sync.Mutex
			transcript := []TranscriptEntry{
				{ID: "m1", Role: "user", Text: "go"},
				{ID: "m2", Role: "assistant", Finished: true, Text: "old answer"},
			}
			x.h.messages = func(context.Context, string, int) ([]TranscriptEntry, error) {
				mu.Lock()
				defer mu.Unlock()
				return append([]TranscriptEntry(nil), transcript...), nil
			}
			p1 := x.spawn("ses_r")
			x.finish(p1, LaunchObservation{TaskID: "ses_r", Background: true})
			x.completeRun("ses_r", "old answer")
			x.ackRun("ses_r")
			p2, err := x.d.Task(context.Background(), orch, TaskCall{Agent: "explorer", Ref: "ses_r", Background: true})
			noErr(t, err)
			if p2.baseline != "m2" {
				t.Fatalf("baseline %q, want m2", p2.baseline)
			}
			x.finish(p2, LaunchObservation{TaskID: "ses_r", Background: true})
			g2 := x.rec("ses_r").Generation // a relaunched task's events carry their generation
			mu.Lock()
			transcript = append(transcript, TranscriptEntry{ID: "m3", Role: "user", Text: "continue"})
			mu.Unlock()
			x.d.Observe(HostEvent{Kind: EventIdle, SessionID: "ses_r", Generation: &g2})
			time.Sleep(3 * time.Second)
			synctest.Wait()
			if x.h.count("messages") != 2 {
				t.Fatalf("evidence read not made: %v", x.h.calls)
			}
			if r := x.rec("ses_r"); r.State == StateCompleted || r.ResultSummary == "old answer" {
				t.Fatalf("the previous run's answer was taken: %s %q", r.State, r.ResultSummary)
			}
			// The new run's own answer is taken.
			mu.Lock()
			transcript = append(transcript, TranscriptEntry{ID: "m4", Role: "assistant", Finished: true, Text: "new answer"})
			mu.Unlock()
			x.d.Observe(HostEvent{Kind: EventIdle, SessionID: "ses_r", Generation: &g2})
			time.Sleep(3 * time.Second)
			synctest.Wait()
			if r := x.rec("ses_r"); r.EffectiveState() != StateCompleted || r.ResultSummary != "new answer" {
				t.Fatalf("new answer not taken: %s %q; calls %v; pending %v", r.State, r.ResultSummary, x.h.calls, x.d.PendingKinds())
			}
		}},
		{name: "E155_write_honouring_cancellation_settles_at_host_call_deadline", opts: Options{Timing: Timing{HostCallDeadline: time.Minute}}, run: func(t *testing.T, x *drv) {
			x.launch("ses_a", parent1)
			x.h.enqueue = func(ctx context.Context, id string, m Message) error { <-ctx.Done(); return ctx.Err() }
			_, err := x.d.Message(context.Background(), orch, "ses_a", "hi")
			checkErr(t, err, ErrTimeout, "")
			if _, ok := x.lease("ses_a"); !ok {
				t.Fatal("lease released before the write settled")
			}
			time.Sleep(time.Minute)
			synctest.Wait()
			if _, ok := x.lease("ses_a"); ok {
				t.Fatal("the settled write kept its lease")
			}
			x.h.statuses = func(context.Context) (map[string]LiveStatus, error) { return idle("ses_a"), nil }
			res, err := x.d.Cancel(context.Background(), orch, "ses_a", "")
			if err != nil || res.State != string(StateCancelled) {
				t.Fatalf("cancel after settlement: %+v %v", res, err)
			}
		}},
		{name: "E155_write_ignoring_cancellation_keeps_lease_cancel_names_ForceRelease", opts: Options{Timing: Timing{HostCallDeadline: time.Minute}}, run: func(t *testing.T, x *drv) {
			x.launch("ses_a", parent1)
			never := make(chan struct{})
			defer close(never)
			var cancelled atomic.Bool
			x.h.enqueue = func(ctx context.Context, id string, m Message) error {
				go func() { <-ctx.Done(); cancelled.Store(true) }()
				<-never
				return nil
			}
			_, err := x.d.Message(context.Background(), orch, "ses_a", "hi")
			checkErr(t, err, ErrTimeout, "")
			time.Sleep(time.Hour)
			synctest.Wait()
			if !cancelled.Load() {
				t.Fatal("the host call's context was not cancelled at the deadline")
			}
			if l, ok := x.lease("ses_a"); !ok || l.Kind != leaseMessage {
				t.Fatal("an unsettled write lost its lease")
			}
			_, err = x.d.Cancel(context.Background(), orch, "ses_a", "")
			leaseErr(t, err, "stale/uncertain cancellation: cancellation lease unavailable for ses_a.")
			checkErr(t, err, ErrLeaseUnavailable, `Board.ForceRelease("ses_a", reason)`)
		}},
		{name: "E156_force_release_during_cancel_commit_rejected_as_stale", run: func(t *testing.T, x *drv) {
			x.launch("ses_a", parent1)
			gate := make(chan struct{})
			x.h.abort = func(ctx context.Context, id string) (bool, error) {
				if err := blockUntil(ctx, gate); err != nil {
					return false, err
				}
				return true, nil
			}
			x.h.statuses = func(context.Context) (map[string]LiveStatus, error) { return idle("ses_a"), nil }
			var err error
			var wg sync.WaitGroup
			wg.Go(func() { _, err = x.d.Cancel(context.Background(), orch, "ses_a", "") })
			synctest.Wait()
			var info Lease
			var ferr error
			x.d.Do("", func(b *Board) { info, ferr = b.ForceRelease("ses_a", "abort stuck at the host; operator ticket 7") })
			noErr(t, ferr)
			if info.Kind != leaseCancellation || !strings.Contains(info.Reason, "operator ticket 7") {
				t.Fatalf("released %+v", info)
			}
			close(gate)
			wg.Wait()
			checkErr(t, err, ErrStale, "")
			time.Sleep(10 * time.Second)
			synctest.Wait()
			r := x.rec("ses_a")
			if r.State != StateRunning || !strings.Contains(r.ForcedRelease, "operator ticket 7") {
				t.Fatalf("record %s, audit %q", r.State, r.ForcedRelease)
			}
			var audit []Lease
			x.d.Do("", func(b *Board) { audit = b.ForcedReleases() })
			if len(audit) != 1 || audit[0].TaskID != "ses_a" {
				t.Fatalf("audit log %+v", audit)
			}
			if _, ok := x.lease("ses_a"); ok {
				t.Fatal("a lease is live after the stale cancel settled")
			}
		}},
		{name: "E157_finish_task_after_close_refused_no_lease_left", run: func(t *testing.T, x *drv) {
			p1 := x.spawn("ses_c")
			x.finish(p1, LaunchObservation{TaskID: "ses_c", Background: true})
			x.completeRun("ses_c", "done")
			x.ackRun("ses_c")
			p2, err := x.d.Task(context.Background(), orch, TaskCall{Agent: "explorer", Ref: "ses_c", Background: true})
			noErr(t, err)
			before := x.rec("ses_c")
			x.d.Close()
			_, err = x.d.FinishTask(p2, LaunchObservation{TaskID: "ses_c"})
			checkErr(t, err, ErrClosed, "")
			b := x.d.b
			if r, _ := b.Get("ses_c"); r.Generation != before.Generation || r.State != before.State {
				t.Fatalf("board changed after Close: %+v", r)
			}
			if ls := b.LiveLeases(); len(ls) != 0 {
				t.Fatalf("leases left: %v", ls)
			}
			checkErr(t, x.d.FailTask(p2), ErrClosed, "")
			ran := false
			checkErr(t, x.d.Do("", func(*Board) { ran = true }), ErrClosed, "")
			_, err = x.d.View(parent1)
			checkErr(t, err, ErrClosed, "")
			_, err = x.d.WaitForUser(orch, "need input")
			checkErr(t, err, ErrClosed, "")
			if ran || b.Waiting(parent1) || x.d.pending() != 0 {
				t.Fatalf("ran=%t waiting=%t pending=%d", ran, b.Waiting(parent1), x.d.pending())
			}
		}},
		{name: "E158_subscribers_in_emission_order_one_at_a_time", run: func(t *testing.T, x *drv) {
			x.launch("ses_a", parent1)
			x.launch("ses_b", parent1)
			x.launch("ses_c", parent1)
			var mu sync.Mutex
			var got []string
			var inside, maxInside atomic.Int32
			x.d.OnTerminal(func(n Notice) error {
				if k := inside.Add(1); k > maxInside.Load() {
					maxInside.Store(k)
				}
				time.Sleep(time.Second)
				mu.Lock()
				got = append(got, n.TaskID)
				mu.Unlock()
				inside.Add(-1)
				return nil
			})
			var wg sync.WaitGroup
			wg.Go(func() { x.completeRun("ses_a", "a") })
			synctest.Wait() // a is emitted (and its subscriber may be sleeping)
			x.completeRun("ses_b", "b")
			wg.Wait()
			time.Sleep(5 * time.Second)
			synctest.Wait()
			mu.Lock()
			order := strings.Join(got, ",")
			mu.Unlock()
			if order != "ses_a,ses_b" || maxInside.Load() != 1 {
				t.Fatalf("received %s, max concurrent %d", order, maxInside.Load())
			}
			// Nothing is delivered after Close returns.
			x.completeRun("ses_c", "c")
			x.d.Close()
			mu.Lock()
			n := len(got)
			mu.Unlock()
			time.Sleep(5 * time.Second)
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			if len(got) != n {
				t.Fatalf("a subscriber ran after Close returned: %v", got)
			}
		}},
		{name: "E159_panic_inside_Do_reaches_caller_driver_usable", run: func(t *testing.T, x *drv) {
			func() {
				defer func() {
					if r := recover(); r != "boom" {
						t.Fatalf("recovered %v", r)
					}
				}()
				x.d.Do("", func(*Board) { panic("boom") })
			}()
			x.launch("ses_a", parent1)
			if _, err := x.d.Status(context.Background(), orch, "ses_a"); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "E160_ten_thousand_tasks_launched_and_dropped_memory_bounded", opts: Options{MaxTombstones: 256}, run: func(t *testing.T, x *drv) {
			for i := range 10_000 {
				id := "ses_" + strings.Repeat("x", i%3) + strconv.Itoa(i)
				p := x.spawn(id)
				x.finish(p, LaunchObservation{TaskID: id, Background: true})
				x.completeRun(id, "r")
				x.d.View(parent1)
				x.d.Observe(HostEvent{Kind: EventDeleted, SessionID: id})
			}
			time.Sleep(time.Minute)
			synctest.Wait()
			s := x.d.SizesForTest()
			if s["records"] != 0 || s["tombs"] > 256 || s["epochs"] > 256 || s["tombQ"] > 2*256+16 ||
				s["leases"] != 0 || s["runs"] != 0 || s["tracked"] != 0 || s["shown"] != 0 || s["aliasIdx"] != 0 {
				t.Fatalf("bookkeeping not bounded: %v", s)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				x := newDrvWith(t, true, tc.opts)
				tc.run(t, x)
				x.d.Close()
			})
		})
	}
}

// TestOneEvidenceMachinePerRecord: repeated idle events for one running task never run two
// evidence reads for it at once.
func TestOneEvidenceMachinePerRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		x := newDrv(t, true)
		gate := make(chan struct{})
		x.h.messages = func(ctx context.Context, id string, limit int) ([]TranscriptEntry, error) {
			if err := blockUntil(ctx, gate); err != nil {
				return nil, err
			}
			return nil, nil
		}
		x.launch("ses_a", parent1)
		for range 3 {
			x.d.Observe(HostEvent{Kind: EventIdle, SessionID: "ses_a"})
			time.Sleep(2500 * time.Millisecond)
			synctest.Wait()
			if n := x.d.EvidenceRunsForTest("ses_a"); n != 1 {
				t.Fatalf("%d evidence machines for one record", n)
			}
		}
		close(gate)
		x.d.Close()
	})
}

// TestNewDriverRefusesMisconfiguredHost: the flavour is required and must match the
// capabilities given.
func TestNewDriverRefusesMisconfiguredHost(t *testing.T) {
	h := &fakeHost{}
	tests := []struct {
		name string
		host Host
		want string
	}{
		{"zero_flavor", Host{Aborter: h, Prompter: h, Sessions: h}, "Host.Flavor is not set"},
		{"v1_without_status_map", Host{Aborter: h, Prompter: h, Sessions: h, Flavor: FlavorV1}, "Host.Status is nil"},
		{"unknown_flavor", Host{Aborter: h, Prompter: h, Sessions: h, Flavor: "v9"}, `unknown Host.Flavor "v9"`},
		{"missing_sessions", Host{Aborter: h, Prompter: h, Flavor: FlavorV2}, "Host.Sessions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewDriver(tc.host, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if _, err := NewDriver(Host{Aborter: h, Prompter: h, Sessions: h, Status: h, Flavor: FlavorV1}, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestForceReleaseRefusals: ForceRelease needs a reason and a live lease.
func TestForceReleaseRefusals(t *testing.T) {
	r := newRig(t, Options{})
	r.launch("ses_a", parent1, "explorer")
	_, err := r.b.ForceRelease("ses_a", "stuck")
	checkErr(t, err, ErrUnknownTask, "No live lease for ses_a")
	r.b.acquire(leaseMessage, "ses_a", r.get("ses_a").Generation, nil)
	_, err = r.b.ForceRelease("ses_a", "  ")
	checkErr(t, err, ErrInvalidArgs, "needs a reason")
	l := r.hasLease("ses_a", leaseMessage)
	if _, err := r.b.ForceRelease("ses_a", "stuck"); err != nil {
		t.Fatal(err)
	}
	if r.b.release(l) || r.b.validate(l) {
		t.Fatal("the old holder's token still works after ForceRelease")
	}
}
