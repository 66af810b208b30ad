package taskboard

import (
	"errors"
	"testing"
	"time"
)

// cancelRun launches ses_a under parent-1 and starts task_cancel on it.
func cancelRun(r *rig, caps caps, reason string) *mrun {
	r.launch("ses_a", parent1, "explorer")
	return r.start(newCancel(orch, cancelArgs{Ref: "ses_a", Reason: reason}, caps))
}

func TestCancelScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E40_v1_idle_three_reads_cancelled", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v1, "obsolete")
			r.hasLease("ses_a", leaseCancellation)
			m.dispatch()
			m.abort(true, nil)
			m.status(idle("ses_a"), nil)
			r.advance(150 * time.Millisecond)
			m.status(idle("ses_a"), nil)
			r.advance(150 * time.Millisecond)
			m.status(idle("ses_a"), nil)
			res, err := outcome[CancelResult](t, m)
			noErr(t, err)
			if got, want := res.Render(), "task_id: ses_a\nstate: cancelled\n<task_error>cancelled: obsolete</task_error>"; got != want {
				t.Fatalf("render:\n%s\nwant\n%s", got, want)
			}
			rec := r.get("ses_a")
			if rec.State != StateCancelled || !rec.TerminalUnreconciled {
				t.Fatalf("record %s unreconciled=%t", rec.State, rec.TerminalUnreconciled)
			}
			r.noLease("ses_a")
			if n := r.count("ReadStatus"); n != 3 {
				t.Fatalf("status reads = %d, want 3", n)
			}
			done(t, m)
		}},
		{name: "E41_v2_session_polling_idle_after_abort_start", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v2, "")
			m.dispatch()
			abortAt := r.b.now()
			r.advance(10 * time.Millisecond)
			m.abort(true, nil)
			m.session(SessionInfo{Outcome: "running"}, nil)
			r.advance(150 * time.Millisecond)
			m.session(SessionInfo{IdleAt: abortAt}, nil)
			res, err := outcome[CancelResult](t, m)
			noErr(t, err)
			if res.State != string(StateCancelled) {
				t.Fatalf("state %s", res.State)
			}
			if r.count("ReadStatus") != 0 || r.count("ReadSession") != 2 {
				t.Fatalf("reads: %v", r.performed)
			}
		}},
		{name: "E42_v2_read_hangs_budget_ends_late_reply_ignored", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v2, "")
			m.dispatch()
			m.abort(true, nil)
			pendingRead := m.must("ReadSession")
			r.advance(1500 * time.Millisecond)
			_, err := outcome[CancelResult](t, m)
			checkErr(t, err, ErrUnconfirmed, "Session abort returned but task did not stay stopped: ses_a (pending)")
			rec := r.get("ses_a")
			if rec.State != StateRunning || !rec.StatusUncertain {
				t.Fatalf("want running+uncertain, got %s uncertain=%t", rec.State, rec.StatusUncertain)
			}
			r.noLease("ses_a")
			l, ok := r.b.acquire(leaseRelaunch, "ses_a", rec.Generation, nil)
			if !ok {
				t.Fatal("relaunch acquire failed after the budget")
			}
			before := r.get("ses_a")
			m.step(sessionReply{Call: pendingRead, Info: SessionInfo{IdleAt: r.b.now()}})
			if !r.b.validate(l) {
				t.Fatal("late reply disturbed the replacement lease")
			}
			if after := r.get("ses_a"); after.State != before.State || after.TerminalRevision != before.TerminalRevision {
				t.Fatal("late reply changed the record")
			}
			done(t, m)
		}},
		{name: "E43_v2_inconclusive_and_failing_reads_bounded", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v2, "")
			m.dispatch()
			m.abort(true, nil)
			for i := 0; i < 20 && !m.m.Replied(); i++ {
				if i%2 == 0 {
					m.session(SessionInfo{Outcome: "weird"}, nil)
				} else {
					m.session(SessionInfo{}, errors.New("EOF"))
				}
				r.advance(150 * time.Millisecond)
			}
			_, err := outcome[CancelResult](t, m)
			checkErr(t, err, ErrUnconfirmed, "(host-info: ")
			if n := r.count("ReadSession"); n > 11 {
				t.Fatalf("%d reads within a 1,500 ms budget", n)
			}
			r.noLease("ses_a")
			if !r.get("ses_a").StatusUncertain {
				t.Fatal("not uncertain")
			}
		}},
		{name: "E44_release_drop_complete_relaunch_before_dispatch_withdraw", run: func(t *testing.T, r *rig) {
			for _, tc := range []struct {
				what string
				do   func(r *rig, l leaseGrant)
				msg  string
			}{
				{"released", func(r *rig, l leaseGrant) { r.b.release(l) }, "Cancellation lease is no longer valid for ses_a generation 1"},
				{"dropped", func(r *rig, l leaseGrant) { r.b.Drop("ses_a") }, "stale/uncertain cancellation: ses_a is no longer running"},
				{"completed", func(r *rig, l leaseGrant) { r.complete("ses_a", "done") }, "stale/uncertain cancellation: ses_a is no longer running"},
				{"relaunched", func(r *rig, l leaseGrant) {
					r.b.release(l)
					if _, err := r.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: parent1, Agent: "explorer"}); err != nil {
						t.Fatal(err)
					}
				}, "Cancellation lease is no longer valid for ses_a generation 1"},
			} {
				r := newRig(t, Options{})
				m := cancelRun(r, v1, "")
				l := r.hasLease("ses_a", leaseCancellation)
				tc.do(r, l)
				var repl leaseGrant
				if rec, ok := r.b.Get("ses_a"); ok && rec.State == StateRunning {
					if _, live := r.b.LeaseForTest("ses_a"); !live {
						repl, _ = r.b.acquire(leaseMessage, "ses_a", rec.Generation, nil)
					}
				}
				m.dispatch()
				_, err := outcome[CancelResult](t, m)
				checkErr(t, err, ErrStale, tc.msg)
				if r.count("Abort") != 0 || r.count("ReadStatus") != 0 {
					t.Fatalf("%s: host calls %v", tc.what, r.performed)
				}
				if repl.Token != 0 && !r.b.validate(repl) {
					t.Fatalf("%s: replacement lease released", tc.what)
				}
				if rec, ok := r.b.Get("ses_a"); ok && rec.State == StateCancelled {
					t.Fatalf("%s: committed", tc.what)
				}
				done(t, m)
			}
		}},
		{name: "E45_abort_pending_past_10s_lease_kept_late_reply_releases", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v1, "")
			m.dispatch()
			r.advance(10 * time.Second)
			_, err := outcome[CancelResult](t, m)
			exactErr(t, err, ErrTimeout, "Session abort timed out after 10000ms")
			rec := r.get("ses_a")
			if rec.State != StateRunning || !rec.StatusUncertain {
				t.Fatal("want running + uncertain")
			}
			r.hasLease("ses_a", leaseCancellation)
			for _, k := range leaseKinds[:] {
				if _, ok := r.b.acquire(k, "ses_a", rec.Generation, nil); ok {
					t.Fatalf("%s acquire succeeded while the abort is pending", k)
				}
			}
			// A completion lands meanwhile; its notification parks.
			r.complete("ses_a", "result")
			n := r.start(newNotify(parent1, Notice{Kind: noticeTerminal, TaskID: "ses_a", ParentID: parent1, Generation: rec.Generation, TerminalRevision: 1, State: StateCompleted}, v1))
			if got := n.m.(*notifyM).State(); got != notifyParked {
				t.Fatalf("notify state %s, want parked", got)
			}
			before := r.get("ses_a")
			m.abort(true, nil)
			r.noLease("ses_a")
			if r.count("ReadStatus") != 0 {
				t.Fatal("late abort started verification")
			}
			if after := r.get("ses_a"); after.State != before.State || after.TerminalRevision != before.TerminalRevision {
				t.Fatal("late abort changed the record")
			}
			done(t, m)
			// The parked notification runs once the lease is released.
			for _, ev := range r.b.drain() {
				n.step(noticeEvent{Notice: ev})
			}
			if n.m.(*notifyM).State() != notifyPending || len(n.awaiting) != 1 {
				t.Fatalf("notification did not resume: %s", n.m.(*notifyM).State())
			}
		}},
		{name: "E46_v2_unknown_outcome_idle_before_abort_not_quiescent", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v2, "")
			early := r.b.now()
			r.advance(time.Second)
			m.dispatch()
			m.abort(true, nil)
			for !m.m.Replied() {
				if m.has("ReadSession") {
					m.session(SessionInfo{Outcome: "mystery", IdleAt: early}, nil)
				}
				r.advance(150 * time.Millisecond)
			}
			_, err := outcome[CancelResult](t, m)
			checkErr(t, err, ErrUnconfirmed, "did not stay stopped")
			r.noLease("ses_a")
			if !r.get("ses_a").StatusUncertain {
				t.Fatal("not uncertain")
			}
		}},
		{name: "E47_v1_valid_map_without_entry_quiescent", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v1, "")
			m.dispatch()
			m.abort(true, nil)
			m.status(map[string]LiveStatus{}, nil)
			r.advance(150 * time.Millisecond)
			m.status(map[string]LiveStatus{"other": LiveBusy}, nil)
			if m.m.Replied() {
				t.Fatal("committed before 300 ms of stability")
			}
			r.advance(150 * time.Millisecond)
			m.status(map[string]LiveStatus{}, nil)
			res, err := outcome[CancelResult](t, m)
			noErr(t, err)
			if res.State != string(StateCancelled) || r.get("ses_a").State != StateCancelled {
				t.Fatal("not cancelled")
			}
		}},
		{name: "E48_alternating_absent_busy_never_matures", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v1, "")
			m.dispatch()
			m.abort(true, nil)
			for i := 0; !m.m.Replied(); i++ {
				if m.has("ReadStatus") {
					if i%2 == 0 {
						m.status(map[string]LiveStatus{}, nil)
					} else {
						m.status(busy("ses_a"), nil)
					}
				}
				r.advance(150 * time.Millisecond)
			}
			_, err := outcome[CancelResult](t, m)
			checkErr(t, err, ErrUnconfirmed, "did not stay stopped")
			if r.get("ses_a").State != StateRunning {
				t.Fatal("not running")
			}
			r.noLease("ses_a")
		}},
		{name: "E49_cancel_then_acknowledge_relaunch_lease_free", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v2w, "")
			m.dispatch()
			m.abort(true, nil)
			m.idle(nil)
			noErr(t, func() error { _, err := outcome[CancelResult](t, m); return err }())
			rec := r.ack("ses_a")
			if rec.State != StateReconciled || rec.TerminalState != StateCancelled {
				t.Fatalf("got %s/%s", rec.State, rec.TerminalState)
			}
			if _, ok := r.b.acquire(leaseRelaunch, "ses_a", rec.Generation, nil); !ok {
				t.Fatal("relaunch lease refused")
			}
		}},
		{name: "E50_status_stays_busy_unconfirmed", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v1, "")
			m.dispatch()
			m.abort(true, nil)
			for !m.m.Replied() {
				if m.has("ReadStatus") {
					m.status(busy("ses_a"), nil)
				}
				r.advance(150 * time.Millisecond)
			}
			res, err := outcome[CancelResult](t, m)
			exactErr(t, err, ErrUnconfirmed, "Session abort returned but task did not stay stopped: ses_a (busy)")
			if got, want := res.Render(), "task_id: ses_a\nstate: running\nerror: Session abort returned but task did not stay stopped: ses_a (busy)"; got != want {
				t.Fatalf("render %q", got)
			}
			if !r.get("ses_a").StatusUncertain {
				t.Fatal("not uncertain")
			}
		}},
		{name: "E51_foreign_completed_own_session_no_abort", run: func(t *testing.T, r *rig) {
			r.launch("ses_b", parent2, "explorer")
			m := r.start(newCancel(orch, cancelArgs{Ref: "ses_b"}, v1))
			_, err := outcome[CancelResult](t, m)
			exactErr(t, err, ErrForeignTask, "Task ses_b belongs to a different parent session. No action was sent.")
			r.launch("ses_c", parent1, "explorer")
			r.complete("ses_c", "x")
			m = r.start(newCancel(orch, cancelArgs{Ref: "ses_c"}, v1))
			_, err = outcome[CancelResult](t, m)
			exactErr(t, err, ErrNotRunning, "stale/uncertain cancellation: task is completed, not running")
			m = r.start(newCancel(orch, cancelArgs{Ref: parent1}, v1))
			res, err := outcome[CancelResult](t, m)
			noErr(t, err)
			if res.State != cancelUnknown || res.Message != "cannot cancel parent session" {
				t.Fatalf("got %+v", res)
			}
			if r.count("Abort") != 0 {
				t.Fatal("abort sent")
			}
		}},
		{name: "E52_guard_non_orchestrator_and_unmanaged", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			m := r.start(newCancel(Caller{SessionID: parent1, Agent: "fixer"}, cancelArgs{Ref: "ses_a"}, v1))
			_, err := outcome[CancelResult](t, m)
			exactErr(t, err, ErrNotOrchestrator, "task_cancel can only be used by orchestrator")
			m = r.start(newCancel(Caller{SessionID: "parent-x"}, cancelArgs{Ref: "ses_a"}, v1))
			_, err = outcome[CancelResult](t, m)
			exactErr(t, err, ErrUnmanaged, "task_cancel can only be used in orchestrator sessions")
		}},
		{name: "E117_v1_read_pending_at_budget_end", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v1, "")
			m.dispatch()
			m.abort(true, nil)
			m.status(idle("ses_a"), nil)
			r.advance(150 * time.Millisecond)
			read := m.must("ReadStatus")
			r.advance(1350 * time.Millisecond)
			_, err := outcome[CancelResult](t, m)
			checkErr(t, err, ErrUnconfirmed, "did not stay stopped")
			r.noLease("ses_a")
			m.step(statusReply{Call: read, Snapshot: idle("ses_a")})
			if r.get("ses_a").State != StateRunning {
				t.Fatal("late reply committed")
			}
			done(t, m)
		}},
		{name: "E118_v2_idle_waiter_nil_within_budget", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v2w, "done with it")
			m.dispatch()
			m.abort(true, nil)
			r.advance(time.Second)
			m.idle(nil)
			res, err := outcome[CancelResult](t, m)
			noErr(t, err)
			if res.State != string(StateCancelled) || res.Reason != "done with it" {
				t.Fatalf("got %+v", res)
			}
			if r.count("WaitIdle") != 1 {
				t.Fatal("want one idle wait")
			}
		}},
		{name: "E133_duplicate_reply_ignored", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v2w, "")
			m.dispatch()
			abort := m.must("Abort")
			m.step(abortReply{Call: abort, Confirmed: true})
			if cmds := m.m.Step(r.b, abortReply{Call: abort, Confirmed: false, Err: errors.New("dup")}); cmds != nil {
				t.Fatalf("duplicate reply produced %v", cmds)
			}
			if m.m.Replied() {
				t.Fatal("duplicate reply decided the outcome")
			}
			m.idle(nil)
			res, err := outcome[CancelResult](t, m)
			noErr(t, err)
			if res.State != string(StateCancelled) {
				t.Fatal("not cancelled")
			}
		}},
		{name: "E134_timer_after_done_ignored", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v2w, "")
			m.dispatch()
			m.abort(true, nil)
			m.idle(nil)
			done(t, m)
			for id := timerID(1); id < 10; id++ {
				if cmds := m.m.Step(r.b, fired{Timer: id}); cmds != nil {
					t.Fatalf("timer %d after Done produced %v", id, cmds)
				}
			}
			if r.get("ses_a").State != StateCancelled {
				t.Fatal("record changed")
			}
		}},
		{name: "E150_abort_settles_at_deadline_instant", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v1, "")
			m.dispatch()
			abort := m.must("Abort")
			// The clock reaches the deadline, but the reply is seen before the timer.
			r.clk.Advance(10 * time.Second)
			m.step(abortReply{Call: abort, Confirmed: true})
			_, err := outcome[CancelResult](t, m)
			exactErr(t, err, ErrTimeout, "Session abort timed out after 10000ms")
			if !r.get("ses_a").StatusUncertain {
				t.Fatal("not uncertain")
			}
			r.noLease("ses_a")
			if r.count("ReadStatus") != 0 {
				t.Fatal("verification ran")
			}
			done(t, m)
		}},
		{name: "abort_false_and_error_release", run: func(t *testing.T, r *rig) {
			m := cancelRun(r, v1, "")
			m.dispatch()
			m.abort(false, nil)
			_, err := outcome[CancelResult](t, m)
			exactErr(t, err, ErrUnconfirmed, "Session abort was not confirmed: ses_a")
			r.noLease("ses_a")
			m = r.start(newCancel(orch, cancelArgs{Ref: "ses_a"}, v1))
			m.dispatch()
			m.abort(false, errHost)
			_, err = outcome[CancelResult](t, m)
			exactErr(t, err, ErrHost, "Session abort failed: HTTP 500")
			r.noLease("ses_a")
		}},
		{name: "unknown_session_owned_by_caller_best_effort", run: func(t *testing.T, r *rig) {
			m := r.start(newCancel(orch, cancelArgs{Ref: "ses_zz"}, v1))
			m.session(SessionInfo{ParentID: parent1}, nil)
			res, err := outcome[CancelResult](t, m)
			noErr(t, err)
			if res.State != cancelUnknown || res.Message != "best-effort/uncertain cancellation: session ownership was observed, but no tracked generation exists; no remote abort was attempted" {
				t.Fatalf("got %+v", res)
			}
			m = r.start(newCancel(orch, cancelArgs{Ref: "exp-9"}, v1))
			res, _ = outcome[CancelResult](t, m)
			if res.Message != "unknown or unowned background task" {
				t.Fatalf("got %+v", res)
			}
			if r.count("Abort") != 0 {
				t.Fatal("abort sent")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, Options{})) })
	}
}
