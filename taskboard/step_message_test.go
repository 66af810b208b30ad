package taskboard

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func msgRun(r *rig, caps caps, ref, text string) *mrun {
	return r.start(newMessage(orch, messageArgs{Ref: ref, Text: text}, caps))
}

var history = []TranscriptEntry{
	{ID: "m1", Role: "user", Provider: "prov", Model: "A", Variant: "high"},
	{ID: "m2", Role: "assistant", Agent: "explorer", Provider: "prov", Model: "A"},
}

func lastWrite(t *testing.T, r *rig) writeMessage {
	t.Helper()
	for i := len(r.performed) - 1; i >= 0; i-- {
		if w, ok := r.performed[i].(writeMessage); ok {
			return w
		}
	}
	t.Fatal("no write performed")
	return writeMessage{}
}

func TestMessageScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E53_v1_noReply_write_with_identity", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v1, "exp-1", "  also check the tests  ")
			r.hasLease("ses_x", leaseMessage)
			m.messages(history, nil)
			m.dispatch()
			m.write(nil)
			res, err := outcome[MessageResult](t, m)
			noErr(t, err)
			if got := res.Render(); got != "Message queued for exp-1 (ses_x) without launching or resuming it." {
				t.Fatalf("render %q", got)
			}
			w := lastWrite(t, r)
			want := Message{Text: "also check the tests", Agent: "explorer", Provider: "prov", Model: "A", Variant: "high", Flavor: FlavorV1}
			if w.Message != want {
				t.Fatalf("write %+v, want %+v", w.Message, want)
			}
			r.noLease("ses_x")
			done(t, m)
		}},
		{name: "E54_two_messages_two_writes_no_prompt", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			for i := 0; i < 2; i++ {
				m := msgRun(r, v1, "ses_x", "note")
				m.messages(history, nil)
				m.dispatch()
				m.write(nil)
			}
			if r.count("WriteMessage") != 2 || r.count("SendPrompt") != 0 {
				t.Fatalf("calls %v", r.performed)
			}
		}},
		{name: "E55_newest_model_wins_variant_from_newest_user", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v1, "ses_x", "hi")
			m.messages([]TranscriptEntry{
				{ID: "1", Role: "user", Provider: "p", Model: "A", Variant: "low"},
				{ID: "2", Role: "assistant", Provider: "p", Model: "A"},
				{ID: "3", Role: "user", Variant: "max"},
				{ID: "4", Role: "assistant", Provider: "p", Model: "B", Agent: "fixer"},
				{ID: "5", Role: "assistant", Summary: true, Provider: "p", Model: "S"},
				{ID: "6", Role: "assistant", Text: "no model"},
			}, nil)
			m.dispatch()
			w := lastWrite(t, r)
			if w.Message.Model != "B" || w.Message.Variant != "max" || w.Message.Agent != "fixer" {
				t.Fatalf("identity %+v", w.Message)
			}
		}},
		{name: "E56_empty_transcript_no_identity", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v1, "ses_x", "hi")
			m.messages(nil, nil)
			_, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrRefused, "Task ses_x has no authoritative model identity; refusing message")
			if r.count("WriteMessage") != 0 {
				t.Fatal("write sent")
			}
			r.noLease("ses_x")
		}},
		{name: "E57_identity_read_pending_at_budget", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v1, "ses_x", "hi")
			read := m.must("ReadMessages")
			r.advance(10 * time.Second)
			_, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrTimeout, "Task message model lookup timed out after 10000ms")
			if !m.cancelled[read] {
				t.Fatal("no CancelCall for the read")
			}
			r.noLease("ses_x")
			done(t, m)
		}},
		{name: "E58_completes_during_lookup_terminal_refusal", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v1, "ses_x", "hi")
			r.complete("ses_x", "done")
			m.messages(history, nil)
			_, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrNotRunning, `Task ses_x is terminal (completed). task_message only queues messages for running tasks; it never launches or resumes. Continue that same session with task_revive and task_id: "ses_x".`)
			if r.count("WriteMessage") != 0 {
				t.Fatal("write sent")
			}
			rev := r.get("ses_x").TerminalRevision
			if _, ok := r.b.acquire(leaseNotification, "ses_x", r.get("ses_x").Generation, &rev); !ok {
				t.Fatal("notification lease refused")
			}
		}},
		{name: "E59_write_pending_excludes_then_releases", run: func(t *testing.T, r *rig) {
			rec := r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", "hi")
			m.dispatch()
			for _, k := range []leaseKind{leaseCancellation, leaseRelaunch} {
				if _, ok := r.b.acquire(k, "ses_x", rec.Generation, nil); ok {
					t.Fatalf("%s acquired during the write", k)
				}
			}
			_, err := r.b.registerLaunch(launchInput{TaskID: "ses_x", ParentID: parent1, Agent: "explorer"})
			checkErr(t, err, ErrLeaseHeld, "message lease")
			m.write(nil)
			res, err := outcome[MessageResult](t, m)
			noErr(t, err)
			if res.Status != "queued" {
				t.Fatalf("status %q", res.Status)
			}
			r.noLease("ses_x")
		}},
		{name: "E60_write_error_released", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", "hi")
			m.dispatch()
			m.write(errors.New("HTTP 409"))
			_, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrHost, "Task message transport failed: HTTP 409")
			r.noLease("ses_x")
		}},
		{name: "E61_write_pending_at_budget_lease_retained", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			r.launch("ses_y", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", "hi")
			m.dispatch()
			r.advance(10 * time.Second)
			res, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrTimeout, "Task message transport timed out after 10000ms")
			if !res.LeaseRetained {
				t.Fatal("LeaseRetained not set")
			}
			l := r.hasLease("ses_x", leaseMessage)
			m2 := msgRun(r, v2, "ses_x", "again")
			_, err = outcome[MessageResult](t, m2)
			leaseErr(t, err, "Task ses_x cannot queue a message: message/control lease unavailable.")
			sib := msgRun(r, v2, "ses_y", "sibling")
			sib.dispatch()
			sib.write(nil)
			if _, err := outcome[MessageResult](t, sib); err != nil {
				t.Fatalf("sibling: %v", err)
			}
			r.complete("ses_x", "done")
			n := r.start(newNotify(parent1, Notice{Kind: noticeTerminal, TaskID: "ses_x", ParentID: parent1, Generation: r.get("ses_x").Generation, TerminalRevision: 1}, v2))
			if n.m.(*notifyM).State() != notifyParked {
				t.Fatal("notification not parked")
			}
			before := r.get("ses_x")
			r.b.drain()
			m.write(errors.New("late failure"))
			rel := 0
			for _, ev := range r.b.drain() {
				if ev.Kind == noticeLeaseReleased && ev.TaskID == "ses_x" {
					rel++
				}
			}
			if rel != 1 {
				t.Fatalf("releases = %d, want 1", rel)
			}
			if after := r.get("ses_x"); !equalRecords(before, after) {
				t.Fatalf("late settlement changed the record: %s", diffRecords(before, after))
			}
			if r.b.release(l) {
				t.Fatal("old lease released twice")
			}
			done(t, m)
		}},
		{name: "E62_dropped_before_dispatch_withdraw", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", "hi")
			r.b.Drop("ses_x")
			m.dispatch()
			_, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrStale, "Task ses_x is no longer tracked; refusing stale message")
			if r.count("WriteMessage") != 0 || len(m.withdrawn) != 1 {
				t.Fatal("write not withdrawn")
			}
		}},
		{name: "E63_completed_and_cancel_requested_targets", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			r.complete("ses_x", "done")
			m := msgRun(r, v1, "ses_x", "hi")
			_, err := outcome[MessageResult](t, m)
			checkErr(t, err, ErrNotRunning, "Continue that same session with task_revive")
			r.launch("ses_w", parent1, "explorer")
			rec := r.get("ses_w")
			r.b.claimDeadline("ses_w", rec.Generation) // sets CancellationRequested on a running record
			m = msgRun(r, v1, "ses_w", "hi")
			_, err = outcome[MessageResult](t, m)
			exactErr(t, err, ErrNotRunning, "Task ses_w cannot queue a message: cancellation was requested")
			if r.count("WriteMessage") != 0 {
				t.Fatal("write sent")
			}
		}},
		{name: "E64_other_parent_unknown", run: func(t *testing.T, r *rig) {
			r.launch("ses_o", parent2, "explorer")
			m := msgRun(r, v1, "ses_o", "hi")
			_, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrUnknownTask, "Unknown task ID or alias: ses_o")
			m = msgRun(r, v1, "ses_nope", "hi")
			_, err = outcome[MessageResult](t, m)
			exactErr(t, err, ErrUnknownTask, `Unknown task ID or alias: ses_nope. It is not tracked by this board; to continue that session use task_revive with task_id: "ses_nope". Do not launch a duplicate.`)
		}},
		{name: "E65_register_during_dispatch_wait_fails", run: func(t *testing.T, r *rig) {
			rec := r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", "hi")
			_, err := r.b.registerLaunch(launchInput{TaskID: "ses_x", ParentID: parent1, Agent: "explorer"})
			checkErr(t, err, ErrLeaseHeld, "a message lease already owns this session")
			if r.get("ses_x").Generation != rec.Generation {
				t.Fatal("generation changed")
			}
			m.dispatch()
			m.write(nil)
			if r.count("WriteMessage") != 1 {
				t.Fatal("want exactly one write")
			}
		}},
		{name: "E66_length_limit_and_wording", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", "  "+strings.Repeat("a", 2000)+"\n")
			m.dispatch()
			m.write(nil)
			res, err := outcome[MessageResult](t, m)
			noErr(t, err)
			text := res.Render()
			if !strings.Contains(text, "queued") {
				t.Fatal("no 'queued'")
			}
			for _, bad := range []string{"delivered", "admitted", "nudge"} {
				if strings.Contains(text, bad) {
					t.Fatalf("text says %q", bad)
				}
			}
			m = msgRun(r, v2, "ses_x", strings.Repeat("a", 2001))
			_, err = outcome[MessageResult](t, m)
			exactErr(t, err, ErrInvalidArgs, "task_message message is too long (2001 characters; the limit is 2000)")
		}},
		{name: "E114_pending_write_visible_in_live_leases", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", "hi")
			m.dispatch()
			r.advance(10 * time.Second)
			ls := r.b.LeasesForTest()
			if len(ls) != 1 || ls[0].Kind != leaseMessage || ls[0].Owner != ownerCaller {
				t.Fatalf("live leases %v", ls)
			}
			m.write(nil)
			if ls := r.b.LeasesForTest(); len(ls) != 0 {
				t.Fatalf("live leases after settlement %v", ls)
			}
		}},
		{name: "E123_v2_queue_write_no_identity", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", "hi")
			if r.count("ReadMessages") != 0 {
				t.Fatal("identity read on v2")
			}
			m.dispatch()
			w := lastWrite(t, r)
			if w.Message != (Message{Text: "hi", Flavor: FlavorV2}) {
				t.Fatalf("v2 write %+v", w.Message)
			}
		}},
		{name: "E124_2000_cjk_characters_accepted", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			text := strings.Repeat("漢", 2000)
			if len(text) != 6000 {
				t.Fatalf("setup: %d bytes", len(text))
			}
			m := msgRun(r, v2, "ses_x", text)
			m.dispatch()
			m.write(nil)
			_, err := outcome[MessageResult](t, m)
			noErr(t, err)
		}},
		{name: "E125_whitespace_only_no_lease", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v2, "ses_x", " \n\t ")
			_, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrInvalidArgs, "task_message requires message")
			r.noLease("ses_x")
		}},
		{name: "budget_spent_by_lookup_no_write", run: func(t *testing.T, r *rig) {
			r.launch("ses_x", parent1, "explorer")
			m := msgRun(r, v1, "ses_x", "hi")
			// The reply is delivered exactly at the budget's end: the tick rule makes it late.
			r.clk.Advance(10 * time.Second)
			m.messages(history, nil)
			_, err := outcome[MessageResult](t, m)
			exactErr(t, err, ErrTimeout, "Task message model lookup timed out after 10000ms")
			if r.count("WriteMessage") != 0 {
				t.Fatal("write sent")
			}
			r.noLease("ses_x")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, Options{})) })
	}
}
