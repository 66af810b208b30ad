package loopguard_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/harnesskit/harnesskit/loopguard"
	"pgregory.net/rapid"
)

// pluginEvent is one event of a differential sequence, in testdata/plugin/driver.mjs's
// format.
type pluginEvent struct {
	Op      string  `json:"op"`
	Session string  `json:"session"`
	Call    string  `json:"call,omitempty"`
	Tool    string  `json:"tool,omitempty"`
	Args    string  `json:"args"`             // JSON text; "" = absent
	Output  *string `json:"output,omitempty"` // text output
	Value   *string `json:"value,omitempty"`  // structured output (JSON text)
	Message string  `json:"message,omitempty"`
}

var (
	pluginTools   = []string{"read", "READ", "grep", "bash", "task", "task_cancel", "task_status", "task_result", "wait_for_user", "wait_for_background_tasks"}
	pluginOutputs = []string{
		"task_id: t1\nstate: running", "Task explorer (t1) is working\nSTATE: busy", "task_id: t1\nstate: running (unconfirmed)",
		"task_id: t2\nstate: completed\nstatus_uncertain: true", "state: running", "plain text", "plain text",
		"already marked [REPEATED TOOL CALLS - STOP]", "already marked [REPEATED WAIT TOOL - END TURN]",
	}
	// Structured outputs are objects and arrays: a JSON string value is annotated by the
	// plugin (it is a string there) but never by loopguard (L18).
	pluginValues = []string{`{"files":["a.ts"]}`, `[1,2.0,{"b":null,"a":true}]`, `{"a":true,"b":null}`}
)

// TestPluginParity is property 12 of the spec: with the streak kept across user messages
// (the plugin's behaviour), large bounds and notices compared by marker only, every
// decision equals the one the published oh-my-opencode-slim 2.2.24 hook makes on the same
// sequence. It needs Node and the plugin package:
//
//	npm install --prefix /tmp/omos oh-my-opencode-slim@2.2.24
//	LOOPGUARD_PLUGIN_DIR=/tmp/omos/node_modules/oh-my-opencode-slim go test ./loopguard -run PluginParity
func TestPluginParity(t *testing.T) {
	plugin := startPlugin(t)
	rapid.Check(t, func(t *rapid.T) {
		events := pluginSequence(t)
		want, err := plugin(events)
		if err != nil {
			t.Fatal(err)
		}
		got := runPluginEvents(t, events)
		if !slices.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("event %d %+v: loopguard %q, plugin %q\nloopguard %v\nplugin    %v", i, events[i], got[i], want[i], got, want)
				}
			}
			t.Fatalf("outcomes differ: loopguard %v, plugin %v", got, want)
		}
	})
}

