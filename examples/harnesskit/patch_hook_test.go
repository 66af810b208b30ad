package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// hookRoot is the workspace of the in-memory tree, absolute in the OS's own form.
var hookRoot = testenv.Abs("/w/ws")

// hookApplier returns an Applier over an in-memory workspace holding files.
func hookApplier(t *testing.T, files map[string]string) *patch.Applier {
	t.Helper()
	m := wfs.NewMemFS()
	for rel, data := range files {
		p := filepath.Join(hookRoot, filepath.FromSlash(rel))
		if err := m.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.MkdirAll(hookRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := patch.New(m, hookRoot)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestPatchHookRewriteToolCall(t *testing.T) {
	files := map[string]string{"src/greet.go": greetGo, "a.txt": "one\ntwo\n"}
	stale := "*** Begin Patch\n*** Update File: src/greet.go\n@@\n package main\n func greet() string {\n-\treturn \"hello\"\n+\treturn \"hi there\"\n }\n*** End Patch\n"
	staleFixed := "*** Begin Patch\n*** Update File: src/greet.go\n@@\n package main\n \n func greet() string {\n-\treturn \"hello\"\n+\treturn \"hi there\"\n }\n*** End Patch\n"
	canonical := "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n"
	tests := []struct {
		name string
		tool string
		args map[string]any
		// want* describe the outcome: wantArgs are the returned arguments (nil = the caller's
		// own map, returned as is); wantReason is a substring of the reason ("" = handled).
		wantHandled, wantChanged bool
		wantArgs                 map[string]any
		wantReason               string
	}{
		{
			name: "E75_stale_patch_rewritten_into_new_args", tool: "apply_patch",
			args:        map[string]any{"patchText": stale, "description": "greet"},
			wantHandled: true, wantChanged: true,
			wantArgs: map[string]any{"patchText": staleFixed, "description": "greet"},
		},
		{
			name: "E75_canonical_patch_handled_unchanged", tool: "apply_patch",
			args:        map[string]any{"patchText": canonical},
			wantHandled: true, wantArgs: map[string]any{"patchText": canonical},
		},
		{
			name: "E75_nested_arguments_copied", tool: "apply_patch",
			args:        map[string]any{"patchText": stale, "meta": map[string]any{"tags": []any{"x", json.Number("12345678901234567890")}}},
			wantHandled: true, wantChanged: true,
			wantArgs: map[string]any{"patchText": staleFixed, "meta": map[string]any{"tags": []any{"x", json.Number("12345678901234567890")}}},
		},
		{
			name: "E75_other_tool_untouched", tool: "bash",
			args:       map[string]any{"patchText": stale},
			wantReason: `tool "bash" is not apply_patch`,
		},
		{
			name: "E75_similar_tool_name_untouched", tool: "applypatch",
			args:       map[string]any{"patchText": stale},
			wantReason: `tool "applypatch" is not apply_patch`,
		},
		{
			name: "E75_missing_patchText_untouched", tool: "apply_patch",
			args:       map[string]any{"patch": stale},
			wantReason: `have no "patchText" field`,
		},
		{
			name: "E75_number_patchText_untouched", tool: "apply_patch",
			args:       map[string]any{"patchText": json.Number("7")},
			wantReason: `"patchText" is a number, not a string`,
		},
		{
			name: "E75_null_patchText_untouched", tool: "apply_patch",
			args:       map[string]any{"patchText": nil},
			wantReason: `"patchText" is null, not a string`,
		},
		{
			name: "E75_nil_args_cannot_be_replaced", tool: "apply_patch",
			wantReason: "has no arguments object to replace",
		},
		{
			name: "E75_rewrite_refuses_outside_path", tool: "apply_patch",
			args:       map[string]any{"patchText": "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch\n"},
			wantReason: "rewrite refused, so the host's own tool sees the patch as written: apply_patch blocked: patch contains path outside workspace root: ../escape.txt",
		},
		{
			name: "E75_rewrite_refuses_missing_lines", tool: "apply_patch",
			args:       map[string]any{"patchText": "*** Begin Patch\n*** Update File: a.txt\n@@\n-nothing like it\n+x\n*** End Patch\n"},
			wantReason: "Failed to find expected lines in a.txt",
		},
		{
			name: "E75_rewrite_refuses_malformed", tool: "apply_patch",
			args:       map[string]any{"patchText": "not a patch"},
			wantReason: "The first line of the patch must be '*** Begin Patch'",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := hookApplier(t, files)
			before := deepCopyJSON(tc.args)
			if tc.args == nil {
				before = map[string]any(nil)
			}
			o := rewriteToolCall(context.Background(), a, tc.tool, tc.args)
			if o.Handled != tc.wantHandled || o.Changed != tc.wantChanged {
				t.Errorf("handled, changed = %v, %v; want %v, %v (reason %q)", o.Handled, o.Changed, tc.wantHandled, tc.wantChanged, o.Reason)
			}
			// The caller's arguments are never mutated, in any case.
			if diff := cmp.Diff(before, any(tc.args)); diff != "" {
				t.Errorf("caller's args mutated (-before +after):\n%s", diff)
			}
			if tc.wantReason == "" {
				if o.Reason != "" {
					t.Errorf("reason = %q, want none", o.Reason)
				}
				if diff := cmp.Diff(tc.wantArgs, o.Args); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
				// A new map that shares nothing mutable: changing it leaves the caller's alone.
				mutateJSON(o.Args)
				if diff := cmp.Diff(before, any(tc.args)); diff != "" {
					t.Errorf("caller's args changed through the returned map (-before +after):\n%s", diff)
				}
				return
			}
			if !strings.Contains(o.Reason, tc.wantReason) {
				t.Errorf("reason = %q, want it to contain %q", o.Reason, tc.wantReason)
			}
			if !sameMap(o.Args, tc.args) {
				t.Errorf("untouched call returned other args %v, want the caller's own map", o.Args)
			}
		})
	}
}

// mutateJSON changes every map and slice inside v.
func mutateJSON(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			mutateJSON(e)
			t[k] = "mutated"
		}
		t["added"] = true
	case []any:
		for i, e := range t {
			mutateJSON(e)
			t[i] = "mutated"
		}
	}
}

