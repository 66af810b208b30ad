package patch_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// noteWith checks that chunk k's report (1-based) has a note containing every substring.
func noteWith(k int, subs ...string) func(t *testing.T, res *patch.Result, err error) {
	return func(t *testing.T, res *patch.Result, err error) {
		t.Helper()
		if res == nil || len(res.Report) < k {
			t.Fatalf("no report for chunk %d: %+v", k, res)
		}
		notes := res.Report[k-1].Notes
		if !slices.ContainsFunc(notes, func(n string) bool {
			for _, s := range subs {
				if !strings.Contains(n, s) {
					return false
				}
			}
			return true
		}) {
			t.Errorf("chunk %d notes %q: none contains %q", k, notes, subs)
		}
	}
}

const hintFile = "package p\n\nfunc handleUser(w io.Writer) {\n\tx := load()\n\treturn x\n}\n\nfunc other() {\n\ty := 2\n}\n"

// TestAnchorHint: an @@ anchor is a hint when the chunk's own lines place it uniquely in the
// whole file, by the rules of a chunk without an anchor.
func TestAnchorHint(t *testing.T) {
	apRun(t, []apCase{
		{
			name:  "renamed_anchor",
			files: map[string]string{"p.go": hintFile},
			patch: apText("*** Update File: p.go", "@@ func handleUsers(w io.Writer) {", " \tx := load()", "-\treturn x", "+\treturn x + 1"),
			want:  map[string]string{"p.go": strings.Replace(hintFile, "\treturn x\n", "\treturn x + 1\n", 1)},
			check: noteWith(1, "anchor renamed", "func handleUsers", "file line 3", "func handleUser(w io.Writer) {"),
		},
		{
			name:  "missing_anchor_unique_chunk",
			files: map[string]string{"p.go": hintFile},
			patch: apText("*** Update File: p.go", "@@ class Unrelated:", " \tx := load()", "-\treturn x", "+\treturn x + 1"),
			want:  map[string]string{"p.go": strings.Replace(hintFile, "\treturn x\n", "\treturn x + 1\n", 1)},
			check: noteWith(1, "anchor not found", "class Unrelated:", "unique in the file"),
		},
		{
			name:  "missing_anchor_chunk_matches_twice",
			files: map[string]string{"p.go": hintFile + "\nfunc third() {\n\tx := load()\n\treturn x\n}\n"},
			patch: apText("*** Update File: p.go", "@@ func handleUsers(w io.Writer) {", " \tx := load()", "-\treturn x", "+\treturn x + 1"),
			kind:  patch.KindAmbiguous,
			msg:   []string{"Failed to find context 'func handleUsers(w io.Writer) {' in p.go", "do not place it either", "matches 2 places", "file lines 4, 13"},
		},
		{
			name:  "missing_anchor_chunk_matches_nowhere",
			files: map[string]string{"p.go": hintFile},
			patch: apText("*** Update File: p.go", "@@ func gone() {", " \tz := 9", "-\treturn z", "+\treturn z + 1"),
			kind:  patch.KindNotFound,
			msg:   []string{"Failed to find context 'func gone() {' in p.go", "do not place it either"},
		},
		{
			// Without an anchor a chunk must be unique over the whole file, also above the
			// chunk before it: here its lines are once above chunk 1 and once below.
			name:  "missing_anchor_second_chunk_twice_around_the_first",
			files: map[string]string{"p.go": "a\nb\nmid\nx\ny\nz\nend\na\nb\n"},
			patch: apText("*** Update File: p.go", "@@", " x", "-y", "+Y", "@@ gone", " a", "-b", "+B"),
			kind:  patch.KindAmbiguous,
		},
		{
			// The found first anchor narrows nothing once the second is missing: the chunk is
			// sought from the cursor as if it had no anchor.
			name:  "stacked_first_found_second_missing_unique",
			files: map[string]string{"a.py": "class A:\n    def n():\n        return 1\nclass B:\n    def k():\n        return 3\n"},
			patch: apText("*** Update File: a.py", "@@ class B:", "@@     def m():", "-        return 3", "+        return 4"),
			want:  map[string]string{"a.py": "class A:\n    def n():\n        return 1\nclass B:\n    def k():\n        return 4\n"},
			check: noteWith(1, "anchor renamed", "def k():"),
		},
		{
			// An anchor on two lines, after each of which the chunk's lines are at a different
			// place: Codex takes the first, which is a guess.
			name:  "anchor_twice_chunk_follows_each_elsewhere",
			files: map[string]string{"p.go": "func a() {\n\tx\n}\nfunc a() {\n\tx\n}\n"},
			patch: apText("*** Update File: p.go", "@@ func a() {", "-\tx", "+\ty"),
			kind:  patch.KindAmbiguous,
			msg:   []string{"Ambiguous context 'func a() {' in p.go", "file lines 2 and 5"},
		},
		{
			// Both anchor lines lead to the same place: no choice to make.
			name:  "anchor_twice_chunk_follows_both_at_one_place",
			files: map[string]string{"p.go": "func a() {\n// func a() {\nfunc a() {\n\tx\n}\n"},
			patch: apText("*** Update File: p.go", "@@ func a() {", "-\tx", "+\ty"),
			want:  map[string]string{"p.go": "func a() {\n// func a() {\nfunc a() {\n\ty\n}\n"},
		},
		{
			// Codex compatibility keeps Codex's rule: a missing anchor fails the chunk.
			name:  "codex_compat_missing_anchor_refused",
			files: map[string]string{"p.go": hintFile},
			opts:  []patch.Option{patch.WithCodexCompat()},
			patch: apText("*** Update File: p.go", "@@ func handleUsers(w io.Writer) {", " \tx := load()", "-\treturn x", "+\treturn x + 1"),
			kind:  patch.KindNotFound,
			msg:   []string{"Failed to find context 'func handleUsers(w io.Writer) {' in p.go"},
		},
		{
			// A removed line that changed since is never rescued, anchor or not.
			name:  "missing_anchor_removed_line_changed",
			files: map[string]string{"p.go": strings.Replace(hintFile, "\treturn x\n", "\treturn x // now\n", 1)},
			patch: apText("*** Update File: p.go", "@@ func handleUsers(w io.Writer) {", "-\treturn x", "+\treturn x + 1"),
			kind:  patch.KindNotFound,
			msg:   []string{"Failed to find context 'func handleUsers(w io.Writer) {' in p.go"},
		},
	})
}