// startPlugin starts testdata/plugin/driver.mjs on the package named by
// LOOPGUARD_PLUGIN_DIR and returns a function that runs one sequence through it. It skips
// the test when the package or node is absent.
func startPlugin(t *testing.T) func([]pluginEvent) ([]string, error) {
	dir := os.Getenv("LOOPGUARD_PLUGIN_DIR")
	if dir == "" {
		t.Skip("optional oracle absent: set LOOPGUARD_PLUGIN_DIR to an installed oh-my-opencode-slim 2.2.24 package (npm install oh-my-opencode-slim@2.2.24) to compare with the plugin")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("optional oracle absent: node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "dist", "index.js")); err != nil {
		t.Skipf("optional oracle absent: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "plugin", "driver.mjs"), dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	stdout := bufio.NewReader(stdoutPipe)
	return func(events []pluginEvent) ([]string, error) {
		line, err := json.Marshal(events)
		if err != nil {
			return nil, err
		}
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			return nil, err
		}
		reply, err := stdout.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("driver: %w", err)
		}
		var out []string
		return out, json.Unmarshal(reply, &out)
	}
}

// pluginSequence draws an event sequence: calls (overlapping or not), repeats of earlier calls, user messages, turn and session ends.
func pluginSequence(t *rapid.T) []pluginEvent {
	events := []pluginEvent{} // never null on the wire
	var pending []pluginEvent
	var done []pluginEvent // completed after events, to repeat
	n := 0
	lastMessage, msgs := map[string]string{}, 0
	newCall := func(t *rapid.T) pluginEvent {
		tool := rapid.SampledFrom(pluginTools).Draw(t, "tool")
		shape := rapid.IntRange(0, len(modelShapes)-1).Draw(t, "shape")
		ev := pluginEvent{Op: "before", Session: rapid.SampledFrom([]string{"s1", "s2"}).Draw(t, "session"), Tool: tool,
			Args: modelShapes[shape][rapid.IntRange(0, len(modelShapes[shape])-1).Draw(t, "perm")]}
		// Always with a call id: the guard refuses a call without one (ErrInvalidCall),
		// where the plugin silently skips counting it, so there is nothing to compare.
		n++
		ev.Call = fmt.Sprint("c", n)
		return ev
	}
	withOutput := func(t *rapid.T, ev pluginEvent) pluginEvent {
		ev.Op = "after"
		if rapid.IntRange(0, 4).Draw(t, "structured") == 0 {
			v := rapid.SampledFrom(pluginValues).Draw(t, "value")
			ev.Value = &v
		} else {
			o := rapid.SampledFrom(pluginOutputs).Draw(t, "output")
			ev.Output = &o
		}
		return ev
	}
	steps := rapid.IntRange(1, 80).Draw(t, "steps")
	for range steps {
		switch rapid.IntRange(0, 9).Draw(t, "op") {
		case 0, 1, 2: // a call that completes at once
			ev := newCall(t)
			after := withOutput(t, ev)
			events = append(events, ev, after)
			done = append(done, after)
		case 3, 4, 5: // repeat a recent call with the same result
			if len(done) == 0 {
				continue
			}
			prev := done[len(done)-1-rapid.IntRange(0, min(2, len(done)-1)).Draw(t, "back")]
			n++
			before := pluginEvent{Op: "before", Session: prev.Session, Call: fmt.Sprint("c", n), Tool: prev.Tool, Args: prev.Args}
			after := prev
			after.Call = before.Call
			events = append(events, before, after)
		case 6: // start a call that completes later
			ev := newCall(t)
			events = append(events, ev)
			pending = append(pending, ev)
		case 7: // complete a pending call
			if len(pending) == 0 {
				continue
			}
			i := rapid.IntRange(0, len(pending)-1).Draw(t, "pending")
			after := withOutput(t, pending[i])
			pending = slices.Delete(pending, i, i+1)
			events = append(events, after)
			done = append(done, after)
		case 8: // a user message: the session's last id again, or a new one. (An older id
			// sent again does nothing here and is a new message to the plugin, which
			// compares with the last id only: a deliberate difference, tested apart.)
			s := rapid.SampledFrom([]string{"s1", "s2"}).Draw(t, "session")
			id, ok := lastMessage[s]
			if !ok || rapid.Bool().Draw(t, "new message") {
				msgs++
				id = fmt.Sprint("m", msgs)
				lastMessage[s] = id
			}
			events = append(events, pluginEvent{Op: "message", Session: s, Message: id})
		case 9: // end of turn or of session
			op := rapid.SampledFrom([]string{"end_turn", "end_turn", "end_session"}).Draw(t, "end")
			events = append(events, pluginEvent{Op: op, Session: rapid.SampledFrom([]string{"s1", "s2"}).Draw(t, "session")})
		}
	}
	return events
}

// runPluginEvents runs a sequence through a Guard configured like the plugin.
func runPluginEvents(t *rapid.T, events []pluginEvent) []string {
	g, err := loopguard.New(loopguard.WithStreakResetOnUserMessage(false))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range events {
		c := loopguard.Call{Session: ev.Session, CallID: ev.Call, Tool: ev.Tool}
		if ev.Args != "" {
			c.Args = json.RawMessage(ev.Args)
		}
		switch ev.Op {
		case "before":
			err := g.Before(c)
			switch {
			case err == nil:
				out = append(out, "allowed")
			case errors.Is(err, loopguard.ErrRefused):
				out = append(out, "refused")
			default:
				t.Fatalf("Before: %v", err)
			}
		case "after":
			var o loopguard.Output
			if ev.Value != nil {
				o = loopguard.ValueOutput(json.RawMessage(*ev.Value))
			} else {
				o = loopguard.TextOutput(*ev.Output)
			}
			v := mustAfter(t, g, c, o)
			switch {
			case v.Notice == "":
				out = append(out, "none")
			case strings.Contains(v.Notice, loopguard.DefaultWaitMarker):
				out = append(out, "wait")
			default:
				out = append(out, "loop")
			}
		case "message":
			g.UserMessage(ev.Session, ev.Message, true)
			out = append(out, "none")
		case "end_turn":
			g.EndTurn(ev.Session)
			out = append(out, "none")
		case "end_session":
			g.EndSession(ev.Session)
			out = append(out, "none")
		}
	}
	return out
}

// jsonValue draws a small JSON value as Go's encoding/json decodes it.
func jsonValue(t *rapid.T, depth int) any {
	kinds := 6
	if depth >= 3 {
		kinds = 4
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2:
		return rapid.SampledFrom([]float64{0, 1, -1, 2, 0.5, 1e21, 1e-7, 123456789}).Draw(t, "number")
	case 3:
		return rapid.SampledFrom([]string{"", "a", "a.ts", "./a.ts", "a.ts ", "é", "\u2028", "\"q\"", "tab\t", "😀", "<&>"}).Draw(t, "string")
	case 4:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		arr := make([]any, n)
		for i := range arr {
			arr[i] = jsonValue(t, depth+1)
		}
		return arr
	default:
		keys := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "filePath", "Z", "é", "a\"", ""}), 0, 4, rapid.ID[string]).Draw(t, "keys")
		obj := make(map[string]any, len(keys))
		for _, k := range keys {
			obj[k] = jsonValue(t, depth+1)
		}
		return obj
	}
}