// sameMap reports whether a and b are the same map (or both nil).
func sameMap(a, b map[string]any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	const probe = "\x00sameMap probe"
	a[probe] = true
	_, ok := b[probe]
	delete(a, probe)
	return ok
}

// TestPatchHookCLI runs "harnesskit patch hook" on real directories; stdout is compared with
// testdata/patch/<name>.golden (-update rewrites them).
func TestPatchHookCLI(t *testing.T) {
	stale := "*** Begin Patch\n*** Update File: src/greet.go\n@@\n package main\n func greet() string {\n-\treturn \"hello\"\n+\treturn \"hi there\"\n }\n*** End Patch\n"
	call := func(tool string, args any) string {
		b, err := json.Marshal(map[string]any{"tool": tool, "args": args})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name     string
		args     []string // after "patch hook"; --root is added unless noRoot
		noRoot   bool
		stdin    string
		wantCode int
		wantErr  string // substring of stderr ("" = empty)
	}{
		{name: "E75_hook_stale_rewritten", stdin: call("apply_patch", map[string]any{"patchText": stale, "n": json.Number("12345678901234567890")}), wantCode: exitOK},
		{name: "E75_hook_canonical_unchanged", stdin: call("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"}), wantCode: exitOK},
		{name: "E75_hook_other_tool_untouched", stdin: call("bash", map[string]any{"command": "ls", "patchText": stale}), wantCode: exitOK},
		{name: "E75_hook_non_string_patchText_untouched", stdin: call("apply_patch", map[string]any{"patchText": []any{"x"}}), wantCode: exitOK},
		{name: "E75_hook_args_not_an_object_untouched", stdin: `{"tool":"apply_patch","args":["*** Begin Patch"]}`, wantCode: exitOK},
		{name: "E75_hook_args_absent_untouched", stdin: `{"tool":"apply_patch"}`, wantCode: exitOK},
		{name: "E75_hook_refused_outside_untouched", stdin: call("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch\n"}), wantCode: exitOK},
		{name: "E75_hook_bad_json_usage", stdin: `{"tool":`, wantCode: exitUsage, wantErr: "stdin must hold one JSON object"},
		{name: "E75_hook_unknown_field_usage", stdin: `{"tool":"apply_patch","argz":{}}`, wantCode: exitUsage, wantErr: `unknown field "argz"`},
		{name: "E75_hook_missing_root_usage", noRoot: true, stdin: `{}`, wantCode: exitUsage, wantErr: "--root is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{"src/greet.go": greetGo, "a.txt": "one\ntwo\n"}
			for rel, data := range files {
				p := filepath.Join(root, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"patch", "hook"}, tc.args...)
			if !tc.noRoot {
				args = append(args, "--root", root)
			}
			var out, errb bytes.Buffer
			code := run(t.Context(), args, strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d (stdout %q, stderr %q)", code, tc.wantCode, out.String(), errb.String())
			}
			if tc.wantErr == "" && errb.Len() != 0 {
				t.Errorf("stderr = %q, want empty", errb.String())
			}
			if !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errb.String(), tc.wantErr)
			}
			// The hook only reads: the workspace is exactly as before.
			for rel, data := range files {
				got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
				if err != nil || string(got) != data {
					t.Errorf("%s = %q (%v), want %q (the hook must not write)", rel, got, err, data)
				}
			}
			if tc.wantCode == exitUsage {
				if out.Len() != 0 {
					t.Errorf("stdout = %q, want empty on a usage error", out.String())
				}
				return
			}
			got := strings.ReplaceAll(out.String(), root, "$ROOT")
			checkGolden(t, filepath.Join("testdata", "patch", tc.name+".golden"), got)
			// Every answer is one JSON object with the input's tool, args and a decision.
			var o struct {
				Tool    string          `json:"tool"`
				Args    json.RawMessage `json:"args"`
				Changed *bool           `json:"changed"`
				Reason  *string         `json:"reason"`
			}
			if err := decodeStrict(out.Bytes(), &o, jsonShape{noun: "object"}); err != nil || o.Changed == nil {
				t.Fatalf("stdout %q is not a hook answer: %v", out.String(), err)
			}
			if *o.Changed && o.Reason != nil {
				t.Errorf("changed call carries a reason %q", *o.Reason)
			}
		})
	}
}
