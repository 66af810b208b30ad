package astsearch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update after a deliberate change)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestFormatGolden pins the text shown to models (prose, not a contract).
func TestFormatGolden(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{"src/app.js": srcApp, "src/util.js": srcUtil, "three.js": srcThree, "n.js": "foo(foo(1))"}
	fsys := mapFS(files)
	req := Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}
	r, err := Search(ctx, fsys, req)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "format_search.golden", FormatSearch(r, 0))
	req.Context = 1
	r, _ = Search(ctx, fsys, req)
	checkGolden(t, "format_search_context.golden", FormatSearch(r, 1))
	req.Context, req.MaxMatches = 0, 2
	r, _ = Search(ctx, fsys, req)
	checkGolden(t, "format_search_truncated.golden", FormatSearch(r, 0))
	none, _ := Search(ctx, fsys, Request{Pattern: "foo($$$)", Lang: JavaScript, Backend: fixtureBackend, Paths: []string{"src"}})
	checkGolden(t, "format_search_none.golden", FormatSearch(none, 0))

	plan, err := Rewrite(ctx, fsys, Request{Pattern: "foo($$$)", Lang: JavaScript, Backend: fixtureBackend}, "bar()")
	if err != nil {
		t.Fatal(err)
	}
	plan2, err := Rewrite(ctx, fsys, req, "logger.info($A)")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "format_rewrite_dry_run.golden", FormatRewrite(plan, nil)+"\n---\n"+FormatRewrite(plan2, nil))
	mem := newMemRoot(t, files)
	applied, err := plan2.Apply(ctx, mem.FS, mem.Root)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "format_rewrite_applied.golden", FormatRewrite(plan2, applied))
}

func TestEmptyResultHint(t *testing.T) {
	tests := []struct {
		name, pattern string
		lang          Lang
		hasError      bool
		wantPrefix    string
	}{
		{name: "E6_python_trailing_colon", pattern: "def $F($$$):", lang: Python, wantPrefix: "Hint: remove the trailing colon"},
		{name: "js_function_without_body", pattern: "export async function $NAME", lang: JavaScript, wantPrefix: "Hint: a function pattern needs"},
		{name: "E8_go_conversion", pattern: "fmt.Errorf($$$)", lang: Go, wantPrefix: "Hint: in Go"},
		{name: "E7_error_node", pattern: "print('123')", lang: Go, hasError: true, wantPrefix: "Hint: the pattern did not parse cleanly"},
		{name: "no_hint", pattern: "foo($A)", lang: JavaScript, wantPrefix: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EmptyResultHint(tc.pattern, tc.lang, tc.hasError)
			if tc.wantPrefix == "" && got != "" || len(got) < len(tc.wantPrefix) || got[:len(tc.wantPrefix)] != tc.wantPrefix {
				t.Errorf("hint %q, want prefix %q", got, tc.wantPrefix)
			}
		})
	}
}

// TestFormatPlurals: one match, file or replacement is written in the singular ("Found 1
// matches in 1 files" before).
func TestFormatPlurals(t *testing.T) {
	one := &Result{Matches: []Match{{Text: "f(1)", File: "a.go"}}, TotalMatches: 1, Files: 1}
	if got := FormatSearch(one, 0); !strings.HasSuffix(got, "\nFound 1 match in 1 file") {
		t.Errorf("one match: %q", got)
	}
	two := &Result{Matches: []Match{{Text: "f(1)", File: "a.go"}, {Text: "f(2)", File: "b.go"}}, TotalMatches: 2, Files: 2}
	if got := FormatSearch(two, 0); !strings.HasSuffix(got, "\nFound 2 matches in 2 files") {
		t.Errorf("two matches: %q", got)
	}
	cut := &Result{TotalMatches: 1, Truncated: true, TruncatedReason: "max_output_bytes"}
	if got := FormatSearch(cut, 0); !strings.HasPrefix(got, "Found 1 match in 0 files") {
		t.Errorf("one match, none kept: %q", got)
	}
	plan := &Plan{Files: []FilePlan{{Path: "a.go", Edits: []Edit{{Original: "f(1)", Replacement: "g(1)"}}}}}
	if got := FormatRewrite(plan, nil); !strings.Contains(got, "[DRY RUN] 1 replacement in 1 file\n") {
		t.Errorf("dry run: %q", got)
	}
	if got := FormatRewrite(plan, &Applied{Files: []string{"a.go"}, Edits: 1}); !strings.HasSuffix(got, "[APPLIED] 1 replacement in 1 file") {
		t.Errorf("applied: %q", got)
	}
	if got := FormatRewrite(plan, &Applied{Files: []string{"a.go", "b.go"}, Edits: 3}); !strings.HasSuffix(got, "[APPLIED] 3 replacements in 2 files") {
		t.Errorf("applied, several: %q", got)
	}
}

// TestStrictnessMatchesMatcher: the exported levels are converted to the matcher's by value.
func TestStrictnessMatchesMatcher(t *testing.T) {
	for _, c := range []struct {
		s    Strictness
		want match.Strictness
	}{{Smart, match.Smart}, {CST, match.CST}, {AST, match.AST}, {Relaxed, match.Relaxed}, {Signature, match.Signature}, {Template, match.Template}} {
		if match.Strictness(c.s) != c.want {
			t.Errorf("%v is %d, the matcher's %d", c.s, c.s, c.want)
		}
	}
}
