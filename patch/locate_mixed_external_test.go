package patch_test

import (
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

const mixedBase = "package p\n\nfunc f() {\n\ta := 1\n\tb := 2\n\tc := 3\n}\n\nfunc g() {\n\tx := 1\n}\n"

// mixedPatch changes a and c in one chunk (two changes around the kept line b) and x in another.
var mixedPatch = apText("*** Update File: p.go",
	"@@", " func f() {", "-\ta := 1", "+\ta := 10", " \tb := 2", "-\tc := 3", "+\tc := 30", " }",
	"@@", " func g() {", "-\tx := 1", "+\tx := 100", " }")

// TestChunkPartlyApplied: a chunk some of whose changes are already in the file, and the others
// not, is applied for the changes that are missing when the chunk, read that way, matches one
// place only; the changes found made are reported and left as they are.
func TestChunkPartlyApplied(t *testing.T) {
	whole := strings.NewReplacer("\ta := 1\n", "\ta := 10\n", "\tc := 3\n", "\tc := 30\n", "\tx := 1\n", "\tx := 100\n").Replace(mixedBase)
	aDone := strings.Replace(mixedBase, "\ta := 1\n", "\ta := 10\n", 1)
	apRun(t, []apCase{
		{
			name:  "one_change_of_a_chunk_made_rest_applied_and_reported",
			files: map[string]string{"p.go": aDone},
			patch: mixedPatch,
			want:  map[string]string{"p.go": whole},
			check: func(t *testing.T, res *patch.Result, err error) {
				apWantStrategies(patch.StrategyExact, patch.StrategyExact)(t, res, err)
				noteWith(1, "partly applied", "1 of the chunk's 2 changes", "file line 4")(t, res, err)
				if r := res.Report[0]; r.Removed != 1 || r.Added != 1 {
					t.Errorf("report of the partly applied chunk: %+v", r)
				}
			},
		},
		{
			name:  "later_change_made_rest_applied",
			files: map[string]string{"p.go": strings.Replace(mixedBase, "\tc := 3\n", "\tc := 30\n", 1)},
			patch: mixedPatch,
			want:  map[string]string{"p.go": whole},
			check: noteWith(1, "partly applied", "file line 6"),
		},
		{
			name:  "partly_applied_chunk_beside_a_chunk_already_applied",
			files: map[string]string{"p.go": strings.Replace(aDone, "\tx := 1\n", "\tx := 100\n", 1)},
			patch: mixedPatch,
			want:  map[string]string{"p.go": whole},
			check: apWantStrategies(patch.StrategyExact, patch.StrategyAlreadyApplied),
		},
		{
			// Read with a's change made, the chunk matches in f and in h: which one the patch
			// means is not known.
			name:  "partly_applied_reading_at_two_places_refused",
			files: map[string]string{"p.go": aDone + "\nfunc h() {\n\ta := 10\n\tb := 2\n\tc := 3\n}\n"},
			patch: apText("*** Update File: p.go", "@@", " {", "-\ta := 1", "+\ta := 10", " \tb := 2", "-\tc := 3", "+\tc := 30", " }"),
			kind:  patch.KindNotFound,
		},
		{
			// a's removed line is still in the file elsewhere: the change that replaced it is
			// not proven made (the line may have moved).
			name:  "made_change_removed_line_still_elsewhere_refused",
			files: map[string]string{"p.go": aDone + "\nfunc h() {\n\ta := 1\n}\n"},
			patch: apText("*** Update File: p.go", "@@", " func f() {", "-\ta := 1", "+\ta := 10", " \tb := 2", "-\tc := 3", "+\tc := 30", " }"),
			kind:  patch.KindNotFound,
		},
		{
			// The change found made adds a closing bracket only: that proves nothing.
			name:  "made_change_of_punctuation_refused",
			files: map[string]string{"p.go": "a\n}\nb\nc\nd\n"},
			patch: apText("*** Update File: p.go", "@@", " a", "-)", "+}", " b", "-c", "+C", " d"),
			kind:  patch.KindNotFound,
		},
		{
			// The change found made ends the chunk (no context line after it): whether the
			// patch means its lines a second time is not known.
			name:  "made_change_at_chunk_end_refused",
			files: map[string]string{"p.go": "a\nb\nc\nd\nE\n"},
			patch: apText("*** Update File: p.go", "@@", " a", "-b", "+B", " c", " d", "-e", "+E"),
			kind:  patch.KindNotFound,
		},
		{
			// Both changes made: the chunk is already applied (not partly).
			name:  "every_change_made_already_applied",
			files: map[string]string{"p.go": whole},
			patch: mixedPatch,
			kind:  patch.KindAlreadyApplied,
		},
		{
			// The rest of the patch cannot be placed: refused whole, and the message names the
			// partly applied chunk.
			name:  "partly_applied_rest_not_found_refused_whole",
			files: map[string]string{"p.go": strings.Replace(aDone, "func g() {", "func g() error {", 1)},
			patch: mixedPatch,
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 1: partly applied at line 3", "chunk 2: cannot be placed (not_found)", "nothing was written"},
		},
		{
			// The rest places only by a rescue (a stale-edges one: the header's last context
			// line was deleted): in a file that holds part of the change, drifted lines may be
			// more of it; refused whole.
			name: "partly_applied_rest_by_rescue_refused_whole",
			files: map[string]string{"p.rs": "use std::io::{self, IsTerminal};\n\nuse termcolor::{self, HyperlinkSpec};\n\n" +
				"/// A writer that supports coloring with either line or block buffering.\npub struct StandardStream(StandardStreamKind);\n\n" +
				"fn f() {\n\ta := 10\n\tb := 2\n\tc := 3\n}\n"},
			patch: apText("*** Update File: p.rs",
				"@@", " use std::io::{self, IsTerminal};", " ", "-use termcolor::{self, HyperlinkSpec};", "+use termcolor::HyperlinkSpec;",
				" ", " /// A writer that supports coloring with either line or block buffering.", " #[derive(Debug)]",
				"@@", " fn f() {", "-\ta := 1", "+\ta := 10", " \tb := 2", "-\tc := 3", "+\tc := 30", " }"),
			kind: patch.KindAlreadyApplied,
			msg:  []string{"chunk 1: not applied yet", "chunk 2: partly applied at line 8", "nothing was written"},
		},
		{
			// Chunk 1 matches as written, but read with its first change made (an added line
			// equal to the context line above it) it matches too, beside that window: in a file
			// that holds part of the change it may be partly applied itself; refused whole.
			name:  "rest_matches_also_with_a_change_made_refused_whole",
			files: map[string]string{"p.go": "x\nx\ny\nw\n" + aDone},
			patch: apText(append([]string{"*** Update File: p.go", "@@", " x", "+x", " y", "+z", " w"}, mixedPatch[strings.Index(mixedPatch, "@@"):strings.LastIndex(mixedPatch, "@@")-1])...),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 1: not applied yet", "chunk 2: partly applied"},
		},
		{
			name:  "codex_compat_refuses",
			files: map[string]string{"p.go": aDone},
			patch: mixedPatch,
			opts:  []patch.Option{patch.WithCodexCompat()},
			kind:  patch.KindNotFound,
		},
		{
			// A chunk that removes a closing bracket next to an equal one: its new side is in
			// the file, but so is the chunk with that removal not made, overlapping it; the
			// chunk is not taken as applied whole (the bracket would stay).
			name:  "new_side_found_but_equal_removal_left_refused",
			files: map[string]string{"p.go": "}\n}\nfunc f() {\n\tchanged()\n\tstmt(2)\n}\nx\ny\n"},
			patch: apText("*** Update File: p.go",
				"@@", " }", "-}", " func f() {", "+\tchanged()", "-\tstmt(1)", " \tstmt(2)",
				"@@", " x", "-y", "+Y"),
			kind: patch.KindAlreadyApplied,
			msg:  []string{"chunk 1: already applied at line 2", "chunk 2: not applied yet"},
		},
	})
}
