package taskboard

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTaskToolScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E99_delayed_G1_output_after_G2_ignored", run: func(t *testing.T, r *rig) {
			r.launch("ses_t", parent1, "explorer")
			r.complete("ses_t", "one")
			r.ack("ses_t")
			p1, err := r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "ses_t"})
			noErr(t, err)
			_, err = r.b.finishTask(p1, LaunchObservation{TaskID: "ses_t"})
			noErr(t, err)
			g2 := r.get("ses_t").Generation
			_, err = r.b.finishTask(p1, LaunchObservation{TaskID: "ses_t", TerminalState: StateCompleted, TerminalSummary: "late G1"})
			checkErr(t, err, ErrStale, "")
			if rec := r.get("ses_t"); rec.Generation != g2 || rec.State != StateRunning {
				t.Fatalf("record %s gen %d", rec.State, rec.Generation)
			}
		}},
		{name: "E103_running_task_refused", run: func(t *testing.T, r *rig) {
			r.launch("ses_t", parent1, "explorer")
			_, err := r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "ses_t"})
			exactErr(t, err, ErrRefused, "Task exp-1 is still running and cannot be resumed or amended with task(). Use task_message to add information, task_status to inspect it, or task_cancel if it is obsolete. No new session was created.")
		}},
		{name: "E104_cancellation_lease_blocks_resume_and_early_registration", run: func(t *testing.T, r *rig) {
			r.launch("ses_t", parent1, "explorer")
			g := r.get("ses_t").Generation
			r.b.markTimedOut("ses_t", g)
			r.b.markRunningFromLive("ses_t", g, r.b.now().Add(time.Second)) // recoverable
			if !r.get("ses_t").recoverable() {
				t.Fatal("setup: not recoverable")
			}
			r.b.acquire(leaseCancellation, "ses_t", g, nil)
			_, err := r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "ses_t"})
			leaseErr(t, err, "Task exp-1 cannot be resumed safely: its current generation is already owned by another lifecycle operation. Do not launch a duplicate with the same task_id.")
			_, err = r.b.registerLaunch(launchInput{TaskID: "ses_t", ParentID: parent1, Agent: "explorer", Early: true})
			checkErr(t, err, ErrLeaseHeld, "cancellation lease")
		}},
		{name: "E105_resume_lease_held_until_finish_or_fail", run: func(t *testing.T, r *rig) {
			r.launch("ses_t", parent1, "explorer")
			r.complete("ses_t", "one")
			r.ack("ses_t")
			p, err := r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "exp-1"})
			noErr(t, err)
			if p.Kind != planResume || p.lease == nil {
				t.Fatalf("plan %+v", p)
			}
			r.hasLease("ses_t", leaseRelaunch)
			res, err := r.b.finishTask(p, LaunchObservation{TaskID: "ses_t"})
			noErr(t, err)
			if res.Render() != "task_id: ses_t\nalias: exp-1\nstate: running" {
				t.Fatalf("render %q", res.Render())
			}
			r.noLease("ses_t")
			r.complete("ses_t", "two")
			r.ack("ses_t")
			p, err = r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "ses_t"})
			noErr(t, err)
			r.hasLease("ses_t", leaseRelaunch)
			r.b.failTask(p)
			r.noLease("ses_t")
		}},
		{name: "E138_task_id_without_subagent_type", run: func(t *testing.T, r *rig) {
			_, err := r.b.prepareTask(orch, TaskCall{Ref: "ses_t"})
			exactErr(t, err, ErrRefused, "Task ses_t: task() requires a valid subagent_type with an explicit task_id. The task_id was not dropped; no new session was created.")
		}},
		{name: "E139_uuid_dropped_and_untracked_child_refused", run: func(t *testing.T, r *rig) {
			p, err := r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "123e4567-e89b-12d3-a456-426614174000"})
			noErr(t, err)
			if p.Kind != planSpawn || p.DroppedRef == "" {
				t.Fatalf("plan %+v", p)
			}
			_, err = r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "exp-7", UntrackedRunningChild: true})
			checkErr(t, err, ErrRefused, "Unknown task ID or alias: exp-7. The board may have lost its mapping")
			p, err = r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "ses_new", flavor: FlavorV1})
			noErr(t, err)
			if p.Kind != planAdoptCandidate || p.TaskID != "ses_new" {
				t.Fatalf("plan %+v", p)
			}
		}},
		{name: "E140_duplicate_objective_until_result_read", run: func(t *testing.T, r *rig) {
			r.launch("ses_t", parent1, "explorer")
			r.complete("ses_t", "done")
			_, err := r.b.prepareTask(orch, TaskCall{Agent: "explorer", Objective: "  OBJECTIVE   ses_t "})
			exactErr(t, err, ErrDuplicate, `A background task with the same objective already finished (exp-1 / ses_t, completed). Call task_result with task_id: "ses_t" before launching it again.`)
			r.clk.Advance(time.Second)
			r.b.markUsed(parent1, "ses_t")
			_, err = r.b.prepareTask(orch, TaskCall{Agent: "explorer", Objective: "objective ses_t"})
			noErr(t, err)
		}},
		{name: "known_record_refusals", run: func(t *testing.T, r *rig) {
			r.launch("ses_s", parent1, "explorer")
			r.clk.Advance(time.Second)
			r.commit("ses_s", StateStopped, "")
			_, err := r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "ses_s"})
			exactErr(t, err, ErrRefused, `Task exp-1 / ses_s: stopped, unreconciled; task() cannot resume this session. Use task_revive with task_id: "ses_s". No new session was created.`)
			_, err = r.b.prepareTask(orch, TaskCall{Agent: "fixer", Ref: "ses_s"})
			exactErr(t, err, ErrRefused, "Task exp-1 / ses_s: agent is explorer, not fixer. No new session was created.")
			r.launch("ses_u", parent1, "explorer")
			r.commit("ses_u", StateError, "boom")
			_, err = r.b.prepareTask(orch, TaskCall{Agent: "explorer", Ref: "ses_u"})
			exactErr(t, err, ErrRefused, "Task exp-2 / ses_u: error, cannot resume until acknowledgement. Use task_revive now, or wait for acknowledgement and call task() again. No new session was created.")
		}},
		{name: "E148_task_id_and_sessionID_disagree", run: func(t *testing.T, r *rig) {
			_, err := TaskRef("task_status", "ses_a", "ses_b")
			exactErr(t, err, ErrInvalidArgs, "task_status: task_id and sessionID disagree")
			ref, err := TaskRef("task_status", "", "ses_b")
			noErr(t, err)
			if ref != "ses_b" {
				t.Fatalf("ref %q", ref)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, Options{})) })
	}
}

