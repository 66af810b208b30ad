package realhosts_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// The scripted turn every host runs against a fake model on loopback: the model makes one
// tool call per response, then answers. It patches a file (with Gemini CLI's
// wait_for_previous set on every call, which a tool must accept), edits it with edit (old
// text as written) and multi_edit (old text with trailing spaces the file does not have,
// found on the tolerance ladder), tries a path outside the workspace, and reads the edited
// file three times in a row, so that the third result carries the loop guard's notice.
const (
	original    = "hello, world\n"
	patched     = "hello, harnesskit!\nbye\n"
	finalAnswer = "All done: hello.txt now greets harnesskit."
	loopMarker  = "[REPEATED TOOL CALLS - STOP]"
)

type step struct {
	tool string
	args map[string]any
}

var script = []step{
	{"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: hello.txt\n-hello, world\n+hello, harnesskit\n*** End Patch\n", "wait_for_previous": true}},
	{"edit", map[string]any{"file_path": "hello.txt", "old_string": "hello, harnesskit", "new_string": "hello, harnesskit!", "wait_for_previous": true}},
	{"multi_edit", map[string]any{"file_path": "hello.txt", "edits": []any{
		map[string]any{"old_string": "hello, harnesskit!  \n", "new_string": "hello, harnesskit!\nbye\n"},
	}, "wait_for_previous": true}},
	{"read", map[string]any{"file_path": "../outside.txt", "wait_for_previous": true}},
	{"read", map[string]any{"file_path": "hello.txt", "wait_for_previous": true}},
	{"read", map[string]any{"file_path": "hello.txt", "wait_for_previous": true}},
	{"read", map[string]any{"file_path": "hello.txt", "wait_for_previous": true}},
}

// toolResult is one tool result as the host handed it back to the model.
type toolResult struct {
	Text    string
	IsError bool
}

// turn is what the fake model saw of one host's turn.
type turn struct {
	mu       sync.Mutex
	results  []toolResult // the longest list of tool results seen in one request
	main     int          // requests that carried the harnesskit tools
	side     int          // other requests (titles, routing, token counts)
	problems []string
	answered bool
}

func (tr *turn) problem(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.problems = append(tr.problems, fmt.Sprintf(format, args...))
}

// next records the results a main request carries and returns the script's next step,
// or nil when the model should answer.
func (tr *turn) next(results []toolResult) *step {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.main++
	if len(results) >= len(tr.results) {
		tr.results = results
	}
	if len(results) < len(script) {
		return &script[len(results)]
	}
	tr.answered = true
	return nil
}

func (tr *turn) sideRequest() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.side++
}

// toolName finds the name under which the host declared one of our tools: Claude Code
// says mcp__harnesskit__read, Gemini CLI mcp_harnesskit_read, OpenCode harnesskit_read
// (so edit is not multi_edit).
func toolName(declared []string, tool string) (string, bool) {
	for _, d := range declared {
		if prefix, ok := strings.CutSuffix(d, tool); ok && strings.HasSuffix(prefix, "_") && strings.HasSuffix(strings.TrimRight(prefix, "_"), "harnesskit") {
			return d, true
		}
	}
	return "", false
}

// check verifies the turn: every step's result as the model received it, the answer.
func (tr *turn) check(t *testing.T) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, p := range tr.problems {
		t.Errorf("fake model: %s", p)
	}
	if len(tr.results) != len(script) || !tr.answered {
		t.Fatalf("the host sent back %d of %d tool results (answered: %v); results: %+v", len(tr.results), len(script), tr.answered, tr.results)
	}
	r := tr.results
	if testing.Verbose() {
		for i, res := range r {
			t.Logf("step %d %s %s → isError %v:\n%s", i+1, script[i].tool, mustJSON(script[i].args), res.IsError, res.Text)
		}
	}
	want := func(i int, isError bool, subs ...string) {
		t.Helper()
		if r[i].IsError != isError {
			t.Errorf("step %d (%s): isError %v, want %v: %s", i+1, script[i].tool, r[i].IsError, isError, r[i].Text)
		}
		for _, s := range subs {
			if !strings.Contains(r[i].Text, s) {
				t.Errorf("step %d (%s): the result lacks %q:\n%s", i+1, script[i].tool, s, r[i].Text)
			}
		}
	}
	want(0, false, "Success. Updated the following files:", "M hello.txt")
	want(1, false, "M hello.txt", "replaced 1 place at line 1")
	want(2, false, "M hello.txt", "compared with trim-end")
	want(3, true, "outside")
	want(4, false, "hello, harnesskit!", "bye")
	if strings.Contains(r[4].Text, loopMarker) || strings.Contains(r[5].Text, loopMarker) {
		t.Errorf("a loop notice before the third identical read: %q / %q", r[4].Text, r[5].Text)
	}
	want(6, false, "hello, harnesskit!", loopMarker)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
