package patch_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// A chunk matched only at a loose level (leading whitespace, trailing whitespace or
// typographic punctuation ignored) whose context line beside its added lines is, as written,
// the file line on the other side of them: the file was re-indented (often a block wrapped in
// another, which adds a closing line), and the added lines could go on either side of that line.
// The refused rows are inputs on which taking the loose match writes a wrong result (the first
// is a real-history case: a test file wrapped in an outer describe, where git's merge put the
// new test after the inner closer).
func TestLooseMatchSideOfAddedLines(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	upd := func(path string, body ...string) string {
		return apText(append([]string{"*** Update File: " + path, "@@"}, body...)...)
	}
	// Before: two closers at indents 2 and 0. After the wrap: three, at 4, 2 and 0.
	wrapped := lines("describe('outer', () => {", "  describe('inner', () => {", "    test('a', () => {", "      assert.ok(1);", "    });", "  });", "});")
	chunk := []string{" ", "     assert.ok(1);", "   });", "+", "+  test('b', () => {});", " });"}
	// ambiguous wants the file line that makes the second reading, and both readings' lines.
	ambiguous := func(fileLine int, cands ...int) func(t *testing.T, res *patch.Result, err error) {
		return func(t *testing.T, res *patch.Result, err error) {
			t.Helper()
			var pe *patch.Error
			if !errors.As(err, &pe) || pe.FileLine != fileLine || !slices.Equal(pe.Candidates, cands) {
				t.Fatalf("err = %v (%+v), want an ambiguity at file line %d between %v", err, pe, fileLine, cands)
			}
		}
	}
	apRun(t, []apCase{
		{
			name:  "reindented_closers_refused",
			files: map[string]string{"a.test.js": lines("describe('outer', () => {", "  describe('inner', () => {", "    test('a', () => {", "", "      assert.ok(1);", "    });", "  });", "});")},
			patch: upd("a.test.js", chunk...),
			kind:  patch.KindAmbiguous,
			msg:   []string{"Ambiguous placement in a.test.js", "compared with trim", "context line next to the added lines '  });' is paired with file line 6 ('    });')", "file line 7 right below it is that line as written", "next to file line 6 or next to file line 7"},
			check: ambiguous(7, 6, 7),
		},
		{
			// The other way round: an outer block removed (un-indented), the context line
			// after the added lines is, as written, the file line above them.
			name:  "dedented_closer_after_added_lines_refused",
			files: map[string]string{"a.go": lines("func f() {", "\tif x {", "\t}", "}", "", "func g() {}")},
			patch: upd("a.go", " \t\tif x {", " \t\t}", "+\t\ty()", " \t}", " ", " func g() {}"),
			kind:  patch.KindAmbiguous, msg: []string{"'\t}' is paired with file line 4 ('}')", "file line 3 right above it is that line as written", "next to file line 4 or next to file line 3"},
			check: ambiguous(3, 3, 4),
		},
		{
			// Trailing whitespace: "end " matches file line 2 ("end") loosely, and file
			// line 3 is "end " as written.
			name:  "trailing_space_twin_refused",
			files: map[string]string{"a.rb": lines("x", "end", "end ", "y")},
			patch: upd("a.rb", " x", " end ", "+z", " end  ", " y"),
			kind:  patch.KindAmbiguous, msg: []string{"file line 3 right below it is that line as written"},
		},
		{
			// Found by the re-indent property: the statement beside the added lines is, as
			// written, a file line two lines further on (the outer block's own statement),
			// which is where git's merge puts the added line.
			name: "repeated_statement_twin_nearby_refused",
			files: map[string]string{"f.go": lines("func wrap() {", "\tfunc f() {", "\t\tif c3 {", "\t\t\treturn nil", "\t\t\treturn nil",
				"\t\t}", "\t\treturn nil", "\t}", "}")},
			patch: upd("f.go", " \t\treturn nil", " \t\treturn nil", "+\t\tadded()", " \t}", " \treturn nil"),
			kind:  patch.KindAmbiguous, msg: []string{"file line 7 nearby is that line as written", "next to file line 5 or next to file line 7"},
			check: ambiguous(7, 5, 7),
		},
		{
			// The same through the stale-edges rescue (the first context line was edited):
			// refused, the note says why.
			name: "stale_edges_twin_refused",
			files: map[string]string{"f.go": lines("func wrap() {", "\tfunc f() {", "\t\treturn nil", "\t\treturn nil", "\t\tif c1 { // theirs",
				"\t\t\treturn nil", "\t\t}", "\t}", "}")},
			patch: upd("f.go", " \tif c1 {", " \t\treturn nil", " \t}", "+\tadded()", " }"),
			kind:  patch.KindNotFound, msg: []string{"Rescue: a line next to the change matches its file line only loosely while a file line nearby is that line as written"},
		},
		{
			// Re-indented throughout, no line equals another across the added lines: the loose
			// match is the only reading and is taken.
			name:  "reindented_without_twin_applied",
			files: map[string]string{"a.py": lines("class A:", "    def f(self):", "        return 1", "    def g(self):", "        return 2")},
			patch: upd("a.py", " def f(self):", "     return 1", "+", "+def h(self):", "+    return 3", " def g(self):"),
			want:  map[string]string{"a.py": lines("class A:", "    def f(self):", "        return 1", "", "def h(self):", "    return 3", "    def g(self):", "        return 2")},
			check: apWantStrategies(patch.StrategyTrim),
		},
		{
			// The context line beside the added lines equals its file line exactly; only a
			// line further off drifted: settled.
			name:  "exact_neighbour_settled",
			files: map[string]string{"a.js": lines("    if (x) {", "  }", "}")},
			patch: upd("a.js", "  if (x) {", "+    y();", "   }", " }"),
			want:  map[string]string{"a.js": lines("    if (x) {", "    y();", "  }", "}")},
			check: apWantStrategies(patch.StrategyTrim),
		},
		{
			// A removed closer matched loosely while the next file line is it as written:
			// which closer goes is a guess.
			name:  "removed_line_twin_refused",
			files: map[string]string{"a.js": lines("      a();", "    });", "  });", "});")},
			patch: upd("a.js", "     a();", "-  });", "+  }); // inner", " });"),
			kind:  patch.KindAmbiguous, msg: []string{"removed line '  });' is paired with file line 2 ('    });')", "file line 3 right below it is that line as written", "it could mean file line 2 or 3"},
			check: ambiguous(3, 2, 3),
		},
		{
			// A removed line of a re-indented file with no twin beside it is taken.
			name:  "removed_line_reindented_applied",
			files: map[string]string{"a.js": lines("      a();", "      b();", "    });")},
			patch: upd("a.js", "     a();", "-    b();", "+    c();", "   });"),
			want:  map[string]string{"a.js": lines("      a();", "    c();", "    });")},
			check: apWantStrategies(patch.StrategyTrim),
		},
		{
			// A context line beside added lines whose neighbour across them is a removed line:
			// the removal fixes the place.
			name:  "added_beside_removed_settled",
			files: map[string]string{"a.js": lines("    });", "    old();", "  });")},
			patch: upd("a.js", "   });", "-  old();", "+  new();", " });"),
			want:  map[string]string{"a.js": lines("    });", "  new();", "  });")},
			check: apWantStrategies(patch.StrategyTrim),
		},
		{
			// Compat mode takes the loose match as Codex does.
			name:  "compat_takes_loose_match",
			files: map[string]string{"a.test.js": wrapped},
			patch: upd("a.test.js", "     assert.ok(1);", "   });", "+  test('b', () => {});", " });"),
			opts:  []patch.Option{patch.WithCodexCompat()},
			want:  map[string]string{"a.test.js": strings.Replace(wrapped, "    });\n", "    });\n  test('b', () => {});\n", 1)},
		},
		{
			// An exact match is never questioned: the file is what the model saw.
			name:  "exact_match_unaffected",
			files: map[string]string{"a.js": lines("  });", "});", "});")},
			patch: upd("a.js", "   });", "+  x();", " });", " });"),
			want:  map[string]string{"a.js": lines("  });", "  x();", "});", "});")},
			check: apWantStrategies(patch.StrategyExact),
		},
	})
}
