package patch_test

import (
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// Line numbers copied from a read tool into a chunk: this project's read tool prints
// "%6d\t%s" (examples/tools/read.go), Claude Code's prints "%6d→%s".
func TestLineNumbersFromReadTool(t *testing.T) {
	file := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"
	fixed := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"
	upd := func(lines ...string) string {
		return apText(append([]string{"*** Update File: a.go", "@@"}, lines...)...)
	}
	refused := []string{"Line numbers are not part of the file"}
	apRun(t, []apCase{
		{
			name:  "tab_form_numbers_match",
			files: map[string]string{"a.go": file},
			patch: upd("      5\tfunc main() {", "-     6\t\tfmt.Println(\"hi\")", "+\tfmt.Println(\"hello\")", "      7\t}"),
			want:  map[string]string{"a.go": fixed},
			check: apWantStrategies(patch.StrategyLineNumbers),
		},
		{
			name:  "arrow_form_numbers_match",
			files: map[string]string{"a.go": file},
			patch: upd("      5→func main() {", "-     6→\tfmt.Println(\"hi\")", "+\tfmt.Println(\"hello\")", "      7→}"),
			want:  map[string]string{"a.go": fixed},
			check: apWantStrategies(patch.StrategyLineNumbers),
		},
		{
			name:  "unpadded_numbers_and_a_blank_line_without_its_tab",
			files: map[string]string{"a.go": file},
			patch: upd(" 3\timport \"fmt\"", " 4", " 5\tfunc main() {", "-6\t\tfmt.Println(\"hi\")", "+\tfmt.Println(\"hello\")"),
			want:  map[string]string{"a.go": fixed},
			check: apWantStrategies(patch.StrategyLineNumbers),
		},
		{
			name:  "numbers_off_by_one_refused",
			files: map[string]string{"a.go": file},
			patch: upd("      6\tfunc main() {", "-     7\t\tfmt.Println(\"hi\")", "+\tfmt.Println(\"hello\")", "      8\t}"),
			kind:  patch.KindNotFound,
			msg:   append(refused, "the numbers say line 6, but without them the lines are at line 5"),
		},
		{
			name:  "numbers_not_consecutive_refused",
			files: map[string]string{"a.go": file},
			patch: upd("      5\tfunc main() {", "-     7\t\tfmt.Println(\"hi\")", "+\tfmt.Println(\"hello\")"),
			kind:  patch.KindNotFound,
			msg:   append(refused, "not consecutive"),
		},
		{
			name:  "mixed_prefixed_and_bare_lines_refused",
			files: map[string]string{"a.go": file},
			patch: upd("      5\tfunc main() {", "-\tfmt.Println(\"hi\")", "+\tfmt.Println(\"hello\")", "      7\t}"),
			kind:  patch.KindNotFound,
			msg:   append(refused, "2 of the chunk's 3 context and removed lines start with a line number"),
		},
		{
			name:  "prefixed_added_line_refused",
			files: map[string]string{"a.go": file},
			patch: upd("      5\tfunc main() {", "-     6\t\tfmt.Println(\"hi\")", "+     6\t\tfmt.Println(\"hello\")", "      7\t}"),
			kind:  patch.KindNotFound,
			msg:   append(refused, "The added line at patch line 6 starts with a line number", "would be written into the file"),
		},
		{
			name:  "numbers_choose_among_repeated_lines",
			files: map[string]string{"a.txt": "x\nend\nx\nend\n"},
			patch: apText("*** Update File: a.txt", "@@", "-     3\tx", "+y", "      4\tend"),
			want:  map[string]string{"a.txt": "x\nend\ny\nend\n"},
		},
		{
			name:  "codex_compat_refuses",
			files: map[string]string{"a.go": file},
			opts:  []patch.Option{patch.WithCodexCompat()},
			patch: upd("      5\tfunc main() {", "-     6\t\tfmt.Println(\"hi\")", "+\tfmt.Println(\"hello\")", "      7\t}"),
			kind:  patch.KindNotFound,
			msg:   refused,
		},
		{
			// A file whose lines really look numbered matches as written: nothing is stripped.
			name:  "file_lines_that_look_numbered_match_as_written",
			files: map[string]string{"t.tsv": "1\ta\n2\tb\n3\tc\n"},
			patch: apText("*** Update File: t.tsv", "@@", " 1\ta", "-2\tb", "+2\tB", " 3\tc"),
			want:  map[string]string{"t.tsv": "1\ta\n2\tB\n3\tc\n"},
			check: apWantStrategies(patch.StrategyExact),
		},
		{
			// Numbered like the file but with other text: the lines changed; not applied.
			name:  "numbers_match_text_does_not",
			files: map[string]string{"a.go": file},
			patch: upd("      5\tfunc main() {", "-     6\t\tfmt.Println(\"bye\")", "+\tfmt.Println(\"hello\")", "      7\t}"),
			kind:  patch.KindNotFound,
			msg:   append(refused, "match nowhere in the file"),
		},
	})
}
