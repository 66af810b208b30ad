package loopguard_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/loopguard"
)

func (h *harness) wait(tool string) res { return h.do("s1", tool, `{}`, "waited") }

// TestEdgeWait covers the spec's edge cases 32–40 (the wait guard).
func TestEdgeWait(t *testing.T) {
	const wfu, wbt = "wait_for_user", "wait_for_background_tasks"
	runEdgeCases(t, []edgeCase{
		{name: "E32_second_warned_third_refused", run: func(h *harness) {
			r := h.wait(wfu)
			h.ok("1st", r, loopguard.StreamWait, 1, false)
			if r.v.Output.Text != "waited" {
				h.t.Fatalf("1st output %q", r.v.Output.Text)
			}
			r = h.wait(wfu)
			h.ok("2nd", r, loopguard.StreamWait, 2, true)
			if r.v.Output.Text != "waited"+waitNotice(2) {
				h.t.Fatalf("2nd output %q", r.v.Output.Text)
			}
			r = h.wait(wfu)
			h.refused("3rd", r, loopguard.KindWait, wfu, 2)
			want := `Refusing to execute "wait_for_user": a wait tool has already completed 2 times this turn and instructed you to end the turn. Do not call any more tools. Respond to the user in plain text and end your turn.`
			if r.err.Error() != want {
				h.t.Fatalf("message %q", r.err.Error())
			}
		}},
		{name: "E33_wait_tools_share_counter", run: func(h *harness) {
			h.ok("wfu", h.wait(wfu), loopguard.StreamWait, 1, false)
			h.ok("wbt", h.wait(wbt), loopguard.StreamWait, 2, true)
			h.refused("wbt 3rd", h.wait(wbt), loopguard.KindWait, wbt, 2)
			h.refused("wfu 3rd", h.wait("Wait_For_User"), loopguard.KindWait, wfu, 2)
		}},
		{name: "E34_distinct_message_resumes", run: func(h *harness) {
			h.g.UserMessage("s1", "m1", true)
			h.wait(wfu)
			h.wait(wfu)
			h.refused("3rd", h.wait(wfu), loopguard.KindWait, wfu, 2)
			h.g.UserMessage("s1", "m2", true)
			h.ok("after m2", h.wait(wfu), loopguard.StreamWait, 1, false)
		}},
		{name: "E35_same_message_twice_ignored", run: func(h *harness) {
			h.g.UserMessage("s1", "m1", true)
			h.wait(wfu)
			h.g.UserMessage("s1", "m1", true)
			h.ok("2nd", h.wait(wfu), loopguard.StreamWait, 2, true)
			h.g.UserMessage("s1", "m1", false)
			h.refused("3rd", h.wait(wfu), loopguard.KindWait, wfu, 2)
		}},
		{name: "replayed_older_id_ignored", run: func(h *harness) {
			// The spec compared a message id with the last one only; a host that
			// re-delivers the conversation's user messages would then reset the wait
			// counter on every replay. Any recently seen id does nothing.
			h.g.UserMessage("s1", "m1", true)
			h.g.UserMessage("s1", "m2", true)
			h.wait(wfu)
			h.wait(wfu)
			h.g.UserMessage("s1", "m1", true)
			h.refused("after m1 again", h.wait(wfu), loopguard.KindWait, wfu, 2)
			if h.state("s1").LastMessage != "m2" {
				h.t.Fatalf("last message %q, want m2", h.state("s1").LastMessage)
			}
			h.g.UserMessage("s1", "m3", true)
			h.ok("after m3", h.wait(wfu), loopguard.StreamWait, 1, false)
		}},
		{name: "E37_end_turn_resets", run: func(h *harness) {
			h.wait(wfu)
			h.wait(wfu)
			h.g.EndTurn("s1")
			h.ok("after EndTurn", h.wait(wfu), loopguard.StreamWait, 1, false)
		}},
		{name: "E38_wait_transparent_to_streak", run: func(h *harness) {
			h.R()
			h.wait(wfu)
			h.loop("R", h.R(), 2, false)
		}},
		{name: "E39_structured_wait_output", run: func(h *harness) {
			h.doOut("s1", wfu, `{}`, loopguard.ValueOutput([]byte(`{"ok":true}`)))
			r := h.doOut("s1", wfu, `{}`, loopguard.ValueOutput([]byte(`{"ok":true}`)))
			h.ok("2nd", r, loopguard.StreamWait, 2, false)
			h.refused("3rd", h.wait(wfu), loopguard.KindWait, wfu, 2)
		}},
		// As amended (E64): a wait call without a call id is ErrInvalidCall, and never
		// counted.
		{name: "E40_wait_without_call_id", run: func(h *harness) {
			for n := range 4 {
				c := call("s1", "", wfu, `{}`)
				h.invalid(fmt.Sprint(n), res{err: h.g.Before(c)})
				h.invalid(fmt.Sprint(n, " after"), h.after(c, loopguard.TextOutput("w")))
			}
			h.ok("a wait with an id", h.wait(wfu), loopguard.StreamWait, 1, false)
		}},
	})
}

