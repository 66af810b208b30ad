package taskboard

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func reviveRun(r *rig, caps caps, ref string) *mrun {
	return r.start(newRevive(orch, reviveArgs{Ref: ref, Prompt: "continue please"}, caps))
}

// finished returns a reconciled completed ses_r at generation 1.
func finished(r *rig) Record {
	r.launch("ses_r", parent1, "oracle")
	r.complete("ses_r", "first answer")
	return r.ack("ses_r")
}

// toAdmission drives a v1 revive of an idle record up to the pending admission.
func toAdmission(t *testing.T, r *rig, m *mrun) {
	t.Helper()
	m.messages([]TranscriptEntry{{ID: "base", Role: "assistant", Finished: true, Text: "first answer"}}, nil)
	m.status(idle("ses_r"), nil)
	m.dispatch()
	if !m.has("SendPrompt") {
		t.Fatalf("prompt not sent: withdrawn=%v", m.withdrawn)
	}
}

func TestReviveScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E67_reconciled_completed_one_prompt_new_generation", run: func(t *testing.T, r *rig) {
			old := finished(r)
			m := reviveRun(r, v1, "ora-1")
			toAdmission(t, r, m)
			p := m.pending[m.must("SendPrompt")].(sendPrompt)
			if p.Prompt.Text != "continue please" || p.Prompt.Agent != "oracle" || p.Prompt.Synthetic {
				t.Fatalf("prompt %+v", p.Prompt)
			}
			m.prompt(nil)
			m.messages(nil, nil)
			res, err := outcome[ReviveResult](t, m)
			noErr(t, err)
			if res.Status != reviveStarted || res.Generation <= old.Generation || res.State != StateRunning {
				t.Fatalf("result %+v", res)
			}
			if r.count("WriteMessage") != 0 || r.count("SendPrompt") != 1 {
				t.Fatal("want one queued prompt and no noReply write")
			}
			if ls := r.b.LeasesForTest(); len(ls) != 0 {
				t.Fatalf("leases %v", ls)
			}
			if rec := r.get("ses_r"); !rec.QueuedContinuation || rec.BaselineMessageID != "base" {
				t.Fatalf("continuation not recorded: %+v", rec)
			}
			done(t, m)
		}},
		{name: "E68_fast_terminal_after_baseline", run: func(t *testing.T, r *rig) {
			finished(r)
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			m.prompt(nil)
			m.messages([]TranscriptEntry{
				{ID: "base", Role: "assistant", Finished: true, Text: "first answer"},
				{ID: "u2", Role: "user", Text: "continue please"},
				{ID: "a2", Role: "assistant", Finished: true, Text: "second answer"},
			}, nil)
			res, err := outcome[ReviveResult](t, m)
			noErr(t, err)
			if res.State != StateCompleted || res.Status != string(StateCompleted) || res.Summary != "second answer" {
				t.Fatalf("result %+v", res)
			}
			if want := "<task_result>\nsecond answer\n</task_result>"; !strings.Contains(res.Render(), want) {
				t.Fatalf("render %q", res.Render())
			}
		}},
		{name: "E69_running_generation_abort_verify_then_prompt", run: func(t *testing.T, r *rig) {
			r.launch("ses_r", parent1, "oracle")
			m := reviveRun(r, v1, "ses_r")
			m.dispatch()
			m.abort(true, nil)
			m.status(idle("ses_r"), nil)
			r.advance(150 * time.Millisecond)
			m.status(idle("ses_r"), nil)
			r.advance(150 * time.Millisecond)
			m.status(idle("ses_r"), nil)
			if r.get("ses_r").State != StateCancelled {
				t.Fatal("not cancelled first")
			}
			m.messages(nil, nil)
			m.status(idle("ses_r"), nil)
			m.dispatch()
			m.prompt(nil)
			m.messages(nil, nil)
			res, err := outcome[ReviveResult](t, m)
			noErr(t, err)
			if res.Generation != 2 {
				t.Fatalf("generation %d", res.Generation)
			}
			var kinds []string
			for _, c := range r.performed {
				switch c.(type) {
				case abort:
					kinds = append(kinds, "abort")
				case sendPrompt:
					kinds = append(kinds, "prompt")
				}
			}
			if len(kinds) != 2 || kinds[0] != "abort" || kinds[1] != "prompt" {
				t.Fatalf("order %v", kinds)
			}
			done(t, m)
		}},
		{name: "E70_cancelled_unacknowledged_revives", run: func(t *testing.T, r *rig) {
			r.launch("ses_r", parent1, "oracle")
			r.commit("ses_r", StateCancelled, "user")
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			m.prompt(nil)
			m.messages(nil, nil)
			_, err := outcome[ReviveResult](t, m)
			noErr(t, err)
		}},
		{name: "E71_stopped_acknowledged_or_not_revives", run: func(t *testing.T, r *rig) {
			for _, acked := range []bool{false, true} {
				r := newRig(t, Options{})
				r.launch("ses_r", parent1, "oracle")
				r.clk.Advance(time.Second)
				r.commit("ses_r", StateStopped, "")
				if acked {
					r.ack("ses_r")
				}
				m := reviveRun(r, v1, "ses_r")
				toAdmission(t, r, m)
				m.prompt(nil)
				m.messages(nil, nil)
				_, err := outcome[ReviveResult](t, m)
				noErr(t, err)
			}
		}},
		{name: "E72_v2_idle_waiter_once_then_prompt", run: func(t *testing.T, r *rig) {
			finished(r)
			m := reviveRun(r, v2w, "ses_r")
			m.messages(nil, nil)
			m.idle(nil)
			m.dispatch()
			m.prompt(nil)
			m.messages(nil, nil)
			_, err := outcome[ReviveResult](t, m)
			noErr(t, err)
			if r.count("WaitIdle") != 1 || r.count("ReadStatus") != 0 {
				t.Fatalf("calls %v", r.performed)
			}
		}},
		{name: "E73_baseline_never_settles", run: func(t *testing.T, r *rig) {
			old := finished(r)
			m := reviveRun(r, v1, "ses_r")
			read := m.must("ReadMessages")
			r.advance(5 * time.Second)
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrTimeout, "Task ses_r revive failed: Baseline capture deadline exceeded; the revive prompt was NOT sent")
			r.noLease("ses_r")
			l, ok := r.b.acquire(leaseRelaunch, "ses_r", old.Generation, nil)
			if !ok {
				t.Fatal("replacement refused")
			}
			m.step(messagesReply{Call: read})
			if !r.b.validate(l) || r.count("SendPrompt") != 0 || r.count("Abort") != 0 {
				t.Fatal("late baseline reply had effects")
			}
		}},
		{name: "E74_busy_drop_relaunch_replacement_during_reads", run: func(t *testing.T, r *rig) {
			for _, tc := range []struct {
				what string
				do   func(r *rig, l leaseGrant)
				msg  string
			}{
				{"busy", func(r *rig, l leaseGrant) {
					r.clk.Advance(time.Millisecond)
					r.b.markRunningFromLive("ses_r", r.get("ses_r").Generation, r.b.now())
				}, "became active again"},
				{"drop", func(r *rig, l leaseGrant) { r.b.Drop("ses_r") }, "Task ses_r is no longer tracked; refusing stale revive"},
				{"relaunch", func(r *rig, l leaseGrant) {
					r.b.release(l)
					if _, err := r.b.registerLaunch(launchInput{TaskID: "ses_r", ParentID: parent1, Agent: "oracle"}); err != nil {
						panic(err)
					}
				}, "Task ses_r run generation changed; refusing stale revive"},
				{"replacement", func(r *rig, l leaseGrant) {
					r.b.release(l)
					r.b.acquire(leaseRelaunch, "ses_r", r.get("ses_r").Generation, nil)
				}, "relaunch lease is missing, stale, or belongs to another generation"},
			} {
				for _, during := range []string{"baseline", "status"} {
					r := newRig(t, Options{})
					r.launch("ses_r", parent1, "oracle")
					r.clk.Advance(time.Second)
					r.commit("ses_r", StateStopped, "")
					m := reviveRun(r, v1, "ses_r")
					orig := r.hasLease("ses_r", leaseRelaunch)
					if during == "status" {
						m.messages(nil, nil)
					}
					tc.do(r, orig)
					if during == "baseline" {
						m.messages(nil, nil)
					} else {
						m.status(idle("ses_r"), nil)
					}
					_, err := outcome[ReviveResult](t, m)
					checkErr(t, err, ErrStale, tc.msg)
					if r.count("SendPrompt") != 0 {
						t.Fatalf("%s/%s: prompt sent", tc.what, during)
					}
					if r.b.validate(orig) {
						t.Fatalf("%s/%s: original lease still live", tc.what, during)
					}
				}
			}
		}},
		{name: "E75_v1_busy_while_board_stopped", run: func(t *testing.T, r *rig) {
			r.launch("ses_r", parent1, "oracle")
			r.clk.Advance(time.Second)
			r.commit("ses_r", StateStopped, "")
			m := reviveRun(r, v1, "ses_r")
			m.messages(nil, nil)
			m.status(busy("ses_r"), nil)
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrBusyAtHost, "Task ses_r is executing at the host (live status: busy); the revive prompt was NOT sent and no duplicate was launched. Use task_status to inspect it.")
			if rec := r.get("ses_r"); rec.State != StateStopped || rec.Generation != 1 {
				t.Fatalf("record %s gen %d", rec.State, rec.Generation)
			}
			r.noLease("ses_r")
		}},
		{name: "E76_error_uncertain_not_revivable", run: func(t *testing.T, r *rig) {
			r.launch("ses_r", parent1, "oracle")
			g := r.get("ses_r").Generation
			r.b.claimDeadline("ses_r", g)
			r.b.finalizeClaim("ses_r", g, "abort was not confirmed")
			m := reviveRun(r, v1, "ses_r")
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrNotRevivable, "Task ses_r cannot be revived: state error (status uncertain) is not a verified retained terminal session")
			if r.count("SendPrompt") != 0 {
				t.Fatal("prompt sent")
			}
		}},
		{name: "E77_foreign_own_session_and_relaunch_race", run: func(t *testing.T, r *rig) {
			r.launch("ses_f", parent2, "oracle")
			for _, ref := range []string{"ses_f", parent1} {
				m := reviveRun(r, v1, ref)
				_, err := outcome[ReviveResult](t, m)
				exactErr(t, err, ErrUnknownTask, "Unknown or unowned background task: "+ref)
			}
			finished(r)
			m := reviveRun(r, v1, "ses_r")
			l := r.hasLease("ses_r", leaseRelaunch)
			r.b.release(l)
			if _, err := r.b.registerLaunch(launchInput{TaskID: "ses_r", ParentID: parent1, Agent: "oracle"}); err != nil {
				t.Fatal(err)
			}
			m.messages(nil, nil)
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrStale, "Task ses_r run generation changed; refusing stale revive")
		}},
		{name: "E78_prompt_error_before_deadline", run: func(t *testing.T, r *rig) {
			old := finished(r)
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			m.prompt(errors.New("envelope: 400 bad request"))
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrHost, "Task ses_r revive failed: envelope: 400 bad request")
			r.noLease("ses_r")
			if rec := r.get("ses_r"); rec.Generation != old.Generation || rec.State != StateReconciled {
				t.Fatalf("record changed: %s gen %d", rec.State, rec.Generation)
			}
		}},
		{name: "E79_deadline_and_acceptance_same_instant_either_order", run: func(t *testing.T, r *rig) {
			for _, timerFirst := range []bool{true, false} {
				r := newRig(t, Options{})
				old := finished(r)
				m := reviveRun(r, v1, "ses_r")
				toAdmission(t, r, m)
				call := m.must("SendPrompt")
				if timerFirst {
					r.advance(10 * time.Second)
				} else {
					r.clk.Advance(10 * time.Second)
				}
				m.step(promptReply{Call: call})
				res, err := outcome[ReviveResult](t, m)
				noErr(t, err)
				if res.Status != reviveAdmissionUnknown || res.Generation != old.Generation || res.State != StateCompleted {
					t.Fatalf("timerFirst=%t result %+v", timerFirst, res)
				}
				if rec := r.get("ses_r"); rec.Generation == old.Generation {
					t.Fatal("late acceptance did not register")
				}
				if len(r.logs) != 0 {
					t.Fatalf("logs %v", r.logs)
				}
				m.messages(nil, nil)
				done(t, m)
			}
		}},
		{name: "E80_after_admission_unknown_outcomes", run: func(t *testing.T, r *rig) {
			// Still pending: admission owner, second acquire fails.
			old := finished(r)
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			r.advance(10 * time.Second)
			l := r.hasLease("ses_r", leaseRelaunch)
			if l.Owner != ownerAdmission {
				t.Fatalf("owner %s", l.Owner)
			}
			if _, ok := r.b.acquire(leaseCancellation, "ses_r", old.Generation, nil); ok {
				t.Fatal("second acquire succeeded")
			}
			r.b.drain()
			m.prompt(nil)
			ns := r.b.drain()
			if len(ns) == 0 || ns[0].Kind != noticeLaunched {
				t.Fatalf("notices %v", ns)
			}
			if !m.has("ReadMessages") {
				t.Fatal("no observation read after a late registration")
			}
			// Rejected late: no launch, lease free, logged.
			r2 := newRig(t, Options{})
			finished(r2)
			m2 := reviveRun(r2, v1, "ses_r")
			toAdmission(t, r2, m2)
			r2.advance(10 * time.Second)
			m2.prompt(errors.New("rejected"))
			r2.noLease("ses_r")
			if !r2.logged("[task-revive] admission failed") || r2.get("ses_r").Generation != 1 {
				t.Fatal("late rejection mishandled")
			}
			// Lease released by the test, or superseded: no new generation, replacement intact.
			r3 := newRig(t, Options{})
			finished(r3)
			m3 := reviveRun(r3, v1, "ses_r")
			toAdmission(t, r3, m3)
			r3.advance(10 * time.Second)
			r3.b.release(r3.hasLease("ses_r", leaseRelaunch))
			repl, _ := r3.b.acquire(leaseRelaunch, "ses_r", 1, nil)
			m3.prompt(nil)
			if r3.get("ses_r").Generation != 1 || !r3.b.validate(repl) {
				t.Fatal("acceptance after ownership loss registered or released the replacement")
			}
			if !r3.logged("[task-revive] admission settled after ownership was lost") {
				t.Fatal("not logged")
			}
		}},
		{name: "E81_revive_became_stale_before_launch_completed", run: func(t *testing.T, r *rig) {
			finished(r)
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			m.prompt(nil)
			g2 := r.get("ses_r").Generation
			r.clk.Advance(time.Second)
			r.b.markRunningFromLive("ses_r", g2, r.b.now())
			second := reviveRun(r, v1, "ses_r")
			second.dispatch()
			second.abort(true, nil)
			second.status(idle("ses_r"), nil)
			r.advance(300 * time.Millisecond)
			second.status(idle("ses_r"), nil)
			second.messages(nil, nil)
			second.status(idle("ses_r"), nil)
			second.dispatch()
			second.prompt(nil)
			g3 := r.get("ses_r").Generation
			m.messages(nil, nil)
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrStale, "Task ses_r revive became stale before launch completed")
			if rec := r.get("ses_r"); rec.Generation != g3 || rec.State != StateRunning || g3 <= g2 {
				t.Fatalf("record %s gen %d (g2=%d g3=%d)", rec.State, rec.Generation, g2, g3)
			}
			if r.count("Abort") != 1 {
				t.Fatalf("aborts %d", r.count("Abort"))
			}
		}},
		{name: "E82_observation_failure_still_started", run: func(t *testing.T, r *rig) {
			finished(r)
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			m.prompt(nil)
			m.messages(nil, errors.New("boom"))
			res, err := outcome[ReviveResult](t, m)
			noErr(t, err)
			if res.Status != reviveStarted || !r.logged("[task-revive] observation failed") {
				t.Fatalf("result %+v logs %v", res, r.logs)
			}
		}},
		{name: "E87_second_revive_while_admission_pending", run: func(t *testing.T, r *rig) {
			finished(r)
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			r.advance(10 * time.Second)
			m2 := reviveRun(r, v1, "ses_r")
			_, err := outcome[ReviveResult](t, m2)
			exactErr(t, err, ErrUnsettled, "Task ses_r cannot be revived: a previous revive is still unsettled (sent_unknown); do not retry task_revive. Use task_status to inspect it.")
		}},
		{name: "E88_late_acceptance_registers_once", run: func(t *testing.T, r *rig) {
			finished(r)
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			call := m.must("SendPrompt")
			r.advance(10 * time.Second)
			m.prompt(nil)
			g := r.get("ses_r").Generation
			m.m.Step(r.b, promptReply{Call: call})
			m.m.Step(r.b, promptReply{Call: call, Err: errors.New("conflicting")})
			if r.get("ses_r").Generation != g {
				t.Fatal("registered twice")
			}
			r.noLease("ses_r")
			for _, l := range r.b.LiveLeases() {
				t.Fatalf("phase still shown: %v", l)
			}
		}},
		{name: "E126_unacknowledged_completed_and_reconciled_error_revivable", run: func(t *testing.T, r *rig) {
			r.launch("ses_r", parent1, "oracle")
			r.complete("ses_r", "x")
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			m.prompt(nil)
			m.messages(nil, nil)
			_, err := outcome[ReviveResult](t, m)
			noErr(t, err)
			r.launch("ses_e", parent1, "oracle")
			r.commit("ses_e", StateError, "bad")
			r.ack("ses_e")
			m = reviveRun(r, v2w, "ses_e")
			m.messages(nil, nil)
			m.idle(nil)
			m.dispatch()
			m.prompt(nil)
			m.messages(nil, nil)
			_, err = outcome[ReviveResult](t, m)
			noErr(t, err)
		}},
		{name: "E135_no_capability", run: func(t *testing.T, r *rig) {
			finished(r)
			m := reviveRun(r, v2, "ses_r")
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrCapability, "task_revive idle-verification capability unavailable: the host must expose session.status or waitForSessionIdle; no abort or prompt was sent")
			if len(r.performed) != 0 {
				t.Fatal("host calls made")
			}
			r.noLease("ses_r")
		}},
		{name: "E136_fallback_recovering", run: func(t *testing.T, r *rig) {
			r.launch("ses_r", parent1, "oracle")
			r.b.SetFallbackRecovering("ses_r", true)
			m := reviveRun(r, v1, "ses_r")
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrRefused, "Task ses_r is recovering on a fallback model; wait for its result. Use task_cancel if it is obsolete.")
		}},
		{name: "E137_queued_continuation", run: func(t *testing.T, r *rig) {
			finished(r)
			m := reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			m.prompt(nil)
			m.messages(nil, nil)
			m = reviveRun(r, v1, "ses_r")
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrUnsettled, "Task ses_r already has a queued continuation; do not retry task_revive. Use task_status to inspect it.")
		}},
		{name: "revive_requires_prompt", run: func(t *testing.T, r *rig) {
			finished(r)
			m := r.start(newRevive(orch, reviveArgs{Ref: "ses_r", Prompt: "  "}, v1))
			_, err := outcome[ReviveResult](t, m)
			exactErr(t, err, ErrInvalidArgs, "task_revive requires prompt")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, Options{})) })
	}
}
