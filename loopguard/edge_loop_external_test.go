package loopguard_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/harnesskit/harnesskit/loopguard"
)

// TestEdgeLoop covers the spec's edge cases 1–31 (the loop streak).
func TestEdgeLoop(t *testing.T) {
	runEdgeCases(t, []edgeCase{
		{name: "E1_two_identical_untouched", run: func(h *harness) {
			h.loop("1st", h.R(), 1, false)
			r := h.R()
			h.loop("2nd", r, 2, false)
			if r.v.Output.Text != aText {
				h.t.Fatalf("2nd output changed: %q", r.v.Output.Text)
			}
		}},
		{name: "E2_third_gets_notice", run: func(h *harness) {
			h.R()
			h.R()
			r := h.R()
			h.loop("3rd", r, 3, true)
			if r.v.Notice != loopNotice("read", 3) || r.v.Output.Text != aText+loopNotice("read", 3) {
				h.t.Fatalf("3rd output %q", r.v.Output.Text)
			}
		}},
		{name: "E3_fourth_fifth_notice_once_each", run: func(h *harness) {
			for range 3 {
				h.R()
			}
			for n := 4; n <= 5; n++ {
				r := h.R()
				h.loop(fmt.Sprint(n), r, n, true)
				if r.v.Output.Text != aText+loopNotice("read", n) || strings.Count(r.v.Output.Text, "[REPEATED TOOL CALLS - STOP]") != 1 {
					h.t.Fatalf("result %d: %q", n, r.v.Output.Text)
				}
			}
		}},
		{name: "E4_sixth_and_seventh_refused", run: func(h *harness) {
			for range 5 {
				h.R()
			}
			h.refused("6th", h.R(), loopguard.KindLoop, "read", 5)
			r := h.R()
			h.refused("7th", r, loopguard.KindLoop, "read", 5)
			want := `Refusing to execute "read": this exact call (same tool, same arguments) has returned identical results 5 times in a row and constitutes an infinite loop. Stop repeating it. Reassess your goal, make a different call, or produce your final answer.`
			if r.err.Error() != want {
				h.t.Fatalf("message %q", r.err.Error())
			}
		}},
		{name: "E5_other_file_resets", run: func(h *harness) {
			for range 4 {
				h.R()
			}
			h.loop("b.ts", h.do("s1", "read", bTS, "b"), 1, false)
			h.loop("R again", h.R(), 1, false)
		}},
		{name: "E6_non_block_tools_warn_only", run: func(h *harness) {
			for _, tool := range []string{"bash", "edit", "write", "webfetch", "ast_grep_search"} {
				for n := 1; n <= 7; n++ {
					h.loop(fmt.Sprintf("%s %d", tool, n), h.do("s1", tool, bashUn, "Linux\n"), n, n >= 3)
				}
			}
		}},
		{name: "E7_all_results_differ", run: func(h *harness) {
			for n := 1; n <= 6; n++ {
				h.loop(fmt.Sprint(n), h.do("s1", "read", aTS, fmt.Sprintf("version %d", n)), 1, false)
			}
			h.loop("7th", h.R(), 1, false)
		}},
		{name: "E8_new_result_restarts", run: func(h *harness) {
			outs := []string{"x", "x", "y", "y", "y"}
			runs := []int{1, 2, 1, 2, 3}
			for i, o := range outs {
				h.loop(fmt.Sprint(i+1), h.do("s1", "read", aTS, o), runs[i], i == 4)
			}
		}},
		{name: "E9_other_args_between", run: func(h *harness) {
			h.R()
			h.R()
			h.do("s1", "read", bTS, "b")
			h.loop("last R", h.R(), 1, false)
		}},
		{name: "E10_other_tool_between", run: func(h *harness) {
			h.R()
			h.R()
			h.loop("grep", h.do("s1", "grep", `{"pattern":"a"}`, "a.ts:1"), 1, false)
			h.loop("last R", h.R(), 1, false)
		}},
		{name: "E11_supervision_transparent", run: func(h *harness) {
			h.R()
			h.R()
			h.ok("task_status", h.do("s1", "task_status", `{"task_id":"t1"}`, "task_id: t1\nstate: running"), loopguard.StreamSupervision, 1, false)
			h.loop("last R", h.R(), 3, true)
		}},
		{name: "E12_key_order_ignored", run: func(h *harness) {
			h.loop("1", h.do("s1", "read", `{"a":1,"b":2}`, "o"), 1, false)
			h.loop("2", h.do("s1", "read", `{"b":2,"a":1}`, "o"), 2, false)
			h.loop("3", h.do("s1", "read", ` { "b" : 2 , "a" : 1 } `, "o"), 3, true)
			h.loop("nested 1", h.do("s1", "read", `{"x":{"p":[1,{"q":1,"r":2}],"o":null},"y":true}`, "o"), 1, false)
			h.loop("nested 2", h.do("s1", "read", `{"y":true,"x":{"o":null,"p":[1,{"r":2,"q":1}]}}`, "o"), 2, false)
		}},
		{name: "E13_tool_name_case", run: func(h *harness) {
			h.loop("Read", h.do("s1", "Read", aTS, aText), 1, false)
			h.loop("read", h.do("s1", "read", aTS, aText), 2, false)
			h.loop("READ", h.do("s1", "READ", aTS, aText), 3, true)
			h.loop("rEaD", h.do("s1", "rEaD", aTS, aText), 4, true)
			h.loop("ReAd", h.do("s1", "ReAd", aTS, aText), 5, true)
			h.refused("READ", h.do("s1", "READ", aTS, aText), loopguard.KindLoop, "read", 5)
			if !strings.Contains(h.do("s1", "Read", aTS, aText).err.Error(), `"read"`) {
				h.t.Fatal("refusal does not name the lower-cased tool")
			}
			h.untouched("TASK exempt", h.do("s1", "TASK", `{}`, "x"), "x")
		}},
		{name: "E14_absent_null_empty_and_paths_differ", run: func(h *harness) {
			h.loop("absent", h.do("s1", "read", "", "o"), 1, false)
			h.loop("null", h.do("s1", "read", "null", "o"), 1, false)
			h.loop("{}", h.do("s1", "read", "{}", "o"), 1, false)
			h.loop("a.ts", h.do("s1", "read", `{"filePath":"a.ts"}`, "o"), 1, false)
			h.loop("./a.ts", h.do("s1", "read", `{"filePath":"./a.ts"}`, "o"), 1, false)
			h.loop("a.ts space", h.do("s1", "read", `{"filePath":"a.ts "}`, "o"), 1, false)
			h.loop("a.ts space again", h.do("s1", "read", `{"filePath":"a.ts "}`, "o"), 2, false)
		}},
		{name: "E15_six_parallel_identical", run: func(h *harness) {
			var calls []loopguard.Call
			for range 6 {
				c := call("s1", h.nextID(), "read", aTS)
				if err := h.g.Before(c); err != nil {
					h.t.Fatalf("parallel Before refused: %v", err)
				}
				calls = append(calls, c)
			}
			for i, c := range calls {
				h.loop(fmt.Sprint(i+1), h.after(c, loopguard.TextOutput(aText)), i+1, i+1 >= 3)
			}
			h.refused("next", h.R(), loopguard.KindLoop, "read", 6)
		}},
		{name: "E16_six_parallel_all_different", run: func(h *harness) {
			var calls []loopguard.Call
			for range 6 {
				c := call("s1", h.nextID(), "read", aTS)
				if err := h.g.Before(c); err != nil {
					h.t.Fatal(err)
				}
				calls = append(calls, c)
			}
			for i, c := range calls {
				h.loop(fmt.Sprint(i+1), h.after(c, loopguard.TextOutput(fmt.Sprint("v", i))), 1, false)
			}
			h.loop("7th", h.R(), 1, false)
		}},
		{name: "E17_admitted_call_completes", run: func(h *harness) {
			for range 4 {
				h.R()
			}
			fifth := call("s1", h.nextID(), "read", aTS)
			sixth := call("s1", h.nextID(), "read", aTS)
			if err := h.g.Before(fifth); err != nil {
				h.t.Fatal(err)
			}
			if err := h.g.Before(sixth); err != nil {
				h.t.Fatal(err)
			}
			h.loop("5th", h.after(fifth, loopguard.TextOutput(aText)), 5, true)
			h.loop("6th", h.after(sixth, loopguard.TextOutput(aText)), 6, true)
			h.refused("next", h.R(), loopguard.KindLoop, "read", 6)
		}},
		{name: "E18_sessions_isolated", run: func(h *harness) {
			h.R()
			h.R()
			h.loop("s2 1", h.do("s2", "read", aTS, aText), 1, false)
			h.loop("s2 2", h.do("s2", "read", aTS, aText), 2, false)
			h.loop("s1 3", h.R(), 3, true)
		}},
		// E19 and E20 as amended (E64): a call without a session or call id is refused
		// with ErrInvalidCall at Before and at After, and nothing is recorded.
		{name: "E19_empty_session", run: func(h *harness) {
			for n := range 8 {
				h.invalid(fmt.Sprint(n), h.do("", "read", aTS, aText))
				h.invalid(fmt.Sprint(n, " after"), h.after(call("", "c1", "read", aTS), loopguard.TextOutput(aText)))
			}
			if h.g.Len() != 0 {
				h.t.Fatalf("Len = %d, want 0", h.g.Len())
			}
		}},
		{name: "E20_empty_call_id", run: func(h *harness) {
			h.R()
			h.R()
			c := call("s1", "", "read", aTS)
			h.invalid("Before", res{err: h.g.Before(c)})
			h.invalid("After", h.after(c, loopguard.TextOutput("other")))
			if h.state("s1").Pending != 0 {
				h.t.Fatal("a call without id was registered")
			}
			h.loop("R", h.R(), 3, true)
		}},
		{name: "E21_unknown_call_id", run: func(h *harness) {
			h.R()
			h.untouched("never registered", h.after(call("s1", "nope", "read", aTS), loopguard.TextOutput(aText)), aText)
			h.loop("R", h.R(), 2, false)
			late := call("s1", h.nextID(), "read", aTS)
			if err := h.g.Before(late); err != nil {
				h.t.Fatal(err)
			}
			h.g.EndSession("s1")
			h.untouched("after EndSession", h.after(late, loopguard.TextOutput(aText)), aText)
			if _, ok := h.g.State("s1"); ok {
				h.t.Fatal("a late After recreated the session")
			}
		}},
		{name: "E22_end_session_mid_streak", run: func(h *harness) {
			h.R()
			h.R()
			h.g.EndSession("s1")
			h.loop("R", h.R(), 1, false)
		}},
		{name: "E23_structured_output_counted_not_annotated", run: func(h *harness) {
			for n := 1; n <= 5; n++ {
				r := h.doOut("s1", "glob", `{"pattern":"*.ts"}`, loopguard.ValueOutput([]byte(`{"files": ["a.ts", "b.ts"]}`)))
				h.loop(fmt.Sprint(n), r, n, false)
				if string(r.v.Output.Value) != `{"files": ["a.ts", "b.ts"]}` {
					h.t.Fatalf("structured output changed: %s", r.v.Output.Value)
				}
			}
			h.refused("6th", h.doOut("s1", "glob", `{"pattern":"*.ts"}`, loopguard.ValueOutput([]byte(`{"files":["a.ts","b.ts"]}`))), loopguard.KindLoop, "glob", 5)
		}},
		{name: "E24_marker_already_present", run: func(h *harness) {
			out := "text\n[REPEATED TOOL CALLS - STOP]\n"
			h.do("s1", "read", aTS, out)
			h.do("s1", "read", aTS, out)
			r := h.do("s1", "read", aTS, out)
			h.loop("3rd", r, 3, false)
			if r.v.Output.Text != out {
				h.t.Fatalf("output changed: %q", r.v.Output.Text)
			}
		}},
		{name: "E25_refused_keeps_streak", run: func(h *harness) {
			for range 5 {
				h.R()
			}
			for range 3 {
				h.refused("again", h.R(), loopguard.KindLoop, "read", 5)
			}
			if st := h.state("s1"); st.Runs != 5 || st.Pending != 0 {
				h.t.Fatalf("state %+v", st)
			}
			h.loop("different", h.do("s1", "read", bTS, "b"), 1, false)
			h.loop("R", h.R(), 1, false)
		}},
		{name: "E26_abandon_and_error_text", run: func(h *harness) {
			h.R()
			c := call("s1", h.nextID(), "read", aTS)
			if err := h.g.Before(c); err != nil {
				h.t.Fatal(err)
			}
			h.g.Abandon("s1", c.CallID)
			if st := h.state("s1"); st.Pending != 0 || st.Runs != 1 {
				h.t.Fatalf("after Abandon: %+v", st)
			}
			h.untouched("late After of abandoned", h.after(c, loopguard.TextOutput(aText)), aText)
			h.loop("R", h.R(), 2, false)
			errText := "Error: ENOENT: no such file or directory"
			h.loop("err 1", h.do("s1", "read", `{"filePath":"gone.ts"}`, errText), 1, false)
			h.loop("err 2", h.do("s1", "read", `{"filePath":"gone.ts"}`, errText), 2, false)
			h.loop("err 3", h.do("s1", "read", `{"filePath":"gone.ts"}`, errText), 3, true)
		}},
		{name: "E27_exempt_tools_and_unparsable_status", run: func(h *harness) {
			h.R()
			for _, tool := range []string{"task", "task_cancel", "task_message", "task_revive"} {
				for n := range 8 {
					h.untouched(fmt.Sprint(tool, n), h.do("s1", tool, `{"x":1}`, "same"), "same")
				}
			}
			for n := range 8 {
				h.untouched(fmt.Sprint("task_status", n), h.do("s1", "task_status", `{"x":1}`, "no state here"), "no state here")
			}
			if st := h.state("s1"); st.Runs != 1 || st.LastTool != "read" {
				h.t.Fatalf("streak touched: %+v", st)
			}
			h.loop("R", h.R(), 2, false)
		}},
		{name: "E28_external_message_resets", run: func(h *harness) {
			h.R()
			h.R()
			h.g.UserMessage("s1", "m1", true)
			h.loop("R", h.R(), 1, false)
		}},
		{name: "E28_keep_streak_option", opts: []loopguard.Option{loopguard.WithStreakResetOnUserMessage(false)}, run: func(h *harness) {
			h.R()
			h.R()
			h.g.UserMessage("s1", "m1", true)
			h.loop("R", h.R(), 3, true)
		}},
		{name: "E29_internal_message_keeps_block", run: func(h *harness) {
			for range 5 {
				h.R()
			}
			h.g.UserMessage("s1", "m1", false)
			h.refused("after internal", h.R(), loopguard.KindLoop, "read", 5)
			h.g.UserMessage("s1", "m2", true)
			h.loop("after external", h.R(), 1, false)
		}},
		{name: "E30_lru_eviction", run: func(h *harness) {
			h.R() // s1 at 1
			for i := 2; i <= 512; i++ {
				h.do(fmt.Sprint("s", i), "read", aTS, aText)
			}
			h.do("s513", "read", aTS, aText)
			if h.g.Len() != 512 {
				h.t.Fatalf("Len = %d", h.g.Len())
			}
			if _, ok := h.g.State("s1"); ok {
				h.t.Fatal("s1 not evicted")
			}
			h.loop("s1 restarted", h.R(), 1, false) // evicts s2
			if _, ok := h.g.State("s2"); ok {
				h.t.Fatal("s2 not evicted")
			}
		}},
		{name: "E30_exactly_512_sessions_kept", run: func(h *harness) {
			for i := 1; i <= 512; i++ {
				h.do(fmt.Sprint("s", i), "read", aTS, aText)
				if h.g.Len() != i {
					h.t.Fatalf("Len = %d after %d sessions", h.g.Len(), i)
				}
			}
			h.loop("s1 still counted", h.R(), 2, false)
		}},
		{name: "E30_touched_session_kept", run: func(h *harness) {
			h.R()
			for i := 2; i <= 512; i++ {
				h.do(fmt.Sprint("s", i), "read", aTS, aText)
			}
			h.loop("touch s1", h.R(), 2, false)
			h.do("s513", "read", aTS, aText)
			if _, ok := h.g.State("s2"); ok {
				h.t.Fatal("s2 kept although least recently used")
			}
			h.loop("s1 kept", h.R(), 3, true)
		}},
		{name: "E31_large_output_not_kept", run: func(h *harness) {
			big := strings.Repeat("0123456789abcdef", (10<<20)/16)
			wp := weak.Make(unsafe.StringData(big))
			for n := 1; n <= 3; n++ {
				h.loop(fmt.Sprint(n), h.do("s1", "read", aTS, big), n, n == 3)
			}
			st := h.state("s1")
			big = ""
			runtime.GC()
			runtime.GC()
			if wp.Value() != nil {
				h.t.Fatal("the 10 MiB output is still reachable after the calls")
			}
			if st.Runs != 3 || st.LastTool != "read" {
				h.t.Fatalf("state %+v", st)
			}
			h.refused("blocked after 5", func() res {
				h.R()
				h.R()
				h.R()
				h.R()
				h.R()
				return h.R()
			}(), loopguard.KindLoop, "read", 5)
		}},
	})
}
