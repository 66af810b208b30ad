package patch_test

import (
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// Adversarial inputs from a review of the removal-soundness rules: each row is an input that
// could turn a rescue into a wrong file. The result must be the intended file or a refusal with
// nothing written.
func TestAttackEdgeCases(t *testing.T) {
	const fn = "func f() {\n\ta()\n\tb(1, 2)\n\tc()\n\td()\n}\n"
	apRun(t, []apCase{
		{
			// The model misremembers the context line right before its insertion: the added
			// line belongs after it, not before it.
			name:  "lcs_edited_context_before_insertion",
			files: map[string]string{"a.go": fn},
			patch: apText("*** Update File: a.go", "@@", " func f() {", " \ta()", " \tb(1, 2, 3)", "+\tx()", " \tc()", " \td()", " }"),
			want:  map[string]string{"a.go": "func f() {\n\ta()\n\tb(1, 2)\n\tx()\n\tc()\n\td()\n}\n"},
		},
		{
			name:  "lcs_edited_context_after_insertion",
			files: map[string]string{"a.go": fn},
			patch: apText("*** Update File: a.go", "@@", " func f() {", " \ta()", "+\tx()", " \tb(1, 2, 3)", " \tc()", " \td()", " }"),
			want:  map[string]string{"a.go": "func f() {\n\ta()\n\tx()\n\tb(1, 2)\n\tc()\n\td()\n}\n"},
		},
		{
			// A context line left out exactly where lines are added: before or after it is a
			// guess.
			name:  "lcs_left_out_context_at_insertion_refused",
			files: map[string]string{"a.go": "func f() {\n\ta()\n\tb()\n\tc()\n\td()\n}\n"},
			patch: apText("*** Update File: a.go", "@@", " func f() {", " \ta()", "+\tx()", " \tc()", " \td()", " }"),
			kind:  patch.KindNotFound,
		},
		{
			// The context line before the insertion is nothing like the file's: refused.
			name:  "lcs_unrelated_context_before_insertion_refused",
			files: map[string]string{"a.go": fn},
			patch: apText("*** Update File: a.go", "@@", " func f() {", " \ta()", " \tzzzz(7)", "+\tx()", " \tc()", " \td()", " }"),
			kind:  patch.KindNotFound,
		},
		{
			// A replacement next to a left-out line: the added lines take the removed line's place.
			name:  "lcs_replacement_next_to_left_out_line",
			files: map[string]string{"a.txt": "p\nq\nr\ns\nt\n"},
			patch: apText("*** Update File: a.txt", "@@", " p", "-r", "+R", " s"),
			want:  map[string]string{"a.txt": "p\nq\nR\ns\nt\n"},
		},
		{
			// The context line between the two added lines is in the file, one line further
			// down than the model thought: skipping it as invented would put both added lines
			// above it.
			name:  "prefix_suffix_does_not_skip_context_between_added_lines",
			files: map[string]string{"a.go": "func f() {\n\tlock()\n\twork()\n\tlock()\n}\n"},
			patch: apText("*** Update File: a.go", "@@", " func f() {", "+\tinit()", " \twork()", "+\tlog()", " \tlock()"),
			kind:  patch.KindNotFound,
		},
		{
			// Two equal file lines: the patch's context line may stand for either, and the
			// added lines before it land on a different side of the other one. A guess.
			name:  "lcs_alignments_disagree_on_added_lines_refused",
			files: map[string]string{"a.go": "func f() {\n\tstmt()\nfunc f() {\nfunc f() {\n\tstmt()\nfunc f() {\n"},
			patch: apText("*** Update File: a.go", "@@", "+\tnew0()", " \tstmt()", "+\tnew1()", "+\tnew2()", " func f() {", "-\tstmt()", "+\tnew3()"),
			kind:  patch.KindNotFound,
		},
		{
			// A removed blank line at the end of a chunk is a named removal, not the trailing
			// newline artefact Codex's retry drops: dropping it would report success without
			// removing the line. The file has "# end" among the lines the chunk replaces, so
			// whether "return 1" goes before or after it is a guess: refused, nothing written.
			name:  "trailing_removed_blank_line_not_dropped",
			files: map[string]string{"m.py": "def f():\n    pass\n# end\n\nx = 1\n"},
			patch: apText("*** Update File: m.py", "@@", " def f():", "-    pass", "+    return 1", "-"),
			kind:  patch.KindNotFound,
			msg:   []string{"the place of the added lines among them would be a guess"},
			check: func(t *testing.T, res *patch.Result, err error) {
				if res != nil && len(res.Report) == 1 && res.Report[0].BlankRetry {
					t.Errorf("the removed blank line was dropped by the trailing-blank retry")
				}
			},
		},
		{
			// link.txt is a symbolic link to f.txt: a Move onto it is a Move onto an existing
			// name, not onto itself; treating it as an in-place update kept f.txt, which the
			// Move said to remove.
			name:  "move_onto_a_symlink_to_itself_refused",
			files: map[string]string{"f.txt": "a\nb\n"},
			setup: func(m *wfs.MemFS) {
				if err := m.Symlink("f.txt", filepath.Join(apRoot, "link.txt")); err != nil {
					panic(err)
				}
			},
			patch: apText("*** Update File: f.txt", "*** Move to: link.txt", "@@", " a", "-b", "+c"),
			kind:  patch.KindExists, msg: []string{"Move destination already exists: link.txt"},
		},
		{
			// The edited context line stands for the first of two equal file lines (the
			// window one line longer) or for none (the first one removed): the shorter
			// window's alignment is one of two readings, so the rescue refuses.
			name:  "lcs_longer_window_shows_second_reading_refused",
			files: map[string]string{"a.go": "func f() {\nfunc f() {\n\tstmt()\nfunc f() {\n\tx := y\n\tx := y\nfunc f() {\n"},
			patch: apText("*** Update File: a.go", "@@", "+\tnew0()", "-\tstmt()", "+\tnew1()", "-func f() {", "+\tnew2()",
				" \tx := y // edited", "+\tnew3()", "-\tx := y", "+\tnew4()"),
			kind: patch.KindNotFound,
		},
		{
			// A blank context line followed by added lines is not the trailing-newline
			// artefact: turning it into an added line adds a blank line the patch never
			// asked for.
			name:  "blank_context_before_added_lines_not_retried",
			files: map[string]string{"a.txt": "a\nb\n\nc\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "+x", " ", "+y"),
			kind:  patch.KindNotFound,
		},
		// Held inputs that already behave; kept so they stay that way.
		{
			name:  "resent_replacement_refused",
			files: map[string]string{"a.txt": "a\nB\nc\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "-b", "+B", " c"),
			kind:  patch.KindAlreadyApplied,
		},
		{
			// A re-sent patch whose first chunk was written: the rest is applied.
			name:  "partial_resend_applies_the_rest",
			files: map[string]string{"a.txt": "a\nB\nc\nd\ne\nf\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "-b", "+B", " c", "@@", " d", "-e", "+E", " f"),
			want:  map[string]string{"a.txt": "a\nB\nc\nd\nE\nf\n"},
		},
		{
			// The removed line is still in the file elsewhere: the change may not be applied
			// at all (the B could be another edit's), so nothing is written.
			name:  "partial_resend_removed_line_still_there_refused_whole",
			files: map[string]string{"a.txt": "a\nB\nc\nd\ne\nf\nb\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "-b", "+B", " c", "@@", " d", "-e", "+E", " f"),
			kind:  patch.KindAlreadyApplied, msg: []string{"chunk 1: already applied", "chunk 2: not applied yet"},
		},
		{
			name:  "eof_insertion_resent_refused",
			files: map[string]string{"a.txt": "hello\nworld\nlast\n"},
			patch: apText("*** Update File: a.txt", "@@", " world", "+last", "*** End of File"),
			kind:  patch.KindAlreadyApplied,
		},
		{
			name:  "insertion_at_start",
			files: map[string]string{"a.txt": "hello\nworld\n"},
			patch: apText("*** Update File: a.txt", "@@", "+first", " hello"),
			want:  map[string]string{"a.txt": "first\nhello\nworld\n"},
		},
		{
			name:  "empty_file_append",
			files: map[string]string{"a.txt": ""},
			patch: apText("*** Update File: a.txt", "@@", "+b", "*** End of File"),
			want:  map[string]string{"a.txt": "b\n"},
		},
		{
			name:  "empty_file_context_not_found",
			files: map[string]string{"a.txt": ""},
			patch: apText("*** Update File: a.txt", "@@", " a", "+b"),
			kind:  patch.KindNotFound, msg: []string{"The file is empty"},
		},
		{
			name:  "no_final_newline_kept",
			files: map[string]string{"a.txt": "a\nb"},
			patch: apText("*** Update File: a.txt", "@@", " a", "-b", "+c"),
			want:  map[string]string{"a.txt": "a\nc"},
		},
		{
			name:  "mixed_endings_dominant_for_inserted",
			files: map[string]string{"a.txt": "a\r\nb\nc\r\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "-b", "+B", "+B2", " c"),
			want:  map[string]string{"a.txt": "a\r\nB\r\nB2\r\nc\r\n"},
		},
		{
			name:  "bom_kept_when_first_line_replaced",
			files: map[string]string{"a.txt": "\ufeffa\nb\n"},
			patch: apText("*** Update File: a.txt", "@@", "-a", "+z", " b"),
			want:  map[string]string{"a.txt": "\ufeffz\nb\n"},
		},
		{
			// Cyrillic а in the file, Latin a in the patch: not a ladder match, the removed
			// line changed.
			name:  "lookalike_removed_line_refused",
			files: map[string]string{"a.txt": "x\nconst \u0430 = 1\ny\n"},
			patch: apText("*** Update File: a.txt", "@@", " x", "-const a = 1", "+const a = 2", " y"),
			kind:  patch.KindNotFound, msg: []string{"changed since the patch was written"},
		},
		{
			name:  "near_duplicate_context_edited_refused",
			files: map[string]string{"a.py": "def f():\n    x = 1\n    return x\n\ndef g():\n    x = 1\n    return x + 1\n"},
			patch: apText("*** Update File: a.py", "@@", " def g():", "-    x = 1", "+    x = 2", "     return x + 2"),
			kind:  patch.KindNotFound,
		},
		{
			name:  "delete_then_add_same_path",
			files: map[string]string{"a.txt": "a\n"},
			patch: apText("*** Delete File: a.txt", "*** Add File: a.txt", "+new"),
			want:  map[string]string{"a.txt": "new\n"},
		},
		{
			name:  "move_onto_itself",
			files: map[string]string{"a.txt": "a\nb\n"},
			patch: apText("*** Update File: a.txt", "*** Move to: a.txt", "@@", " a", "-b", "+c"),
			want:  map[string]string{"a.txt": "a\nc\n"},
		},
		{
			name:  "update_of_directory_refused_as_missing_file",
			files: map[string]string{"d/": ""},
			patch: apText("*** Update File: d", "@@", "-a", "+b"),
			want:  map[string]string{}, // directories are not listed
			kind:  patch.KindMissingFile, msg: []string{"is a directory"},
		},
		{
			name:  "add_under_a_file_refused",
			files: map[string]string{"f": "x\n"},
			patch: apText("*** Add File: f/g", "+b"),
			kind:  patch.KindPathConflict,
		},
	})
}