func (h *harness) status(tool, args, out string) res { return h.do("s1", tool, args, out) }

// TestEdgeSupervision covers the spec's edge cases 41–53 (task supervision).
func TestEdgeSupervision(t *testing.T) {
	const running = "task_id: t1\nstate: running"
	sup := loopguard.StreamSupervision
	runEdgeCases(t, []edgeCase{
		{name: "E41_third_poll_warned_never_refused", run: func(h *harness) {
			for n := 1; n <= 10; n++ {
				r := h.status("task_status", `{"task_id":"t1"}`, running)
				h.ok(fmt.Sprint(n), r, sup, n, n >= 3)
				if n >= 3 && r.v.Notice != supervisionNotice("t1", n, "running") {
					h.t.Fatalf("%d: notice %q", n, r.v.Notice)
				}
			}
		}},
		{name: "E42_state_change_resets", run: func(h *harness) {
			h.ok("1", h.status("task_status", "", running), sup, 1, false)
			h.ok("2", h.status("task_status", "", running), sup, 2, false)
			h.ok("3", h.status("task_status", "", "task_id: t1\nstate: completed"), sup, 1, false)
		}},
		{name: "E43_busy_is_running", run: func(h *harness) {
			h.ok("busy", h.status("task_status", "", "task_id: t1\nstate: busy"), sup, 1, false)
			h.ok("running", h.status("task_status", "", running), sup, 2, false)
			if st := h.state("s1").Supervision["t1"]; st.State != "running" {
				h.t.Fatalf("state %+v", st)
			}
		}},
		{name: "E44_unconfirmed_differs", run: func(h *harness) {
			h.ok("unconfirmed", h.status("task_status", "", "task_id: t1\nstate: running (unconfirmed)"), sup, 1, false)
			if st := h.state("s1").Supervision["t1"]; st.State != "running:uncertain" {
				h.t.Fatalf("state %+v", st)
			}
			h.ok("confirmed", h.status("task_status", "", running), sup, 1, false)
		}},
		{name: "E45_status_uncertain_line", run: func(h *harness) {
			h.ok("1", h.status("task_status", "", "task_id: t1\nstate: running\nstatus_uncertain: true\n"), sup, 1, false)
			if st := h.state("s1").Supervision["t1"]; st.State != "running:uncertain" {
				h.t.Fatalf("state %+v", st)
			}
		}},
		{name: "E46_status_and_result_one_stream", run: func(h *harness) {
			h.ok("status", h.status("task_status", "", running), sup, 1, false)
			h.ok("result", h.status("task_result", "", running), sup, 2, false)
			r := h.status("task_status", "", running)
			h.ok("status", r, sup, 3, true)
			if !strings.HasPrefix(r.v.Notice, "\n\n[REPEATED TOOL CALLS - STOP]\n\n") {
				h.t.Fatalf("notice %q", r.v.Notice)
			}
		}},
		{name: "E47_tasks_counted_separately", run: func(h *harness) {
			t2 := "task_id: t2\nstate: running"
			h.ok("t1", h.status("task_status", "", running), sup, 1, false)
			h.ok("t2", h.status("task_status", "", t2), sup, 1, false)
			h.ok("t1", h.status("task_status", "", running), sup, 2, false)
			h.ok("t2", h.status("task_status", "", t2), sup, 2, false)
			h.ok("t1", h.status("task_status", "", running), sup, 3, true)
		}},
		{name: "E48_task_id_from_arguments", run: func(h *harness) {
			h.ok("1", h.status("task_status", `{"task_id":" t9 "}`, "state: running"), sup, 1, false)
			if _, ok := h.state("s1").Supervision["t9"]; !ok {
				h.t.Fatalf("state %+v", h.state("s1"))
			}
		}},
		{name: "E49_task_id_from_output_parenthesis", run: func(h *harness) {
			h.ok("1", h.status("task_status", `{"task_id":"other"}`, "Task explorer (abc123) is still working\nstate: running"), sup, 1, false)
			if _, ok := h.state("s1").Supervision["abc123"]; !ok {
				h.t.Fatalf("state %+v", h.state("s1"))
			}
		}},
		{name: "E50_ordinary_call_clears", run: func(h *harness) {
			h.status("task_status", "", running)
			h.status("task_status", "", running)
			h.R()
			h.ok("after read", h.status("task_status", "", running), sup, 1, false)
		}},
		{name: "E51_exempt_wait_message_endturn_clear", run: func(h *harness) {
			for _, clear := range []func(){
				func() { h.do("s1", "task_message", `{"task_id":"t1"}`, "sent") },
				func() { h.wait("wait_for_background_tasks"); h.g.EndTurn("s1") },
				func() { h.g.UserMessage("s1", fmt.Sprint("m", h.id), false) },
				func() { h.g.EndTurn("s1") },
			} {
				h.status("task_status", "", running)
				h.status("task_status", "", running)
				clear()
				h.ok("after clear", h.status("task_status", "", running), sup, 1, false)
				h.g.EndTurn("s1")
			}
		}},
		{name: "E52_case_insensitive_state", run: func(h *harness) {
			h.ok("1", h.status("task_status", "", "TASK_ID: t1\nSTATE: Running"), sup, 1, false)
			if st := h.state("s1").Supervision["t1"]; st.State != "running" {
				h.t.Fatalf("state %+v", st)
			}
			h.ok("2", h.status("task_status", "", running), sup, 2, false)
		}},
		{name: "E53_max_tasks", run: func(h *harness) {
			for i := 1; i <= 65; i++ {
				h.status("task_status", "", fmt.Sprintf("task_id: t%d\nstate: running", i))
			}
			st := h.state("s1")
			if len(st.Supervision) != 64 {
				h.t.Fatalf("%d tasks", len(st.Supervision))
			}
			if _, ok := st.Supervision["t1"]; ok {
				h.t.Fatal("t1, the least recently updated, was kept")
			}
		}},
		{name: "E53_update_keeps_task", run: func(h *harness) {
			for i := 1; i <= 64; i++ {
				h.status("task_status", "", fmt.Sprintf("task_id: t%d\nstate: running", i))
			}
			h.ok("t1 updated", h.status("task_status", "", "task_id: t1\nstate: running"), sup, 2, false)
			h.status("task_status", "", "task_id: t65\nstate: running")
			st := h.state("s1")
			if _, ok := st.Supervision["t2"]; ok || len(st.Supervision) != 64 {
				h.t.Fatalf("t2 should be dropped: %d tasks", len(st.Supervision))
			}
			if _, ok := st.Supervision["t1"]; !ok {
				h.t.Fatal("t1 dropped although just updated")
			}
		}},
	})
}

