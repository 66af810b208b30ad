package patch_test

import (
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// The stale-edges rescue: outer context lines that another edit rewrote, added or removed are
// left out; the rest must place the chunk without a guess. Each refused row is an input that
// would make a fuzz-like rule write a wrong result.
func TestStaleEdgesRescue(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	upd := func(path string, body ...string) string {
		return apText(append([]string{"*** Update File: " + path, "@@"}, body...)...)
	}
	staleNote := func(t *testing.T, res *patch.Result, err error) {
		t.Helper()
		if res == nil || len(res.Report) != 1 || res.Report[0].Strategy != patch.StrategyStaleEdges {
			t.Fatalf("report = %+v, want one stale-edges rescue", res)
		}
	}
	// A Rust header whose last context line another edit deleted (a real-history case: the
	// derive attribute went away while the model changed the import).
	rust := lines("use std::io::{self, IsTerminal};", "", "use termcolor::{self, HyperlinkSpec};", "",
		"/// A writer that supports coloring with either line or block buffering.", "pub struct StandardStream(StandardStreamKind);", "",
		"fn other() {}")
	rustChunk := []string{" use std::io::{self, IsTerminal};", " ", "-use termcolor::{self, HyperlinkSpec};", "+use termcolor::HyperlinkSpec;",
		" ", " /// A writer that supports coloring with either line or block buffering.", " #[derive(Debug)]"}
	// Two functions alike but for their names; the second's body holds the change.
	twins := lines("func a() {", "\tsetup()", "\tx := 1", "\treturn x", "}", "", "func b(ctx context.Context) {", "\tsetup()", "\tx := 2", "\treturn x", "}")
	apRun(t, []apCase{
		{
			name:  "trailing_context_line_deleted_by_another_edit",
			files: map[string]string{"wtr.rs": rust},
			patch: upd("wtr.rs", rustChunk...),
			want:  map[string]string{"wtr.rs": strings.Replace(rust, "use termcolor::{self, HyperlinkSpec};", "use termcolor::HyperlinkSpec;", 1)},
			check: func(t *testing.T, res *patch.Result, err error) {
				staleNote(t, res, err)
				if got := res.Report[0].Pairing; len(got) != 6 || got[5] != 0 || got[4] != 5 {
					t.Errorf("pairing = %v, want the left-out line unpaired (0) and the rest on lines 1-5", got)
				}
			},
		},
		{
			// Up to three outer lines per side may go; the rest still names one place.
			name:  "three_leading_context_lines_rewritten",
			files: map[string]string{"a.py": lines("import sys, os  # changed", "VERSION = 2", "", "def f():", "    return 1", "", "def g():", "    pass")},
			patch: upd("a.py", " import sys", " import os", " VERSION = 1", " ", " def f():", "-    return 1", "+    return 2", " ", " def g():"),
			want:  map[string]string{"a.py": lines("import sys, os  # changed", "VERSION = 2", "", "def f():", "    return 2", "", "def g():", "    pass")},
			check: staleNote,
		},
		{
			name:  "outer_lines_rewritten_inner_kept",
			files: map[string]string{"a.py": lines("import sys, os", "VERSION = 2", "", "def f():", "    return 1", "", "def g():", "    pass")},
			patch: upd("a.py", " import sys", " VERSION = 1", " ", " def f():", "-    return 1", "+    return 2", " ", " def g():", "     pass"),
			want:  map[string]string{"a.py": lines("import sys, os", "VERSION = 2", "", "def f():", "    return 2", "", "def g():", "    pass")},
			check: staleNote,
		},
		{
			// The removed line changed in b (the real place); a has the block exactly. Leaving
			// out "func b() {" would make the block fit a: refused, a near copy exists.
			name:  "near_duplicate_with_the_real_place_edited_refused",
			files: map[string]string{"a.go": twins},
			patch: upd("a.go", " func b() {", " \tsetup()", "-\tx := 1", "+\tx := 10", " \treturn x", " }"),
			kind:  patch.KindAmbiguous,
			msg:   []string{"chunk 1, with outer context lines left out, matches", "and resembles", "no other chunk of the patch, placed for certain, lies between the two"},
		},
		{
			// The same block twice (repeated context): which copy the model meant is unknown.
			name:  "repeated_block_refused",
			files: map[string]string{"a.go": lines("func a(v int) {", "\tif err != nil {", "\t\treturn err", "\t}", "}", "func b(w int) {", "\tif err != nil {", "\t\treturn err", "\t}", "}")},
			patch: upd("a.go", " func c() {", " \tif err != nil {", "-\t\treturn err", "+\t\treturn wrap(err)", " \t}", " }"),
			kind:  patch.KindNotFound,
			msg:   []string{"matches more than one place"},
		},
		{
			// Another edit put a line right between the change and its neighbour: the change
			// would go on a guessed side of it. Never left out, never rescued.
			name:  "line_inserted_next_to_the_change_refused",
			files: map[string]string{"a.txt": lines("A2", "B2", "c", "X", "d", "e", "f", "g")},
			patch: upd("a.txt", " a", " b", " c", "-d", "+D", " e", " f", " g"),
			kind:  patch.KindNotFound,
		},
		{
			// The context line next to the insertion is gone: between which two lines the
			// added line goes is a guess.
			name:  "neighbour_of_insertion_deleted_refused",
			files: map[string]string{"a.txt": lines("p1", "p2", "p3", "s2", "s3")},
			patch: upd("a.txt", " p1", " p2", " p3", "+new", " s1", " s2", " s3"),
			kind:  patch.KindNotFound,
		},
		{
			// The model's block moved to the other end of the file and the line above it
			// changed: the rest is unique there, so it is placed where it moved.
			name:  "moved_block_with_a_stale_edge",
			files: map[string]string{"a.txt": lines("tail1", "tail2", "head changed", "k1", "old", "k2", "k3")},
			patch: upd("a.txt", " head", " k1", "-old", "+new", " k2", " k3"),
			want:  map[string]string{"a.txt": lines("tail1", "tail2", "head changed", "k1", "new", "k2", "k3")},
			check: staleNote,
		},
		{
			// The other edit split the chunk's leading context by inserting lines inside it,
			// and a look-alike block elsewhere holds the rest: the real place keeps more of
			// the chunk's lines, so the look-alike is not taken (a real-history case).
			name: "context_split_by_an_insertion_with_a_look_alike_elsewhere_refused",
			files: map[string]string{"t.go": lines("\t\t\t\t\"--help\",", "\t\t\t},", "\t\t\tinvocationArgs: []string{", "\t\t\t\t\"sub1\",", "\t\t\t},", "\t\t},", "\t}", "",
				"\tfor _, tc := range tcs {", "\t\trun(tc)", "\t}", "}", "", "func other() {", "\ttcs := x", "\t\t\t\t\"--hidden\",", "\t\t\t},", "\t\t},", "\t}", "", "\tfor _, tc := range tcs {", "\t\tcheck(tc)", "\t}", "}")},
			patch: upd("t.go", " \t\t\t\t\"--help\",", " \t\t\t},", " \t\t},", "+\t\t{", "+\t\t\tname: \"new\",", "+\t\t},", " \t}", " ", " \tfor _, tc := range tcs {"),
			kind:  patch.KindNotFound,
		},
		{
			// An end-of-file chunk keeps its end: its trailing context is never left out.
			name:  "end_of_file_chunk_keeps_its_end",
			files: map[string]string{"a.txt": lines("x", "k1", "old", "k2", "changed tail")},
			patch: apText("*** Update File: a.txt", "@@", " k1", "-old", "+new", " k2", " tail", "*** End of File"),
			kind:  patch.KindNotFound,
		},
		{
			// Line endings, the BOM and the missing final newline stay as the file has them.
			name:  "crlf_bom_no_final_newline_kept",
			files: map[string]string{"a.txt": "\ufeffheader changed\r\nk1\r\nold\r\nk2\r\nk3"},
			patch: upd("a.txt", " header", " k1", "-old", "+new", " k2"),
			want:  map[string]string{"a.txt": "\ufeffheader changed\r\nk1\r\nnew\r\nk2\r\nk3"},
			check: staleNote,
		},
		{
			// The only place the rest matches is above the chunk's @@ anchor: refused.
			name:  "match_above_the_anchor_refused",
			files: map[string]string{"a.py": lines("def a():", "    k1", "    old", "    k2", "", "def b():", "    changed", "    k9")},
			patch: apText("*** Update File: a.py", "@@ def b():", "     stale", "     k1", "-    old", "+    new", "     k2"),
			kind:  patch.KindNotFound,
		},
		{
			name:  "option_off",
			files: map[string]string{"wtr.rs": rust},
			opts:  []patch.Option{rescue(func(r *patch.RescueOptions) { r.StaleEdges = false })},
			patch: upd("wtr.rs", rustChunk...),
			kind:  patch.KindNotFound,
		},
		{
			// The remaining lines match only with leading whitespace trimmed, beyond a cap at
			// unicode-trim-end: lowering the cap never turns a refusal into a rescue.
			name:  "beyond_the_tolerance_cap_refused",
			files: map[string]string{"a.txt": lines("header changed", "    k1", "    old", "    k2", "    k3")},
			opts:  []patch.Option{rescue(func(r *patch.RescueOptions) { r.MaxTolerance = patch.LevelUnicodeTrimEnd })},
			patch: upd("a.txt", " header", " k1", "-old", "+new", " k2"),
			kind:  patch.KindNotFound,
		},
		{
			name:  "within_the_full_ladder_rescued",
			files: map[string]string{"a.txt": lines("header changed", "    k1", "    old", "    k2", "    k3")},
			patch: upd("a.txt", " header", " k1", "-old", "+new", " k2"),
			want:  map[string]string{"a.txt": lines("header changed", "    k1", "new", "    k2", "    k3")},
			check: staleNote,
		},
		{
			// Both sides added the same import above a kept line (git takes it once): adding
			// it again is refused as partly applied (a real-history case).
			name:  "added_lines_already_above_refused",
			files: map[string]string{"t.py": lines("import pytest", "", "import click", "", "", "def test_a(runner):", "    pass")},
			patch: upd("t.py", "+import pytest", "+", " import click", " ", " ", "-def test_a(runner):", "+def test_a(runner, x):"),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"already has there", "partly applied"},
		},
		{
			// Found by the perturbed-context attack at 5,000 checks: the file has the chunk's
			// first context line where the model saw it (line 13), with a line inserted
			// before the removed lines (line 15); leaving that line out fits the rest on lines
			// 11-13 of a run of equal lines, just above. The best alignment over a window the
			// chunk's length around that place pairs the removed lines with lines 16-17, so
			// where the change goes is a guess: refused.
			name: "left_out_line_still_there_below_refused",
			files: map[string]string{"f.txt": strings.Repeat("func f() {\n", 12) +
				lines("\tx := y", "func f() {", "\tstmt(1)", "func f() {", "\tx := y", "func f() {")},
			patch: upd("f.txt", " \tx := y", " func f() {", "+\tnew(0)", "-func f() {", "+\tnew(1)", "-\tx := y", "+\tnew(2)"),
			kind:  patch.KindNotFound,
			msg:   []string{"Rescue: stale edges: around the place the rest of the chunk matches, the left-out context lines could pair with other file lines"},
		},
	})
}
