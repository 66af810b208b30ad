package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/pathguard"
)

// needAstGrep skips when no astsearch backend exists here (no cgo, no ast-grep on PATH):
// the tools are then not registered, which TestToolsListed checks.
func needAstGrep(t *testing.T) {
	t.Helper()
	if !tools.AstGrepAvailable() {
		t.Skip("ast_grep tools not registered: built without cgo and no ast-grep executable on PATH")
	}
}

func TestAstGrepCalls(t *testing.T) {
	needAstGrep(t)
	tests := []struct {
		name, tool, args string
		want             []string
		wantErr          error
		// nativeWant is also in the output when the native backend runs (the kinds a
		// selector could name, which the ast-grep CLI does not list).
		nativeWant []string
	}{
		{name: "search_valid", tool: "ast_grep_search", args: `{"pattern":"return $A + $B","lang":"go"}`,
			want: []string{"src/greet.go:\n  5: return \"Hello, \" + name\n", "Found 1 match in 1 file"}},
		{name: "search_context", tool: "ast_grep_search", args: `{"pattern":"return $A + $B","lang":"go","context":1}`,
			want: []string{"  4- func Greet(name string) string {\n  5: \treturn \"Hello, \" + name\n  6- }\n"}},
		{name: "search_file_path", tool: "ast_grep_search", args: `{"pattern":"Greet($$$)","lang":"go","paths":["src/main.go"]}`,
			want: []string{"src/main.go:\n  6: Greet(\"world\")", "Found 1 match in 1 file"}},
		{name: "search_absolute_path", tool: "ast_grep_search", args: `{"pattern":"Greet($$$)","lang":"go","paths":["ROOT/src"]}`,
			want: []string{"src/main.go:\n  6: Greet(\"world\")"}},
		{name: "search_globs_exclude", tool: "ast_grep_search", args: `{"pattern":"func $F($$$) $$$","lang":"go","globs":["!build/**"]}`,
			want: []string{"src/greet.go", "src/main.go", "Found 2 matches in 2 files"}},
		{name: "search_nothing_hint", tool: "ast_grep_search", args: `{"pattern":"fmt.Println($X)","lang":"go"}`,
			want: []string{"No matches found.", "type conversions"}},
		{name: "search_lang_filters_files", tool: "ast_grep_search", args: `{"pattern":"$X","lang":"python"}`,
			want: []string{"No matches found."}},
		{name: "search_empty_pattern", tool: "ast_grep_search", args: `{"pattern":"  ","lang":"go"}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"ast_grep_search: pattern is empty", "$F($$$ARGS)"}},
		{name: "search_missing_lang", tool: "ast_grep_search", args: `{"pattern":"x"}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"lang", "lang (string, required)"}},
		{name: "search_unknown_lang", tool: "ast_grep_search", args: `{"pattern":"x","lang":"cobol"}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"cobol", "go", "typescript"}},
		{name: "search_bad_pattern", tool: "ast_grep_search", args: `{"pattern":"$$$A","lang":"go"}`, wantErr: astsearch.ErrBadPattern,
			want: []string{"ast_grep_search:", "one complete piece of code"}},
		{name: "search_outside", tool: "ast_grep_search", args: `{"pattern":"x","lang":"go","paths":["../x"]}`, wantErr: pathguard.ErrOutside,
			want: []string{"outside"}},
		{name: "search_missing_path", tool: "ast_grep_search", args: `{"pattern":"x","lang":"go","paths":["lib"]}`, wantErr: fs.ErrNotExist,
			want: []string{"path lib does not exist", "glob"}},
		{name: "search_empty_path", tool: "ast_grep_search", args: `{"pattern":"x","lang":"go","paths":[""]}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"empty string"}},
		{name: "search_negative_context", tool: "ast_grep_search", args: `{"pattern":"x","lang":"go","context":-1}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"context must be at least 0"}},
		{name: "search_unknown_arg", tool: "ast_grep_search", args: `{"pattern":"x","lang":"go","path":"src"}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"path", "paths (array)"}},
		{name: "search_selector", tool: "ast_grep_search", args: `{"pattern":"func t() { return $A + $B }","selector":"return_statement","lang":"go"}`,
			want: []string{"src/greet.go:\n  5: return \"Hello, \" + name\n", "Found 1 match in 1 file"}},
		{name: "search_selector_absent", tool: "ast_grep_search", args: `{"pattern":"func t() { return $A + $B }","selector":"call_expression","lang":"go"}`, wantErr: astsearch.ErrBadPattern,
			want: []string{"call_expression"}, nativeWant: []string{"return_statement", "binary_expression"}},
		{name: "replace_selector_dry_run", tool: "ast_grep_replace", args: `{"pattern":"func t() { fmt.Println($A) }","selector":"call_expression","rewrite":"log.Print($A)","lang":"go"}`,
			want: []string{"+\tlog.Print(Greet(\"world\"))", "[DRY RUN] 1 replacement in 1 file"}},
		{name: "replace_dry_run", tool: "ast_grep_replace", args: `{"pattern":"Greet($$$A)","rewrite":"Welcome($$$A)","lang":"go"}`,
			want: []string{"src/main.go:\n  6: \"Greet(\\\"world\\\")\" → \"Welcome(\\\"world\\\")\"", "+\tfmt.Println(Welcome(\"world\"))", "[DRY RUN] 1 replacement in 1 file"}},
		{name: "replace_no_match", tool: "ast_grep_replace", args: `{"pattern":"Nope($$$A)","rewrite":"x","lang":"go"}`,
			want: []string{"No matches found for replacement."}},
		{name: "replace_missing_rewrite", tool: "ast_grep_replace", args: `{"pattern":"x","lang":"go"}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"rewrite", "rewrite (string, required)"}},
		{name: "replace_bad_pattern", tool: "ast_grep_replace", args: `{"pattern":"a; b","rewrite":"c","lang":"go"}`, wantErr: astsearch.ErrBadPattern,
			want: []string{"ast_grep_replace:"}},
		{name: "replace_outside", tool: "ast_grep_replace", args: `{"pattern":"x","rewrite":"y","lang":"go","paths":["/"],"dryRun":false}`, wantErr: pathguard.ErrOutside,
			want: []string{"outside"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, dir := toolbox(t)
			args := strings.ReplaceAll(tc.args, "ROOT", filepath.ToSlash(dir))
			before := snapshot(t, dir)
			out, err := b.Tool(tc.tool).Call(context.Background(), json.RawMessage(args))
			got := out
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("error %v", err)
				}
			} else {
				if !errors.Is(err, tc.wantErr) || !tools.IsToolError(err) {
					t.Fatalf("error %v (tool error %v), want a tool error matching %v", err, tools.IsToolError(err), tc.wantErr)
				}
				got = err.Error()
			}
			want := tc.want
			if _, err := astsearch.Native(); err == nil {
				want = append(slices.Clip(want), tc.nativeWant...)
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the call changed the workspace")
			}
		})
	}
}

// snapshot renders every file of dir with its content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		sb.WriteString(p + "\n" + string(data) + "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

func TestAstGrepReplaceApply(t *testing.T) {
	needAstGrep(t)
	b, dir := toolbox(t)
	tl := b.Tool("ast_grep_replace")
	args := `{"pattern":"\"Hello, \" + $N","rewrite":"fmt.Sprintf(\"Hello, %s\", $N)","lang":"go","paths":["src"]`
	before := snapshot(t, dir)
	for _, dry := range []string{`}`, `,"dryRun":true}`} {
		if _, err := tl.Call(context.Background(), json.RawMessage(args+dry)); err != nil {
			t.Fatal(err)
		}
		if snapshot(t, dir) != before {
			t.Fatalf("a dry run (%s) wrote", dry)
		}
	}
	out, err := tl.Call(context.Background(), json.RawMessage(args+`,"dryRun":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "[APPLIED] 1 replacement in 1 file") {
		t.Errorf("result %q", out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "src", "greet.go"))
	want := "package main\n\n// Greet returns a greeting for name.\nfunc Greet(name string) string {\n\treturn fmt.Sprintf(\"Hello, %s\", name)\n}\n"
	if string(got) != want {
		t.Errorf("greet.go =\n%s\nwant\n%s", got, want)
	}
	// Applying again finds nothing left to change.
	out, err = tl.Call(context.Background(), json.RawMessage(args+`,"dryRun":false}`))
	if err != nil || !strings.Contains(out, "No matches found for replacement.") {
		t.Errorf("second apply: %q, %v", out, err)
	}
}