func userMsg(session, id string, parts ...Part) userMessage {
	if len(parts) == 0 {
		parts = []Part{{Kind: "text"}}
	}
	return userMessage{SessionID: session, ID: id, Role: "user", Parts: parts}
}

func TestWaitScenarios(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		run  func(t *testing.T, r *rig)
	}{
		{name: "E106_armed_output", run: func(t *testing.T, r *rig) {
			res, err := r.b.waitForUser(orch, "need the API key")
			noErr(t, err)
			if got, want := res.Render(), "state: waiting_for_user\nprotocol: harnesskit.wait_for_user.v1\nreason: need the API key\n\nEnd this turn now. Do not call more tools until the user responds."; got != want {
				t.Fatalf("render %q", got)
			}
			if !r.b.Waiting(parent1) {
				t.Fatal("not armed")
			}
		}},
		{name: "E107_replay_does_not_clear", run: func(t *testing.T, r *rig) {
			r.b.waitForUser(orch, "x")
			if !r.b.clearForMessage(userMsg(parent1, "msg-1")) || r.b.Waiting(parent1) {
				t.Fatal("msg-1 did not clear")
			}
			r.b.waitForUser(orch, "x")
			r.b.clearForMessage(userMsg(parent1, "msg-1"))
			if !r.b.Waiting(parent1) {
				t.Fatal("replay cleared")
			}
			r.b.clearForMessage(userMsg(parent1, "msg-2"))
			if r.b.Waiting(parent1) {
				t.Fatal("msg-2 did not clear")
			}
		}},
		{name: "E108_deletion_clears_wait_and_identity", run: func(t *testing.T, r *rig) {
			r.b.waitForUser(orch, "x")
			r.b.clearForMessage(userMsg(parent1, "msg-1"))
			r.b.waitForUser(orch, "x")
			r.b.hostDeleted(deletionEvent{SessionID: parent1})
			if r.b.Waiting(parent1) {
				t.Fatal("deletion did not clear")
			}
			r.b.manage(parent1)
			r.b.waitForUser(orch, "x")
			r.b.clearForMessage(userMsg(parent1, "msg-1"))
			if r.b.Waiting(parent1) {
				t.Fatal("forgotten identity did not clear")
			}
		}},
		{name: "E109_synthetic_and_internal_keep_wait", run: func(t *testing.T, r *rig) {
			r.b.waitForUser(orch, "x")
			r.b.clearForMessage(userMsg(parent1, "s1", Part{Kind: "text", Synthetic: true}))
			r.b.clearForMessage(userMsg(parent1, "s2", Part{Kind: "text"}, Part{Kind: "text", Internal: true}))
			if !r.b.Waiting(parent1) {
				t.Fatal("cleared by a synthetic or internal message")
			}
		}},
		{name: "E111_guard_refusals_arm_nothing", run: func(t *testing.T, r *rig) {
			for _, tc := range []struct {
				c    Caller
				kind error
				msg  string
			}{
				{Caller{}, ErrInvalidArgs, "wait_for_user requires sessionID"},
				{Caller{SessionID: parent1, Agent: "fixer"}, ErrNotOrchestrator, "wait_for_user can only be used by orchestrator"},
				{Caller{SessionID: "parent-x", Agent: ""}, ErrUnmanaged, "wait_for_user can only be used in orchestrator sessions"},
			} {
				_, err := r.b.waitForUser(tc.c, "x")
				exactErr(t, err, tc.kind, tc.msg)
				if r.b.Waiting(tc.c.SessionID) {
					t.Fatal("armed")
				}
			}
			// An unmanaged session whose agent is an orchestrator agent is managed first.
			if _, err := r.b.waitForUser(Caller{SessionID: "parent-y", Agent: "orchestrator"}, "x"); err != nil || !r.b.Waiting("parent-y") {
				t.Fatalf("orchestrator session not managed: %v", err)
			}
		}},
		{name: "E143_reason_collapsed_and_limited", run: func(t *testing.T, r *rig) {
			res, err := r.b.waitForUser(orch, "  a   b  ")
			noErr(t, err)
			if res.Reason != "a b" {
				t.Fatalf("reason %q", res.Reason)
			}
			_, err = r.b.waitForUser(orch, strings.Repeat("é ", 250)+"x")
			exactErr(t, err, ErrInvalidArgs, "wait_for_user reason must be at most 500 characters")
			_, err = r.b.waitForUser(orch, strings.Repeat("é", 500))
			noErr(t, err)
			_, err = r.b.waitForUser(orch, " \n ")
			exactErr(t, err, ErrInvalidArgs, "wait_for_user requires a non-empty reason")
		}},
		{name: "E144_wait_guard_skips", opts: Options{WaitGuard: true}, run: func(t *testing.T, r *rig) {
			r.launch("ses_c", parent1, "explorer")
			res, err := r.b.waitForUser(orch, "later")
			noErr(t, err)
			if !res.Skipped || res.State != "waiting_for_user_skipped" || r.b.Waiting(parent1) {
				t.Fatalf("res %+v", res)
			}
			if !strings.Contains(res.Render(), "Background tasks are still outstanding for this session.") {
				t.Fatal(res.Render())
			}
		}},
		{name: "E149_reference_protocol_line", opts: Options{WaitProtocol: "oh-my-opencode-slim.wait_for_user.v1"}, run: func(t *testing.T, r *rig) {
			res, err := r.b.waitForUser(orch, "x")
			noErr(t, err)
			if !strings.Contains(res.Render(), "\nprotocol: oh-my-opencode-slim.wait_for_user.v1\n") {
				t.Fatal(res.Render())
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, tc.opts)) })
	}
}

func TestStatusResultScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E112_possibly_stuck_and_unconfirmed_readings", run: func(t *testing.T, r *rig) {
			r.launch("ses_s", parent1, "explorer")
			r.clk.Advance(120 * time.Second)
			m := r.start(newStatus(orch, statusArgs{Ref: "exp-1"}, v1))
			m.status(busy("ses_s"), nil)
			res, err := outcome[StatusResult](t, m)
			noErr(t, err)
			if !res.PossiblyStuck || res.Source != sourceLive || res.IdleForSeconds != 120 {
				t.Fatalf("res %+v", res)
			}
			for _, tc := range []struct {
				reply func(m *mrun)
				want  string
			}{
				{func(m *mrun) { m.status(nil, errors.New("connection refused")) }, "connection refused"},
				{func(m *mrun) { m.status(map[string]LiveStatus{"ses_s": "weird"}, nil) }, "malformed live status entry for session"},
				{func(m *mrun) { r.advance(5 * time.Second) }, "live status lookup timed out after 5000ms"},
				{func(m *mrun) { m.status(map[string]LiveStatus{}, nil) }, "no live status entry for session"},
			} {
				m := r.start(newStatus(orch, statusArgs{Ref: "ses_s"}, v1))
				tc.reply(m)
				res, err := outcome[StatusResult](t, m)
				noErr(t, err)
				if res.State != "running (unconfirmed)" || !res.StatusUncertain || res.LastStatusError != tc.want || res.PossiblyStuck {
					t.Fatalf("res %+v want %q", res, tc.want)
				}
			}
			r.launch("ses_o", parent2, "explorer")
			m = r.start(newStatus(orch, statusArgs{Ref: "ses_o"}, v1))
			_, err = outcome[StatusResult](t, m)
			exactErr(t, err, ErrUnknownTask, "Unknown task ID or alias: ses_o")
		}},
		{name: "E121_valid_map_without_entry_unconfirmed", run: func(t *testing.T, r *rig) {
			r.launch("ses_s", parent1, "explorer")
			before := r.get("ses_s")
			m := r.start(newStatus(orch, statusArgs{Ref: "ses_s"}, v1))
			m.status(map[string]LiveStatus{}, nil)
			res, _ := outcome[StatusResult](t, m)
			if res.State != "running (unconfirmed)" || res.LastStatusError != "no live status entry for session" {
				t.Fatalf("res %+v", res)
			}
			if !equalRecords(before, r.get("ses_s")) {
				t.Fatal("task_status changed the board")
			}
		}},
		{name: "E113_result_running_healed_refusals_and_stale", run: func(t *testing.T, r *rig) {
			r.launch("ses_q", parent1, "explorer")
			m := r.start(newResult(orch, resultArgs{Ref: "ses_q"}, v1))
			res, err := outcome[ResultOutput](t, m)
			noErr(t, err)
			if !res.Running || !strings.Contains(res.Render(), "Task is still running. Wait for its terminal result.") {
				t.Fatalf("res %+v", res)
			}
			// Unacknowledged stopped, live busy → healed to running.
			r.clk.Advance(time.Second)
			r.commit("ses_q", StateStopped, "")
			r.clk.Advance(time.Second)
			m = r.start(newResult(orch, resultArgs{Ref: "ses_q"}, v1))
			m.status(busy("ses_q"), nil)
			res, err = outcome[ResultOutput](t, m)
			noErr(t, err)
			if !res.Running || r.get("ses_q").State != StateRunning {
				t.Fatalf("not healed: %+v %s", res, r.get("ses_q").State)
			}
			// The live-status read armed exactly one timer and stopped it: nothing is left.
			if len(m.timers) != 0 || !m.m.Done() {
				t.Fatalf("after the live read: timers %v, Done %v; want none and done", m.timers, m.m.Done())
			}
			// Error and cancelled refusals.
			r.commit("ses_q", StateError, "compile failed")
			m = r.start(newResult(orch, resultArgs{Ref: "ses_q"}, v1))
			_, err = outcome[ResultOutput](t, m)
			exactErr(t, err, ErrTaskFailed, "Task ses_q ended in error: compile failed")
			r.launch("ses_c", parent1, "explorer")
			r.commit("ses_c", StateCancelled, "user requested")
			m = r.start(newResult(orch, resultArgs{Ref: "ses_c"}, v1))
			_, err = outcome[ResultOutput](t, m)
			exactErr(t, err, ErrTaskFailed, "Task ses_c was cancelled: user requested")
			// A relaunch between the reads → changed generation.
			r.launch("ses_d", parent1, "explorer")
			r.complete("ses_d", "answer")
			r.ack("ses_d")
			m = r.start(newResult(orch, resultArgs{Ref: "ses_d"}, v1))
			m.session(SessionInfo{ParentID: parent1}, nil)
			if _, err := r.b.registerLaunch(launchInput{TaskID: "ses_d", ParentID: parent1, Agent: "explorer"}); err != nil {
				t.Fatal(err)
			}
			m.messages([]TranscriptEntry{{Role: "assistant", Finished: true, Text: "answer"}}, nil)
			_, err = outcome[ResultOutput](t, m)
			exactErr(t, err, ErrStale, "Task ses_d changed generation while its result was being retrieved; call task_result again.")
			// Untracked idle session without terminal evidence.
			m = r.start(newResult(orch, resultArgs{Ref: "ses_untracked"}, v1))
			m.session(SessionInfo{ParentID: parent1}, nil)
			m.messages([]TranscriptEntry{{Role: "assistant", Text: "half way"}}, nil)
			_, err = outcome[ResultOutput](t, m)
			exactErr(t, err, ErrNoResult, "Task ses_untracked shows no terminal evidence of completion; refusing to present partial output as its final result")
		}},
		{name: "result_completed_text_marks_used", run: func(t *testing.T, r *rig) {
			r.launch("ses_d", parent1, "explorer")
			r.complete("ses_d", "answer")
			m := r.start(newResult(orch, resultArgs{Ref: "exp-1"}, v1))
			m.session(SessionInfo{ParentID: parent1}, nil)
			m.messages([]TranscriptEntry{{Role: "user", Text: "q"}, {Role: "assistant", Finished: true, Text: "the answer"}}, nil)
			res, err := outcome[ResultOutput](t, m)
			noErr(t, err)
			if got, want := res.Render(), "task_id: ses_d\nstate: completed\ngeneration: 1\n\n<task_result>\nthe answer\n</task_result>"; got != want {
				t.Fatalf("render %q", got)
			}
			if rec := r.get("ses_d"); !rec.LastUsedAt.After(rec.CompletedAt) {
				t.Fatal("not marked used")
			}
			m = r.start(newResult(orch, resultArgs{Ref: "exp-1"}, v1))
			m.session(SessionInfo{ParentID: parent2}, nil)
			_, err = outcome[ResultOutput](t, m)
			exactErr(t, err, ErrForeignTask, "Task exp-1 does not belong to this session")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, Options{})) })
	}
}
