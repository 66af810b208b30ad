package loopguard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/loopguard"
	"pgregory.net/rapid"
)

// The model below is deliberately naive: it keeps the whole history of completed calls
// and recounts each streak from the end, instead of keeping counters. Tools, argument
// shapes and outputs are compared by their index, never by the guard's canonical JSON, so
// key-order invariance is checked too.

var (
	modelSessions = []string{"", "s1", "s2", "s3"}
	// modelTools: name (with case variants), class.
	modelTools = []string{"read", "READ", "bash", "grep", "task", "task_message", "wait_for_user", "wait_for_background_tasks", "task_status", "task_result"}
	// modelShapes: argument shapes, each with key permutations (equal as JSON objects).
	modelShapes = [][]string{
		{`{"filePath":"a.ts","limit":10}`, `{"limit":10,"filePath":"a.ts"}`, ` {"limit" : 10.0, "filePath":"a.ts"}`},
		{`{"o":{"x":1,"y":[1,{"p":true,"q":null}]},"task_id":"t1"}`, `{"task_id":"t1","o":{"y":[1,{"q":null,"p":true}],"x":1}}`},
		{""},
	}
	// modelOutputs: text or structured outputs; for supervision tools, what they parse to.
	modelOutputs = []struct {
		text        string
		value       string // structured when non-empty
		task, state string // parse result for supervision tools
	}{
		{text: "task_id: t1\nstate: running", task: "t1", state: "running"},
		{text: "Task explorer (t1) is working\nSTATE: busy", task: "t1", state: "running"},
		{text: "task_id: t1\nstate: completed", task: "t1", state: "completed"},
		{text: "task_id: t2\nstate: running", task: "t2", state: "running"},
		{text: "plain output without a state"},
		{text: "output that already says [REPEATED TOOL CALLS - STOP] and [REPEATED WAIT TOOL - END TURN]"},
		{value: `{"files":["a.ts"]}`},
		{value: `{"files":["b.ts"]}`},
	}
)

type mClass int

const (
	mOrdinary mClass = iota
	mWait
	mExempt
	mSupervision
)

func modelClass(tool string) mClass {
	switch strings.ToLower(tool) {
	case "wait_for_user", "wait_for_background_tasks":
		return mWait
	case "task", "task_message":
		return mExempt
	case "task_status", "task_result":
		return mSupervision
	}
	return mOrdinary
}

func modelBlock(tool string) bool {
	t := strings.ToLower(tool)
	return t == "read" || t == "grep" || t == "glob"
}

type mCall struct {
	session, id, tool string // tool lower-cased
	shape, perm       int
	class             mClass
}

func (c mCall) invalid() bool { return c.session == "" || c.id == "" }

type mEntry struct {
	key string // tool/shape
	out int
}

type mSession struct {
	history []mEntry            // completed ordinary calls since the last streak reset
	wait    int                 // completed wait calls this turn
	tasks   map[string][]string // task → states seen since the last clear
	pending map[string]mCall
	lastMsg string
	seen    map[string]bool // every distinct message id (the sequences stay under the guard's window)
}

type model struct {
	resetOnUser bool
	sessions    map[string]*mSession
}

func trailing[T comparable](xs []T) int {
	if len(xs) == 0 {
		return 0
	}
	n := 0
	for i := len(xs) - 1; i >= 0 && xs[i] == xs[len(xs)-1]; i-- {
		n++
	}
	return n
}

func (m *model) runs(s string) int {
	if ms := m.sessions[s]; ms != nil {
		return trailing(ms.history)
	}
	return 0
}

// before returns the refusal the spec demands (kind, runs) or kind 0, and records. A call
// without a session or call id is invalid and changes nothing.
func (m *model) before(c mCall, commit bool) (loopguard.Kind, int) {
	if c.invalid() {
		return 0, 0
	}
	ms := m.sessions[c.session]
	if ms != nil && c.class != mSupervision && commit {
		ms.tasks = nil
	}
	switch c.class {
	case mExempt:
		return 0, 0
	case mWait:
		if ms != nil && ms.wait >= 2 {
			return loopguard.KindWait, ms.wait
		}
	case mOrdinary:
		if ms != nil && modelBlock(c.tool) && len(ms.history) > 0 {
			last := ms.history[len(ms.history)-1]
			if n := trailing(ms.history); last.key == fmt.Sprint(c.tool, "/", c.shape) && n >= 5 {
				return loopguard.KindLoop, n
			}
		}
	}
	if commit {
		if ms == nil {
			ms = &mSession{}
			m.sessions[c.session] = ms
		}
		if ms.pending == nil {
			ms.pending = map[string]mCall{}
		}
		ms.pending[c.id] = c
	}
	return 0, 0
}