func TestAstGrepWorktree(t *testing.T) {
	needAstGrep(t)
	wt := workspace(t)
	b, _ := toolbox(t, tools.WithWorktrees(wt))
	out, err := b.Tool("ast_grep_search").Call(context.Background(), json.RawMessage(`{"pattern":"Greet($$$)","lang":"go","paths":["`+filepath.ToSlash(filepath.Join(wt, "src"))+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(wt, "src", "main.go") + ":\n  6: Greet"; !strings.Contains(out, want) {
		t.Errorf("%q lacks %q (a worktree file is shown by its absolute path)", out, want)
	}
	_, err = b.Tool("ast_grep_search").Call(context.Background(), json.RawMessage(`{"pattern":"x","lang":"go","paths":["src","`+filepath.ToSlash(wt)+`"]}`))
	if !errors.Is(err, tools.ErrInvalidArgs) || !strings.Contains(err.Error(), "make one call per tree") {
		t.Errorf("paths in two trees: %v", err)
	}
	_, err = b.Tool("ast_grep_replace").Call(context.Background(), json.RawMessage(`{"pattern":"Greet($$$A)","rewrite":"Hi($$$A)","lang":"go","paths":["`+filepath.ToSlash(wt)+`"],"dryRun":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "src", "main.go")); !strings.Contains(string(got), `Hi("world")`) {
		t.Errorf("worktree main.go not rewritten:\n%s", got)
	}
}

func TestAstGrepProgressAndCancel(t *testing.T) {
	needAstGrep(t)
	b, _ := toolbox(t)
	var last [2]float64
	calls := 0
	_, err := b.Tool("ast_grep_search").Invoke(context.Background(), tools.Invocation{
		Args:     json.RawMessage(`{"pattern":"Greet($$$)","lang":"go"}`),
		Progress: func(done, total float64, _ string) { calls++; last = [2]float64{done, total} },
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last[0] != last[1] || last[1] != 3 {
		t.Errorf("progress: %d calls, last %v; want a final report of 3 of 3 files", calls, last)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"ast_grep_search", "ast_grep_replace"} {
		_, err = b.Tool(name).Call(ctx, json.RawMessage(`{"pattern":"Greet($$$A)","rewrite":"X","lang":"go","dryRun":false}`))
		if !errors.Is(err, context.Canceled) || tools.IsToolError(err) {
			t.Errorf("%s cancelled: %v, want a host error wrapping context.Canceled", name, err)
		}
	}
}

func TestAstGrepAnnotations(t *testing.T) {
	needAstGrep(t)
	b, _ := toolbox(t)
	if a := b.Tool("ast_grep_search").Annotations; !a.ReadOnly || a.Destructive || a.OpenWorld {
		t.Errorf("ast_grep_search annotations %+v, want read-only", a)
	}
	if a := b.Tool("ast_grep_replace").Annotations; a.ReadOnly || !a.Destructive || a.OpenWorld {
		t.Errorf("ast_grep_replace annotations %+v, want destructive", a)
	}
}

// TestAstGrepLoop: both tools go through the loop guard; the same search returning the
// same result gets the loop notice from its third call.
func TestAstGrepLoop(t *testing.T) {
	needAstGrep(t)
	b, _ := toolbox(t)
	for _, name := range []string{"ast_grep_search", "ast_grep_replace"} {
		args := json.RawMessage(`{"pattern":"Greet($$$A)","rewrite":"Hi($$$A)","lang":"go"}`)
		if name == "ast_grep_search" {
			args = json.RawMessage(`{"pattern":"Greet($$$A)","lang":"go"}`)
		}
		for i := 1; i <= 3; i++ {
			out, err := b.Tool(name).Call(context.Background(), args)
			if err != nil {
				t.Fatalf("%s call %d: %v", name, i, err)
			}
			if notice := strings.Contains(out, "[REPEATED TOOL CALLS - STOP]"); notice != (i == 3) {
				t.Errorf("%s call %d: notice %v, want it from the third call only:\n%s", name, i, notice, out)
			}
		}
	}
}

// TestAstGrepOutputBounded: a rewrite that touches many lines gives a dry run of at most
// MaxOutputBytes that still ends with the totals and says the diff was cut, and so does
// the report of an applied rewrite.
func TestAstGrepOutputBounded(t *testing.T) {
	needAstGrep(t)
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package big\n\nimport \"strings\"\n\nfunc f(s string) {\n")
	const n = 20000
	for i := range n {
		fmt.Fprintf(&src, "\t_ = strings.Index(s, \"needle number %05d\") != -1\n", i)
	}
	src.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := tools.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, dry := range []bool{true, false} {
		args, _ := json.Marshal(map[string]any{"pattern": "strings.Index($S, $T) != -1", "rewrite": "strings.Contains($S, $T)", "lang": "go", "dryRun": dry})
		out, err := b.Tool("ast_grep_replace").Call(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > tools.MaxOutputBytes {
			t.Errorf("dryRun=%v: %d bytes, over MaxOutputBytes (%d)", dry, len(out), tools.MaxOutputBytes)
		}
		total := fmt.Sprintf("%d replacements in 1 file", n)
		if !strings.Contains(out, total) || !strings.Contains(out, "cut") {
			t.Errorf("dryRun=%v: the result does not give the totals (%q) and say it was cut:\n…%s", dry, total, out[max(0, len(out)-600):])
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "big.go"))
	if got := strings.Count(string(data), "strings.Contains(s, "); got != n {
		t.Fatalf("%d of %d replacements written", got, n)
	}
}