// TestEdgeMisc covers the spec's edge cases 54–60 (bounds and the rest).
func TestEdgeMisc(t *testing.T) {
	runEdgeCases(t, []edgeCase{
		{name: "E54_max_pending", run: func(h *harness) {
			var first loopguard.Call
			for i := 0; i < 257; i++ {
				c := call("s1", h.nextID(), "read", aTS)
				if i == 0 {
					first = c
				}
				if err := h.g.Before(c); err != nil {
					h.t.Fatal(err)
				}
			}
			if p := h.state("s1").Pending; p != 256 {
				h.t.Fatalf("pending %d", p)
			}
			h.untouched("late After of the oldest", h.after(first, loopguard.TextOutput(aText)), aText)
			h.loop("2nd call", h.after(call("s1", "c2", "read", aTS), loopguard.TextOutput(aText)), 1, false)
		}},
		{name: "E54_limit_minus_one_and_exact", run: func(h *harness) {
			for i := 0; i < 256; i++ {
				if err := h.g.Before(call("s1", h.nextID(), "read", aTS)); err != nil {
					h.t.Fatal(err)
				}
				if p := h.state("s1").Pending; p != i+1 {
					h.t.Fatalf("pending %d after %d", p, i+1)
				}
			}
			h.loop("oldest still there", h.after(call("s1", "c1", "read", aTS), loopguard.TextOutput(aText)), 1, false)
		}},
		{name: "E55_preview", run: func(h *harness) {
			for range 5 {
				h.R()
			}
			before, _ := h.g.State("s1")
			c := call("s1", "p", "read", aTS)
			perr := h.g.Preview(c)
			berr := h.g.Before(c)
			var pe, be *loopguard.RefusedError
			if !errors.As(perr, &pe) || !errors.As(berr, &be) || *pe != *be {
				h.t.Fatalf("Preview %v, Before %v", perr, berr)
			}
			if err := h.g.Preview(call("s1", "q", "read", bTS)); err != nil {
				h.t.Fatalf("Preview of an allowed call: %v", err)
			}
			after, _ := h.g.State("s1")
			if after.Pending != before.Pending || after.Runs != before.Runs {
				h.t.Fatalf("Preview changed state: %+v → %+v", before, after)
			}
		}},
		{name: "E56_bad_options", run: func(h *harness) {
			for _, opts := range [][]loopguard.Option{
				{loopguard.WithWarnAt(0)},
				{loopguard.WithWarnAt(6), loopguard.WithBlockAt(5)},
				{loopguard.WithWaitLimits(0, 2)},
				{loopguard.WithWaitLimits(2, 0)},
				{loopguard.WithMaxSessions(0)},
				{loopguard.WithMaxPending(0)},
				{loopguard.WithMaxTasks(-1)},
				{loopguard.WithMaxMessageIDs(0)},
			} {
				if _, err := loopguard.New(opts...); !errors.Is(err, loopguard.ErrInvalidOption) {
					h.t.Errorf("New accepted bad options: %v", err)
				}
			}
			if _, err := loopguard.New(loopguard.WithWarnAt(1), loopguard.WithBlockAt(1)); err != nil {
				h.t.Errorf("WarnAt = BlockAt = 1 refused: %v", err)
			}
		}},
		{name: "E57_custom_block_tools", opts: []loopguard.Option{loopguard.WithBlockTools("read")}, run: func(h *harness) {
			for n := 1; n <= 8; n++ {
				h.loop(fmt.Sprint(n), h.do("s1", "grep", `{"pattern":"x"}`, "none"), n, n >= 3)
			}
		}},
		{name: "E58_invalid_json_args", run: func(h *harness) {
			h.loop("1", h.do("s1", "read", `{"a":`, "o"), 1, false)
			h.loop("2", h.do("s1", "read", `{"a":`, "o"), 2, false)
			h.loop("other raw", h.do("s1", "read", `{"a": `, "o"), 1, false)
		}},
		{name: "E59_number_forms", run: func(h *harness) {
			h.loop("1", h.do("s1", "read", `{"n":1}`, "o"), 1, false)
			h.loop("1.0", h.do("s1", "read", `{"n":1.0}`, "o"), 2, false)
			h.loop("1e0", h.do("s1", "read", `{"n":10e-1}`, "o"), 3, true)
			h.loop(`"1"`, h.do("s1", "read", `{"n":"1"}`, "o"), 1, false)
		}},
		{name: "E60_notice_never_changes_identity", run: func(h *harness) {
			var texts []string
			for n := 1; n <= 5; n++ {
				r := h.R()
				h.loop(fmt.Sprint(n), r, n, n >= 3)
				texts = append(texts, r.v.Output.Text)
			}
			if texts[2] == texts[3] || texts[3] == texts[4] {
				h.t.Fatal("returned texts should differ by their notice's count")
			}
		}},
	})
}