// renderJSON writes v as JSON text with drawn key orders, spacing, number spellings and
// string escapes: every rendering decodes to the same value.
func renderJSON(t *rapid.T, v any) string {
	sp := func() string { return rapid.SampledFrom([]string{"", "", " ", "\n  "}).Draw(t, "space") }
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case float64:
		forms := []string{strconv.FormatFloat(v, 'g', -1, 64), strconv.FormatFloat(v, 'e', -1, 64)}
		if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
			forms = append(forms, strconv.FormatInt(int64(v), 10)+".0", strconv.FormatInt(int64(v), 10))
		}
		return rapid.SampledFrom(forms).Draw(t, "spelling")
	case string:
		if rapid.Bool().Draw(t, "escapeAll") {
			var b strings.Builder
			b.WriteByte('"')
			for _, u := range utf16.Encode([]rune(v)) {
				fmt.Fprintf(&b, "\\u%04x", u)
			}
			b.WriteByte('"')
			return b.String()
		}
		out, _ := json.Marshal(v)
		return string(out)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = sp() + renderJSON(t, e) + sp()
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		keys = rapid.Permutation(keys).Draw(t, "order")
		parts := make([]string, len(keys))
		for i, k := range keys {
			kq, _ := json.Marshal(k)
			parts[i] = sp() + string(kq) + sp() + ":" + sp() + renderJSON(t, v[k]) + sp()
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	panic(fmt.Sprintf("unexpected %T", v))
}

// TestPluginParityArgs checks argument identity against the plugin: two renderings of
// one value, or of two drawn values, are the same call exactly when the plugin's stable
// serialisation says so. Observed as the notice on the third of three calls A, B, B with
// identical results. Skips without the plugin (see TestPluginParity).
func TestPluginParityArgs(t *testing.T) {
	plugin := startPlugin(t)
	rapid.Check(t, func(t *rapid.T) {
		va := jsonValue(t, 0)
		vb := va
		if rapid.IntRange(0, 3).Draw(t, "different") == 0 {
			vb = jsonValue(t, 0)
		}
		a, b := renderJSON(t, va), renderJSON(t, vb)
		out := "same result"
		var events []pluginEvent
		for i, args := range []string{a, b, b} {
			call := fmt.Sprint("c", i)
			events = append(events,
				pluginEvent{Op: "before", Session: "s1", Call: call, Tool: "bash", Args: args},
				pluginEvent{Op: "after", Session: "s1", Call: call, Tool: "bash", Args: args, Output: &out})
		}
		want, err := plugin(events)
		if err != nil {
			t.Fatal(err)
		}
		if got := runPluginEvents(t, events); !slices.Equal(got, want) {
			t.Fatalf("A=%s B=%s: loopguard %v, plugin %v (canonical %s / %s)", a, b, got, want,
				loopguard.Canonical(nil, []byte(a)), loopguard.Canonical(nil, []byte(b)))
		}
	})
}
