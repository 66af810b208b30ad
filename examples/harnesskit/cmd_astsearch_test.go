package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/astsearch"
)

// astsearchTree writes a small JavaScript project and makes it the working directory.
func astsearchTree(t *testing.T) string {
	t.Helper()
	if _, err := astsearch.Native(); err != nil {
		if _, err := astsearch.Default().Find(t.Context(), astsearch.Query{Pattern: "x", Lang: astsearch.Go}, nil); err != nil {
			t.Skipf("no astsearch backend (no cgo, no ast-grep): %v", err)
		}
	}
	dir := t.TempDir()
	files := map[string]string{
		"src/app.js":   "const fs = require('fs');\nfunction load(p) {\n  console.log(p);\n  return fs.readFileSync(p);\n}\n",
		"src/util.js":  "console.log('util');\n",
		".hidden/x.js": "console.log('hidden');\n",
		"notes.txt":    "console.log('text');\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

func TestAstsearchCLIGolden(t *testing.T) {
	golden, err := filepath.Abs("testdata/astsearch")
	if err != nil {
		t.Fatal(err)
	}
	astsearchTree(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		// causeFromBackend: the message quotes the backend's cause, which the ast-grep CLI
		// words differently; without the native backend only the kind is compared.
		causeFromBackend bool
	}{
		{name: "search_text", args: []string{"search", "--pattern", "console.log($A)", "--lang", "js"}, wantCode: exitOK},
		{name: "search_json", args: []string{"search", "--pattern", "console.log($A)", "--lang", "javascript", "--json", "src/app.js"}, wantCode: exitOK},
		{name: "search_globs", args: []string{"search", "--pattern", "console.log($$$)", "--lang", "js", "--globs", "!src/util.js"}, wantCode: exitOK},
		{name: "search_error_pattern_matches", args: []string{"search", "--pattern", "function $NAME", "--lang", "js"}, wantCode: exitOK},
		{name: "search_missing_path", args: []string{"search", "--pattern", "x", "--lang", "js", "nope"}, wantCode: exitRefused},
		{name: "search_bad_pattern_json", args: []string{"search", "--pattern", "$$$A", "--lang", "js", "--json"}, wantCode: exitRefused, causeFromBackend: true},
		{name: "search_unknown_lang", args: []string{"search", "--pattern", "x", "--lang", "cobol"}, wantCode: exitRefused},
		{name: "usage_missing_lang", args: []string{"search", "--pattern", "x"}, wantCode: exitUsage},
		{name: "rewrite_dry_run", args: []string{"rewrite", "--pattern", "console.log($A)", "--rewrite", "logger.info($A)", "--lang", "js", "src"}, wantCode: exitOK},
		{name: "search_selector", args: []string{"search", "--pattern", "function f() { console.log($A) }", "--selector", "call_expression", "--lang", "js", "--json", "src/app.js"}, wantCode: exitOK},
		{name: "search_selector_absent", args: []string{"search", "--pattern", "function f() { console.log($A) }", "--selector", "class_declaration", "--lang", "js"}, wantCode: exitRefused, causeFromBackend: true},
		{name: "rewrite_selector_dry_run", args: []string{"rewrite", "--pattern", "if (x) { console.log($A) }", "--selector", "call_expression", "--rewrite", "logger.info($A)", "--lang", "js", "src"}, wantCode: exitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), append([]string{"astsearch"}, tc.args...), strings.NewReader(""), &out, &errb)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.wantCode, out.String(), errb.String())
			}
			if _, err := astsearch.Native(); err != nil && tc.causeFromBackend {
				// With --json the kind is compared; in text, that the error is reported.
				if !strings.Contains(out.String(), `"kind":"bad_pattern"`) && !strings.HasPrefix(out.String(), "Error: cannot parse") {
					t.Errorf("output %q", out.String())
				}
				return
			}
			checkGolden(t, filepath.Join(golden, tc.name+".golden"), out.String())
		})
	}
}

