package mcpserver_test

import (
	"context"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	hkformat "github.com/harnesskit/harnesskit/format"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newFormattingServer is newServer with apply_patch formatting through the formatter
// detected from the workspace (gofmt in process for Go files).
func newFormattingServer(t *testing.T) (*mcp.Server, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, sampleFiles)
	f, err := hkformat.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	box, err := tools.New(dir, tools.WithFormatter(f))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	return mcpserver.New(box, nil), dir
}

func addFile(path string, lines ...string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: " + path + "\n")
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// TestApplyPatchFormats drives apply_patch through MCP with a formatter configured: the
// file on disk is what gofmt makes of the patch's text (go/format is the oracle), and the
// result tells the model which formatter changed how many lines, or why the file was left
// as the patch made it.
func TestApplyPatchFormats(t *testing.T) {
	long := []string{"package main", "", "var x = []int{"}
	for range 30 {
		long = append(long, "1   ,")
	}
	long = append(long, "}")
	tests := []struct {
		name   string
		path   string
		lines  []string
		gofmt  bool     // the file on disk must be gofmt's output (else the patch's text)
		want   []string // substrings of the result
		absent []string // must not appear in the result
	}{
		{
			name:  "untidy_go_file_is_formatted",
			path:  "src/tidy.go",
			lines: []string{"package main", "", "func  Tidy( )int{", "return 1", "}"},
			gofmt: true,
			want: []string{"A src/tidy.go", "src/tidy.go: formatted by gofmt, 4 lines changed:",
				"--- a/src/tidy.go", "-func  Tidy( )int{", "+func Tidy() int {", "+\treturn 1"},
		},
		{
			name:   "tidy_go_file_is_unchanged",
			path:   "src/ok.go",
			lines:  []string{"package main", "", "func OK() int { return 1 }"},
			gofmt:  true,
			want:   []string{"A src/ok.go", "src/ok.go: gofmt: formatter made no change"},
			absent: []string{"formatted by"},
		},
		{
			name:   "go_file_that_does_not_parse_is_written_as_the_patch_made_it",
			path:   "src/broken.go",
			lines:  []string{"package main", "", "func Broken( {"},
			want:   []string{"A src/broken.go", "src/broken.go: gofmt: formatter failed (", "the file is written as the patch made it"},
			absent: []string{"formatted by"},
		},
		{
			name:   "long_reformat_asks_for_a_re_read",
			path:   "src/long.go",
			lines:  long,
			gofmt:  true,
			want:   []string{"A src/long.go", "src/long.go: formatted by gofmt, 60 lines changed (diff not shown); re-read the file before editing it again"},
			absent: []string{"--- a/src/long.go"},
		},
		{
			name:   "file_without_a_formatter_gets_no_report",
			path:   "notes.md",
			lines:  []string{"#  Notes", "*  one"},
			want:   []string{"A notes.md"},
			absent: []string{"format"},
		},
	}
	srv, dir := newFormattingServer(t)
	cs := connect(t, srv, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_patch",
				Arguments: map[string]any{"patchText": addFile(tc.path, tc.lines...)}})
			if err != nil {
				t.Fatal(err)
			}
			out := text(res)
			if res.IsError {
				t.Fatalf("tool error: %s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("result lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("result has %q:\n%s", a, out)
				}
			}
			got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tc.path)))
			if err != nil {
				t.Fatal(err)
			}
			written := strings.Join(tc.lines, "\n") + "\n"
			want := []byte(written)
			if tc.gofmt {
				if want, err = format.Source(want); err != nil {
					t.Fatal(err)
				}
			}
			if string(got) != string(want) {
				t.Errorf("%s on disk:\n%q\nwant\n%q", tc.path, got, want)
			}
		})
	}
}

// TestApplyPatchWithoutFormatter checks that the default toolbox writes the patch's text
// as is and says nothing about formatting.
func TestApplyPatchWithoutFormatter(t *testing.T) {
	srv, dir := newServer(t)
	cs := connect(t, srv, nil)
	lines := []string{"package main", "", "func  Tidy( )int{", "return 1", "}"}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_patch",
		Arguments: map[string]any{"patchText": addFile("src/tidy.go", lines...)}})
	if err != nil {
		t.Fatal(err)
	}
	if out := text(res); res.IsError || strings.Contains(out, "format") {
		t.Errorf("result %q (tool error %v)", out, res.IsError)
	}
	got, err := os.ReadFile(filepath.Join(dir, "src", "tidy.go"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(lines, "\n") + "\n"; string(got) != want {
		t.Errorf("src/tidy.go = %q, want the patch's text %q", got, want)
	}
}

// TestAstGrepReplaceFormats checks that ast_grep_replace formats what it writes when the
// toolbox has a formatter: the rewritten file on disk is gofmt's output (go/format is the
// oracle), and the result says which formatter changed it, with the diff.
func TestAstGrepReplaceFormats(t *testing.T) {
	if !tools.AstGrepAvailable() {
		t.Skip("ast_grep tools not registered: built without cgo and no ast-grep executable on PATH")
	}
	srv, dir := newFormattingServer(t)
	cs := connect(t, srv, nil)
	path := filepath.Join(dir, "src", "calc.go")
	if err := os.WriteFile(path, []byte("package main\n\nfunc calc() int {\n\treturn add(1, 2)\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The rewrite leaves a spacing gofmt tidies: "1+ 2" becomes "1 + 2".
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ast_grep_replace",
		Arguments: map[string]any{"pattern": "add($A, $B)", "rewrite": "$A+ $B", "lang": "go", "paths": []string{"src/calc.go"}, "dryRun": false}})
	if err != nil {
		t.Fatal(err)
	}
	out := text(res)
	if res.IsError {
		t.Fatalf("tool error: %s", out)
	}
	for _, w := range []string{"[APPLIED] 1 replacement in 1 file", "src/calc.go: formatted by gofmt:", "-\treturn 1+ 2", "+\treturn 1 + 2"} {
		if !strings.Contains(out, w) {
			t.Errorf("result lacks %q:\n%s", w, out)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.Source([]byte("package main\n\nfunc calc() int {\n\treturn 1+ 2\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("calc.go on disk:\n%q\nwant\n%q", got, want)
	}
}