// after returns the stream, runs and whether a notice is due.
func (m *model) after(c mCall, out int) (loopguard.Stream, int, bool) {
	if c.session == "" || c.id == "" || c.class == mExempt {
		return loopguard.StreamNone, 0, false
	}
	ms := m.sessions[c.session]
	if ms == nil {
		return loopguard.StreamNone, 0, false
	}
	p, ok := ms.pending[c.id]
	if !ok {
		return loopguard.StreamNone, 0, false
	}
	delete(ms.pending, c.id)
	o := modelOutputs[out]
	text := o.value == ""
	switch p.class {
	case mWait:
		ms.wait++
		return loopguard.StreamWait, ms.wait, ms.wait >= 2 && text && !strings.Contains(o.text, "[REPEATED WAIT TOOL - END TURN]")
	case mSupervision:
		task := o.task
		if task == "" && p.shape == 1 {
			task = "t1" // the arguments' task_id
		}
		if task == "" || o.state == "" {
			return loopguard.StreamNone, 0, false
		}
		if ms.tasks == nil {
			ms.tasks = map[string][]string{}
		}
		ms.tasks[task] = append(ms.tasks[task], o.state)
		n := trailing(ms.tasks[task])
		return loopguard.StreamSupervision, n, n >= 3 && text && !strings.Contains(o.text, "[REPEATED TOOL CALLS - STOP]")
	default:
		ms.history = append(ms.history, mEntry{key: fmt.Sprint(p.tool, "/", p.shape), out: out})
		n := trailing(ms.history)
		return loopguard.StreamLoop, n, n >= 3 && text && !strings.Contains(o.text, "[REPEATED TOOL CALLS - STOP]")
	}
}

func (m *model) userMessage(s, id string, external bool) {
	if s == "" || id == "" {
		return
	}
	ms := m.sessions[s]
	if ms != nil && ms.seen[id] {
		return
	}
	if ms == nil {
		ms = &mSession{}
		m.sessions[s] = ms
	}
	if ms.seen == nil {
		ms.seen = map[string]bool{}
	}
	ms.seen[id] = true
	ms.lastMsg, ms.tasks, ms.wait = id, nil, 0
	if external && m.resetOnUser {
		ms.history = nil
	}
}

func outputOf(i int) loopguard.Output {
	if v := modelOutputs[i].value; v != "" {
		return loopguard.ValueOutput(json.RawMessage(v))
	}
	return loopguard.TextOutput(modelOutputs[i].text)
}

func (c mCall) call(tool string) loopguard.Call {
	args := modelShapes[c.shape][c.perm]
	lc := loopguard.Call{Session: c.session, CallID: c.id, Tool: tool}
	if args != "" {
		lc.Args = json.RawMessage(args)
	}
	return lc
}

// TestModelStateMachine checks properties 1, 2, 3, 9, 10 and 11 of the spec: every
// decision, notice and count of the guard equals the naive
// model's, on random interleavings of calls, completions, messages, turn and session
// ends, abandons and previews.
func TestModelStateMachine(t *testing.T) { rapid.Check(t, modelMachine) }

