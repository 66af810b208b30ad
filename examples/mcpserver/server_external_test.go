package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/loopguard"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestListTools(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type ann struct{ readOnly, destructive, openWorld bool }
	want := map[string]ann{"apply_patch": {false, true, false}, "read": {true, false, false}, "grep": {true, false, false},
		"glob": {true, false, false}, "webfetch": {true, false, true},
		"edit": {false, true, false}, "multi_edit": {false, true, false}}
	if tools.AstGrepAvailable() {
		want["ast_grep_search"], want["ast_grep_replace"] = ann{true, false, false}, ann{false, true, false}
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tl := range res.Tools {
		w, ok := want[tl.Name]
		if !ok {
			t.Fatalf("unexpected tool %s", tl.Name)
		}
		a := tl.Annotations
		if a == nil || a.ReadOnlyHint != w.readOnly || a.DestructiveHint == nil || *a.DestructiveHint != w.destructive || a.OpenWorldHint == nil || *a.OpenWorldHint != w.openWorld {
			t.Errorf("%s: annotations %+v, want read-only %v destructive %v open-world %v", tl.Name, a, w.readOnly, w.destructive, w.openWorld)
		}
		schema, _ := tl.InputSchema.(map[string]any)
		if schema["type"] != "object" || tl.Description == "" {
			t.Errorf("%s: schema %v, description %d bytes", tl.Name, tl.InputSchema, len(tl.Description))
		}
	}
}

// TestEndToEnd calls each tool with a valid and an invalid input: valid calls succeed,
// invalid ones come back as tool errors (isError with an actionable message), and the
// server keeps serving after each.
func TestEndToEnd(t *testing.T) {
	srv, dir := newServer(t)
	cs := connect(t, srv, nil)
	tests := []struct {
		name, tool, args string
		isError          bool
		want             string
	}{
		{name: "read_valid", tool: "read", args: `{"file_path":"src/greet.go","limit":3}`, want: "     3\t// Greet returns a greeting."},
		{name: "read_invalid", tool: "read", args: `{"path":"src/greet.go"}`, isError: true, want: "read: invalid arguments: "},
		{name: "read_outside", tool: "read", args: `{"file_path":"../../etc/passwd"}`, isError: true, want: "outside the workspace root"},
		{name: "grep_valid", tool: "grep", args: `{"pattern":"Greet\\(","path":"src"}`, want: "Found 2 matching lines in 2 files"},
		{name: "grep_invalid", tool: "grep", args: `{"pattern":"Greet("}`, isError: true, want: "is not a valid Go regular expression"},
		{name: "grep_missing_dir", tool: "grep", args: `{"pattern":"x","path":"lib"}`, isError: true, want: "Search path does not exist"},
		{name: "glob_valid", tool: "glob", args: `{"pattern":"**/*.go"}`, want: "Found 2 files\nsrc/greet.go\nsrc/main.go\n"},
		{name: "glob_invalid", tool: "glob", args: `{"pattern":"src/[x"}`, isError: true, want: "not a valid relative glob"},
		{name: "patch_valid", tool: "apply_patch", args: `{"patchText":"*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch"}`, want: "A notes.txt"},
		{name: "patch_invalid", tool: "apply_patch", args: `{"patchText":"*** Begin Patch\n*** Update File: src/greet.go\n-nope\n+x\n*** End Patch"}`, isError: true, want: "src/greet.go"},
		{name: "edit_create", tool: "edit", args: `{"file_path":"edited.txt","old_string":"","new_string":"one\ntwo\n"}`, want: "A edited.txt"},
		{name: "edit_valid", tool: "edit", args: `{"file_path":"edited.txt","old_string":"one","new_string":"uno"}`, want: "M edited.txt"},
		{name: "multi_edit_valid", tool: "multi_edit", args: `{"file_path":"edited.txt","edits":[{"old_string":"two","new_string":"dos"},{"old_string":"uno\ndos","new_string":"uno\ndos\ntres"}]}`, want: "edit 2: replaced"},
		{name: "edit_not_found", tool: "edit", args: `{"file_path":"src/greet.go","old_string":"func Greet(name string) int {","new_string":"x"}`, isError: true, want: "old_string is not in src/greet.go"},
		{name: "edit_ambiguous", tool: "edit", args: `{"file_path":"edited.txt","old_string":"o","new_string":"0"}`, isError: true, want: "or set replace_all"},
		{name: "patch_wrong_arg", tool: "apply_patch", args: `{"patch":"x"}`, isError: true, want: "patchText (string, required)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatalf("protocol error %v, want a result", err)
			}
			if res.IsError != tc.isError || !strings.Contains(text(res), tc.want) {
				t.Fatalf("isError=%v text:\n%s\nwant isError=%v and %q", res.IsError, text(res), tc.isError, tc.want)
			}
			if err := cs.Ping(context.Background(), nil); err != nil {
				t.Fatalf("server gone after the call: %v", err)
			}
		})
	}
	if got, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(got) != "hi\n" {
		t.Fatalf("notes.txt = %q, %v", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "edited.txt")); err != nil || string(got) != "uno\ndos\ntres\n" {
		t.Fatalf("edited.txt = %q, %v", got, err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil {
		t.Fatal("an unknown tool did not fail")
	}
}

// TestLoopVisibleToClient: six identical grep calls: plain results twice, the notice from
// the third, a refusal (isError) on the sixth. A second client has its own streak.
func TestLoopVisibleToClient(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil)
	call := func(cs *mcp.ClientSession) *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "Greet"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var log []string
	for i := 1; i <= 6; i++ {
		res := call(cs)
		notice := strings.Contains(text(res), loopguard.DefaultLoopMarker)
		log = append(log, fmt.Sprintf("%d: isError=%v notice=%v", i, res.IsError, notice))
		switch {
		case i <= 2 && (res.IsError || notice),
			i >= 3 && i <= 5 && (res.IsError || !notice),
			i == 6 && !res.IsError:
			t.Fatalf("call %d: isError=%v notice=%v\n%s", i, res.IsError, notice, text(res))
		}
		if i == 6 && !strings.Contains(strings.ToLower(text(res)), "grep") {
			t.Fatalf("the refusal does not name the tool: %s", text(res))
		}
	}
	t.Log(strings.Join(log, "; "))
	cs2 := connect(t, srv, nil)
	if res := call(cs2); res.IsError {
		t.Fatalf("a fresh client was refused: %s", text(res))
	}
}
