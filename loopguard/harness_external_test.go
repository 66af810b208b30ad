package loopguard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/loopguard"
)

// harness drives a guard with fresh call ids.
type harness struct {
	t  *testing.T
	g  *loopguard.Guard
	id int
}

// res is one call's outcome: an error from Before (a refusal) or After, or the After
// verdict.
type res struct {
	err error
	v   loopguard.Verdict
}

const (
	aTS    = `{"filePath":"a.ts"}`
	bTS    = `{"filePath":"b.ts"}`
	aText  = "1: export const a = 1;\n"
	bashUn = `{"command":"uname"}`
)

func (h *harness) nextID() string {
	h.id++
	return fmt.Sprintf("c%d", h.id)
}

func call(session, id, tool, args string) loopguard.Call {
	c := loopguard.Call{Session: session, CallID: id, Tool: tool}
	if args != "" {
		c.Args = json.RawMessage(args)
	}
	return c
}

// do runs Before then, if admitted, After with a text output.
func (h *harness) do(session, tool, args, out string) res {
	return h.doOut(session, tool, args, loopguard.TextOutput(out))
}

func (h *harness) doOut(session, tool, args string, out loopguard.Output) res {
	c := call(session, h.nextID(), tool, args)
	if err := h.g.Before(c); err != nil {
		return res{err: err}
	}
	return h.after(c, out)
}

// after runs After alone.
func (h *harness) after(c loopguard.Call, out loopguard.Output) res {
	v, err := h.g.After(c, out)
	return res{v: v, err: err}
}

// mustAfter is After for a call the test knows to be valid.
func mustAfter(t interface{ Fatalf(string, ...any) }, g *loopguard.Guard, c loopguard.Call, out loopguard.Output) loopguard.Verdict {
	v, err := g.After(c, out)
	if err != nil {
		t.Fatalf("After(%+v): %v", c, err)
	}
	return v
}

// R is the spec's R: read a.ts in s1 returning the same text.
func (h *harness) R() res { return h.do("s1", "read", aTS, aText) }

func loopNotice(tool string, n int) string {
	return "\n\n[REPEATED TOOL CALLS - STOP]\n\nYou have made this exact tool call (" + tool + " with identical arguments) " +
		fmt.Sprint(n) + " times in a row and received identical results each time. You are in a loop and making no progress.\n\n" +
		"Stop repeating this call. Instead:\n" +
		"1. Use the result above: it already contains everything this call can tell you.\n" +
		"2. If you need different information, make a different call (another path, pattern or tool).\n" +
		"3. If the task is done, give your final answer now instead of calling more tools.\n"
}

func waitNotice(n int) string {
	return "\n\n[REPEATED WAIT TOOL - END TURN]\n\nYou have already called a wait tool " + fmt.Sprint(n) +
		" times in this turn. Its result told you to end the turn; do not call it again.\n\n" +
		"Stop calling tools. Reply to the user in plain text and end your turn. The next distinct external user message resumes normal work.\n"
}

func supervisionNotice(id string, n int, state string) string {
	return "\n\n[REPEATED TOOL CALLS - STOP]\n\nYou have checked task " + id + " " + fmt.Sprint(n) + " times in a row and its state is still " + state +
		". Checking again will not make it change sooner.\n\nStop polling this task now: do other useful work, or end your turn and let its result reach you.\n"
}

// ok checks an admitted call: its stream, run count and whether it got a notice.
func (h *harness) ok(label string, r res, stream loopguard.Stream, runs int, notice bool) {
	h.t.Helper()
	if r.err != nil {
		h.t.Fatalf("%s: refused: %v", label, r.err)
	}
	if r.v.Stream != stream || r.v.Runs != runs || (r.v.Notice != "") != notice {
		h.t.Fatalf("%s: stream %v runs %d notice %q; want %v %d notice=%t", label, r.v.Stream, r.v.Runs, r.v.Notice, stream, runs, notice)
	}
	if notice && !strings.HasSuffix(r.v.Output.Text, r.v.Notice) {
		h.t.Fatalf("%s: output %q does not end with the notice", label, r.v.Output.Text)
	}
}

// loop checks an admitted ordinary call.
func (h *harness) loop(label string, r res, runs int, notice bool) {
	h.t.Helper()
	h.ok(label, r, loopguard.StreamLoop, runs, notice)
}

// untouched checks an admitted call that counted nothing and kept its output.
func (h *harness) untouched(label string, r res, out string) {
	h.t.Helper()
	if r.err != nil {
		h.t.Fatalf("%s: refused: %v", label, r.err)
	}
	if r.v.Stream != loopguard.StreamNone || r.v.Runs != 0 || r.v.Notice != "" || r.v.Output.Text != out {
		h.t.Fatalf("%s: verdict %+v; want untouched output %q", label, r.v, out)
	}
}

// invalid checks a call rejected with ErrInvalidCall; an After verdict must carry the
// output unchanged.
func (h *harness) invalid(label string, r res) {
	h.t.Helper()
	if !errors.Is(r.err, loopguard.ErrInvalidCall) || errors.Is(r.err, loopguard.ErrRefused) {
		h.t.Fatalf("%s: err %v, want ErrInvalidCall", label, r.err)
	}
	if r.v.Stream != loopguard.StreamNone || r.v.Runs != 0 || r.v.Notice != "" {
		h.t.Fatalf("%s: verdict %+v; want nothing counted", label, r.v)
	}
}

// refused checks a refusal.
func (h *harness) refused(label string, r res, kind loopguard.Kind, tool string, runs int) {
	h.t.Helper()
	var re *loopguard.RefusedError
	if !errors.As(r.err, &re) || !errors.Is(r.err, loopguard.ErrRefused) {
		h.t.Fatalf("%s: err %v, want a refusal", label, r.err)
	}
	if re.Kind != kind || re.Tool != tool || re.Runs != runs {
		h.t.Fatalf("%s: refusal %+v; want kind %v tool %q runs %d", label, *re, kind, tool, runs)
	}
}

func (h *harness) state(session string) loopguard.SessionState {
	h.t.Helper()
	st, ok := h.g.State(session)
	if !ok {
		h.t.Fatalf("no state for session %q", session)
	}
	return st
}

// edgeCase is one row of the edge-case tables.
type edgeCase struct {
	name string
	opts []loopguard.Option
	run  func(h *harness)
}

func runEdgeCases(t *testing.T, tests []edgeCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := loopguard.New(tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			tc.run(&harness{t: t, g: g})
		})
	}
}