// TestAstsearchCLIApply checks that --apply really writes (the plugin's "[APPLIED]" wrote
// nothing) and that the dry run writes nothing.
func TestAstsearchCLIApply(t *testing.T) {
	dir := astsearchTree(t)
	args := []string{"astsearch", "rewrite", "--pattern", "console.log($A)", "--rewrite", "logger.info($A)", "--lang", "js"}
	var out, errb bytes.Buffer
	if code := run(t.Context(), args, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("dry run: exit %d, %s", code, errb.String())
	}
	before, _ := os.ReadFile(filepath.Join(dir, "src/util.js"))
	if string(before) != "console.log('util');\n" {
		t.Fatalf("the dry run wrote %q", before)
	}
	out.Reset()
	if code := run(t.Context(), append(args, "--apply"), strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("apply: exit %d, %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "[APPLIED] 2 replacements in 2 files") {
		t.Errorf("apply output %q", out.String())
	}
	after, _ := os.ReadFile(filepath.Join(dir, "src/util.js"))
	if string(after) != "logger.info('util');\n" {
		t.Errorf("src/util.js = %q", after)
	}
	hidden, _ := os.ReadFile(filepath.Join(dir, ".hidden/x.js"))
	if string(hidden) != "console.log('hidden');\n" {
		t.Errorf("a hidden file was rewritten: %q", hidden)
	}
}

// TestAstsearchCLIMaxMatches: `search --json` prints every match by default (it printed
// 500 and said nothing), --max-matches N keeps the first N, and a cap that was hit is said
// on stderr in both modes.
func TestAstsearchCLIMaxMatches(t *testing.T) {
	dir := astsearchTree(t)
	var many strings.Builder
	for i := range 600 {
		fmt.Fprintf(&many, "console.log(%d);\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "many.js"), []byte(many.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		json      bool
		want      int    // matches printed
		wantNote  string // on stderr; "" for none
		wantCode  int
		wantUsage string
	}{
		{name: "json_uncapped_by_default", args: []string{"--json"}, json: true, want: 602},
		{name: "json_capped", args: []string{"--json", "--max-matches", "10"}, json: true, want: 10, wantNote: "output truncated (max_matches): 10 of 602 matches shown"},
		{name: "json_cap_not_hit", args: []string{"--json", "--max-matches", "602"}, json: true, want: 602},
		{name: "json_cap_one_below", args: []string{"--json", "--max-matches", "601"}, json: true, want: 601, wantNote: "601 of 602 matches shown"},
		{name: "text_default_cap", args: nil, want: 500, wantNote: "output truncated (max_matches): 500 of 602 matches shown"},
		{name: "text_capped", args: []string{"--max-matches", "3"}, want: 3, wantNote: "3 of 602 matches shown"},
		{name: "text_no_cap", args: []string{"--max-matches", "0"}, want: 602},
		{name: "negative", args: []string{"--max-matches", "-2"}, wantCode: exitUsage, wantUsage: "--max-matches -2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"astsearch", "search", "--pattern", "console.log($A)", "--lang", "js"}, tc.args...)
			var out, errb bytes.Buffer
			code := run(t.Context(), args, strings.NewReader(""), &out, &errb)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.wantCode, errb.String())
			}
			if tc.wantUsage != "" {
				if !strings.Contains(errb.String(), tc.wantUsage) {
					t.Errorf("stderr %q, want it to name %q", errb.String(), tc.wantUsage)
				}
				return
			}
			got := strings.Count(out.String(), "\n  ")
			if tc.json {
				var ms []astsearch.Match
				if err := json.Unmarshal(out.Bytes(), &ms); err != nil {
					t.Fatal(err)
				}
				got = len(ms)
			}
			if got != tc.want {
				t.Errorf("%d matches printed, want %d", got, tc.want)
			}
			if tc.wantNote == "" && errb.Len() > 0 || !strings.Contains(errb.String(), tc.wantNote) {
				t.Errorf("stderr %q, want %q", errb.String(), tc.wantNote)
			}
			if !tc.json && tc.wantNote != "" && !strings.Contains(out.String(), "(output truncated: max_matches)") {
				t.Errorf("the text does not say it was truncated: ...%s", out.String()[max(0, out.Len()-120):])
			}
		})
	}
}
