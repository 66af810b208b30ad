package astsearch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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
