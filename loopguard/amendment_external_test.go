package loopguard_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/loopguard"
)

// maxParsed mirrors the documented bound: only the first 64 KiB of an output are read.
const maxParsed = 64 << 10

// polls runs three task_status calls with the same output in a fresh guard and returns
// their verdicts.
func polls(t *testing.T, out string) []loopguard.Verdict {
	t.Helper()
	g, err := loopguard.New()
	if err != nil {
		t.Fatal(err)
	}
	var vs []loopguard.Verdict
	for i := range 3 {
		c := loopguard.Call{Session: "s1", CallID: fmt.Sprint("c", i), Tool: "task_status", Args: json.RawMessage(`{"task_id":"t0"}`)}
		if err := g.Before(c); err != nil {
			t.Fatal(err)
		}
		v := mustAfter(t, g, c, loopguard.TextOutput(out))
		v.Output = loopguard.Output{} // compared separately: the full output is longer
		vs = append(vs, v)
	}
	return vs
}

// TestAmendment covers the edge cases added with bounded parsing and retention and with
// the refusal of calls that cannot be counted.
func TestAmendment(t *testing.T) {
	parens := strings.Repeat("state:(", 100_000) // 700 KB
	e61 := []struct {
		name, out  string
		stream     loopguard.Stream
		runs       int
		uncertain  bool
		wantNotice bool
	}{
		{name: "E61_parens_only", out: parens, stream: loopguard.StreamNone},
		{name: "E61_parens_after_a_state", out: "task_id: t1\nstate: running\n" + parens, stream: loopguard.StreamSupervision, runs: 3, wantNotice: true},
		{name: "E61_parens_on_the_state_line", out: "task_id: t1\nstate: running " + parens, stream: loopguard.StreamSupervision, runs: 3, wantNotice: true},
		{name: "E61_unconfirmed_beyond_64KiB_ignored", out: "task_id: t1\nstate: running " + parens + "(unconfirmed)", stream: loopguard.StreamSupervision, runs: 3, wantNotice: true},
		{name: "E61_unconfirmed_within_64KiB", out: "task_id: t1\nstate: running " + parens[:7000] + "(unconfirmed)" + parens, stream: loopguard.StreamSupervision, runs: 3, uncertain: true, wantNotice: true},
		{name: "E61_state_beyond_64KiB_ignored", out: "task_id: t1\n" + parens + "\nstate: running", stream: loopguard.StreamNone},
	}
	for _, tc := range e61 {
		t.Run(tc.name, func(t *testing.T) {
			full, head := polls(t, tc.out), polls(t, tc.out[:maxParsed])
			for i := range full {
				if full[i].Stream != head[i].Stream || full[i].Runs != head[i].Runs || full[i].Notice != head[i].Notice {
					t.Fatalf("poll %d: %+v on the whole output, %+v on its first 64 KiB", i+1, full[i], head[i])
				}
			}
			last := full[len(full)-1]
			if last.Stream != tc.stream || last.Runs != tc.runs || (last.Notice != "") != tc.wantNotice {
				t.Fatalf("third poll %+v; want stream %v runs %d notice %t", last, tc.stream, tc.runs, tc.wantNotice)
			}
			if tc.wantNotice && strings.Contains(last.Notice, "running:uncertain") != tc.uncertain {
				t.Fatalf("notice %q: uncertain should be %t", last.Notice, tc.uncertain)
			}
		})
	}

	t.Run("E62_eight_16MiB_task_outputs_retain_under_64KiB", func(t *testing.T) {
		base := retained()
		g, err := loopguard.New()
		if err != nil {
			t.Fatal(err)
		}
		feedLarge(t, g, false)
		kept := int64(retained()) - int64(base)
		st, _ := g.State("s1")
		if len(st.Supervision) != 8 {
			t.Fatalf("%d tasks supervised, want 8: %v", len(st.Supervision), st.Supervision)
		}
		if kept >= 64<<10 {
			t.Fatalf("the guard keeps %d bytes after eight 16 MiB outputs, want under 64 KiB", kept)
		}
		t.Logf("retained %d bytes", kept)
	})

	t.Run("E63_32MiB_task_id_in_arguments_kept_truncated", func(t *testing.T) {
		// 4 MiB under -race (see feedLarge).
		base := retained()
		g, err := loopguard.New()
		if err != nil {
			t.Fatal(err)
		}
		feedLarge(t, g, true)
		kept := int64(retained()) - int64(base)
		st, _ := g.State("s1")
		long := 0
		for id := range st.Supervision {
			if len(id) > 256 {
				t.Fatalf("a task id of %d bytes is kept", len(id))
			}
			if strings.HasPrefix(id, "xxx") {
				long++
				if len(id) != 256 {
					t.Fatalf("the long task id is kept as %d bytes, want its first 256", len(id))
				}
			}
		}
		if long != 1 || len(st.Supervision) != 1 {
			t.Fatalf("the long task id is not supervised alone: %v", st.Supervision)
		}
		if kept >= 64<<10 {
			t.Fatalf("the guard keeps %d bytes after a 32 MiB task id, want under 64 KiB", kept)
		}
		t.Logf("retained %d bytes", kept)
	})

	runEdgeCases(t, []edgeCase{
		{name: "E64_empty_session_or_call_id", run: func(h *harness) {
			for _, c := range []loopguard.Call{
				call("", "c1", "read", aTS),
				call("s1", "", "read", aTS),
				call("", "", "read", aTS),
				call("s1", "", "wait_for_user", ""),
				call("s1", "", "task_status", `{"task_id":"t1"}`),
				call("", "c1", "task", ""),
			} {
				label := fmt.Sprintf("%q/%q/%s", c.Session, c.CallID, c.Tool)
				h.invalid(label+" Before", res{err: h.g.Before(c)})
				h.invalid(label+" Preview", res{err: h.g.Preview(c)})
				r := h.after(c, loopguard.TextOutput(aText))
				h.invalid(label+" After", r)
				if r.v.Output.Text != aText {
					h.t.Fatalf("%s: After changed the output: %q", label, r.v.Output.Text)
				}
				if _, err := h.g.AfterText(c, aText); err == nil {
					h.t.Fatalf("%s: AfterText accepted the call", label)
				}
			}
			if h.g.Len() != 0 {
				h.t.Fatalf("invalid calls created %d session records", h.g.Len())
			}
			// A valid call after them starts from nothing.
			h.loop("R", h.R(), 1, false)
		}},
	})
}