// FuzzModelStateMachine runs the same state machine under go test -fuzz.
// The seeds are byte strings rapid reads its draws from.
func FuzzModelStateMachine(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add([]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14"))
	long := make([]byte, 4096) // a deterministic pseudo-random stream: many steps
	for i, x := 0, uint32(1); i < len(long); i++ {
		x = x*1664525 + 1013904223
		long[i] = byte(x >> 24)
	}
	f.Add(long)
	f.Fuzz(rapid.MakeFuzz(modelMachine))
}

func modelMachine(t *rapid.T) {
	resetOnUser := rapid.Bool().Draw(t, "resetOnUser")
	g, err := loopguard.New(loopguard.WithStreakResetOnUserMessage(resetOnUser))
	if err != nil {
		t.Fatal(err)
	}
	m := &model{resetOnUser: resetOnUser, sessions: map[string]*mSession{}}
	nextID := 0
	tools := map[string]string{} // call id → tool name as the host spelt it
	drawCall := func(t *rapid.T) (mCall, string) {
		tool := rapid.SampledFrom(modelTools).Draw(t, "tool")
		shape := rapid.IntRange(0, len(modelShapes)-1).Draw(t, "shape")
		c := mCall{
			session: rapid.SampledFrom(modelSessions).Draw(t, "session"),
			tool:    strings.ToLower(tool),
			shape:   shape,
			perm:    rapid.IntRange(0, len(modelShapes[shape])-1).Draw(t, "perm"),
			class:   modelClass(tool),
		}
		if rapid.IntRange(0, 9).Draw(t, "noID") > 0 {
			nextID++
			c.id = fmt.Sprint("c", nextID)
		}
		return c, tool
	}
	pendingCalls := func() []mCall {
		var all []mCall
		for _, s := range modelSessions {
			if ms := m.sessions[s]; ms != nil {
				for _, p := range ms.pending {
					all = append(all, p)
				}
			}
		}
		slices.SortFunc(all, func(a, b mCall) int { return strings.Compare(a.id, b.id) })
		return all
	}
	checkBefore := func(t *rapid.T, what string, c mCall, err error, kind loopguard.Kind, runs int, tool string) {
		if c.invalid() {
			if !errors.Is(err, loopguard.ErrInvalidCall) {
				t.Fatalf("%s %+v: err %v, want ErrInvalidCall", what, c, err)
			}
			return
		}
		if kind == 0 {
			if err != nil {
				t.Fatalf("%s: guard refused (%v), model admits", what, err)
			}
			return
		}
		var re *loopguard.RefusedError
		if !errors.As(err, &re) {
			t.Fatalf("%s: guard admitted, model refuses (kind %v runs %d)", what, kind, runs)
		}
		if re.Kind != kind || re.Runs != runs || re.Tool != strings.ToLower(tool) {
			t.Fatalf("%s: refusal %+v, model kind %v runs %d", what, *re, kind, runs)
		}
		// Property 1: only block tools (loop) and wait tools (wait) are refused.
		if (kind == loopguard.KindLoop && !modelBlock(tool)) || (kind == loopguard.KindWait && modelClass(tool) != mWait) {
			t.Fatalf("%s: refused an unlisted tool %q", what, tool)
		}
	}
	type done struct {
		c    mCall
		tool string
		out  int
	}
	var completed []done // calls completed so far, to repeat (streaks need repeats)
	doAfter := func(t *rapid.T, c mCall, tool string, out int) {
		in := outputOf(out)
		v := mustAfter(t, g, c.call(tool), in)
		stream, runs, notice := m.after(c, out)
		if v.Stream != stream || v.Runs != runs || (v.Notice != "") != notice {
			t.Fatalf("After %+v out %d: guard %v/%d notice %q; model %v/%d notice %t", c, out, v.Stream, v.Runs, v.Notice, stream, runs, notice)
		}
		// Property 9: no notice means the output is returned unchanged.
		if !notice && (v.Output.Text != in.Text || string(v.Output.Value) != string(in.Value)) {
			t.Fatalf("After changed an output without a notice: %q", v.Output.Text)
		}
		if notice && v.Output.Text != in.Text+v.Notice {
			t.Fatalf("notice not appended once: %q", v.Output.Text)
		}
		completed = append(completed, done{c: c, tool: tool, out: out})
	}
	t.Repeat(map[string]func(*rapid.T){
		"": func(t *rapid.T) {
			n := 0
			for _, s := range modelSessions[1:] {
				ms := m.sessions[s]
				st, ok := g.State(s)
				if ok != (ms != nil) {
					t.Fatalf("session %s: guard has record %t, model %t", s, ok, ms != nil)
				}
				if !ok {
					continue
				}
				n++
				if st.Runs != m.runs(s) || st.WaitRuns != ms.wait || st.Pending != len(ms.pending) || st.LastMessage != ms.lastMsg {
					t.Fatalf("session %s: guard %+v, model runs %d wait %d pending %d msg %q", s, st, m.runs(s), ms.wait, len(ms.pending), ms.lastMsg)
				}
				for task, states := range ms.tasks {
					if got := st.Supervision[task]; got.State != states[len(states)-1] || got.Runs != trailing(states) {
						t.Fatalf("session %s task %s: guard %+v, model %v", s, task, got, states)
					}
				}
				if len(st.Supervision) != len(ms.tasks) {
					t.Fatalf("session %s: guard tasks %v, model %v", s, st.Supervision, ms.tasks)
				}
			}
			if g.Len() != n {
				t.Fatalf("Len %d, model %d", g.Len(), n)
			}
		},
		"before": func(t *rapid.T) {
			c, tool := drawCall(t)
			err := g.Before(c.call(tool))
			kind, runs := m.before(c, true)
			checkBefore(t, "Before", c, err, kind, runs, tool)
			tools[c.id] = tool
		},
		"preview": func(t *rapid.T) {
			c, tool := drawCall(t)
			err := g.Preview(c.call(tool))
			kind, runs := m.before(c, false)
			checkBefore(t, "Preview", c, err, kind, runs, tool)
		},
		"after": func(t *rapid.T) {
			all := pendingCalls()
			if len(all) == 0 {
				t.Skip("nothing pending")
			}
			c := rapid.SampledFrom(all).Draw(t, "pending")
			out := rapid.IntRange(0, len(modelOutputs)-1).Draw(t, "out")
			doAfter(t, c, tools[c.id], out)
		},
		"repeat": func(t *rapid.T) {
			if len(completed) == 0 {
				t.Skip("nothing completed yet")
			}
			d := completed[len(completed)-1-rapid.IntRange(0, min(2, len(completed)-1)).Draw(t, "back")]
			nextID++
			c := d.c
			c.id = fmt.Sprint("c", nextID)
			c.perm = rapid.IntRange(0, len(modelShapes[c.shape])-1).Draw(t, "perm")
			err := g.Before(c.call(d.tool))
			kind, runs := m.before(c, true)
			checkBefore(t, "Before (repeat)", c, err, kind, runs, d.tool)
			if kind == 0 {
				doAfter(t, c, d.tool, d.out)
			}
		},
		"afterUntracked": func(t *rapid.T) {
			c, tool := drawCall(t)
			if c.id != "" {
				c.id = "unknown-" + c.id
			}
			out := rapid.IntRange(0, len(modelOutputs)-1).Draw(t, "out")
			v, err := g.After(c.call(tool), outputOf(out))
			if c.invalid() != errors.Is(err, loopguard.ErrInvalidCall) || (err != nil && !c.invalid()) {
				t.Fatalf("After %+v: err %v", c, err)
			}
			if stream, _, _ := m.after(c, out); stream != loopguard.StreamNone || v.Stream != loopguard.StreamNone || v.Notice != "" {
				t.Fatalf("untracked After counted: %+v", v)
			}
		},
		"userMessage": func(t *rapid.T) {
			s := rapid.SampledFrom(modelSessions).Draw(t, "session")
			id := rapid.SampledFrom([]string{"", "m1", "m2", "m3"}).Draw(t, "message")
			ext := rapid.Bool().Draw(t, "external")
			g.UserMessage(s, id, ext)
			m.userMessage(s, id, ext)
		},
		"endTurn": func(t *rapid.T) {
			s := rapid.SampledFrom(modelSessions).Draw(t, "session")
			g.EndTurn(s)
			if ms := m.sessions[s]; ms != nil {
				ms.tasks, ms.wait = nil, 0
			}
		},
		"endSession": func(t *rapid.T) {
			s := rapid.SampledFrom(modelSessions).Draw(t, "session")
			g.EndSession(s)
			delete(m.sessions, s)
		},
		"abandon": func(t *rapid.T) {
			all := pendingCalls()
			if len(all) == 0 {
				t.Skip("nothing pending")
			}
			c := rapid.SampledFrom(all).Draw(t, "pending")
			g.Abandon(c.session, c.id)
			delete(m.sessions[c.session].pending, c.id)
		},
	})
}