// TestUserMessageReplay: a host that re-delivers user messages it already sent (a replayed
// history, a retried request) must not reset the loop streak, or a refused looping read
// would be admitted again. The guard remembers the last maxIDs distinct message ids of a
// session; a replay of any of them does nothing, an id older than that counts as new.
func TestUserMessageReplay(t *testing.T) {
	const maxIDs = loopguard.DefaultMaxMessageIDs
	t.Run("replayed_history_keeps_refusal", func(t *testing.T) {
		g, _ := loopguard.New()
		h := &harness{t: t, g: g}
		for i := range 3 {
			g.UserMessage("s1", fmt.Sprint("m", i), true)
		}
		for range 5 {
			h.R()
		}
		h.refused("6th", h.R(), loopguard.KindLoop, "read", 5)
		for i := range 3 { // the host sends the whole history again
			g.UserMessage("s1", fmt.Sprint("m", i), true)
		}
		h.refused("after the replay", h.R(), loopguard.KindLoop, "read", 5)
		g.UserMessage("s1", "m3", true) // a new message does reset it
		h.loop("after m3", h.R(), 1, false)
	})
	t.Run("WithMaxMessageIDs_2", func(t *testing.T) {
		g, _ := loopguard.New(loopguard.WithMaxMessageIDs(2))
		h := &harness{t: t, g: g}
		g.UserMessage("s1", "m1", true)
		g.UserMessage("s1", "m2", true)
		for range 5 {
			h.R()
		}
		g.UserMessage("s1", "m1", true) // still among the last 2
		h.refused("after m1", h.R(), loopguard.KindLoop, "read", 5)
		g.UserMessage("s1", "m3", true) // new: resets, and m1 is forgotten
		for range 5 {
			h.R()
		}
		g.UserMessage("s1", "m2", true) // remembered
		h.refused("after m2", h.R(), loopguard.KindLoop, "read", 5)
		g.UserMessage("s1", "m1", true) // forgotten: a new message
		h.loop("after m1 again", h.R(), 1, false)
	})
	for _, tc := range []struct {
		name   string
		others int  // distinct ids sent after m0, before m0 is sent again
		reset  bool // whether the replayed m0 resets the streak
	}{
		{name: "N-1_ids_remembered", others: maxIDs - 2, reset: false},
		{name: "N_ids_remembered", others: maxIDs - 1, reset: false},
		{name: "N+1_oldest_forgotten", others: maxIDs, reset: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := loopguard.New()
			h := &harness{t: t, g: g}
			g.UserMessage("s1", "m0", true)
			for i := range tc.others {
				g.UserMessage("s1", fmt.Sprint("x", i), true)
			}
			for range 5 {
				h.R()
			}
			g.UserMessage("s1", "m0", true)
			if r := h.R(); tc.reset {
				h.loop("after m0", r, 1, false)
			} else {
				h.refused("after m0", r, loopguard.KindLoop, "read", 5)
			}
		})
	}
}
