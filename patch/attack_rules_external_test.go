package patch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// TestAttackSameChunks attacks the rule for identical chunks at as many places: each case is
// an input where taking the places in patch order could write what the patch's author did not
// mean; the library must refuse it or write what a 3-way merge would give.
func TestAttackSameChunks(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	block := func(name string) string {
		return lines("func "+name+"() {", "\tgot := run()", "\twant := 1", "\tcheck(got, want)", "}", "")
	}
	same := []string{"@@", " \tgot := run()", "-\twant := 1", "+\twant := 2", " \tcheck(got, want)"}
	done := func(s string) string { return strings.ReplaceAll(s, "\twant := 1\n", "\twant := 2\n") }
	mid := lines("func mid() int {", "\treturn 1", "}", "")
	other := []string{"@@", " func mid() int {", "-\treturn 1", "+\treturn 2"}
	sec := func(chunks ...[]string) string {
		ls := []string{"*** Update File: t.go"}
		for _, c := range chunks {
			ls = append(ls, c...)
		}
		return apText(ls...)
	}
	var many, manyChunks []string
	for i := range 2000 {
		many = append(many, block(fmt.Sprint("T", i)))
		manyChunks = append(manyChunks, same...)
	}
	apRun(t, []apCase{
		{
			// Degenerate size: 2,000 same chunks at 2,000 places all apply; one chunk fewer is
			// refused.
			name:  "two_thousand_same_chunks_at_as_many_places",
			files: map[string]string{"t.go": strings.Join(many, "")},
			patch: sec(manyChunks),
			want:  map[string]string{"t.go": done(strings.Join(many, ""))},
		},
		{
			name:  "two_thousand_places_one_chunk_fewer_refused",
			files: map[string]string{"t.go": strings.Join(many, "")},
			patch: sec(manyChunks[len(same):]),
			kind:  patch.KindAmbiguous,
			msg:   []string{"chunk 1 matches 2000 places"},
		},
		{
			// Both chunks name f in a second anchor the file has (the first anchor is gone):
			// the author's version had both places in f, so they are not the file's f and g.
			// Not same chunks; refused.
			name: "second_anchor_in_the_file_keeps_chunks_apart_refused",
			files: map[string]string{"t.go": lines("func f() {", "\tgot := run()", "\twant := 1", "\tcheck(got, want)", "}",
				"func g() {", "\tgot := run()", "\twant := 1", "\tcheck(got, want)", "}")},
			patch: sec([]string{"@@ type Gone struct{}", "@@ func f() {"}, same[1:], []string{"@@ type Gone struct{}", "@@ func f() {"}, same[1:]),
			kind:  patch.KindAmbiguous,
		},
		{
			// Patch order: same chunk, mid's chunk, same chunk; the file has both places above
			// mid. The second same chunk's place is above where mid's chunk left the search
			// (the patch may mean a place below mid the file no longer has): refused.
			name:  "same_chunks_around_a_chunk_placed_below_both_refused",
			files: map[string]string{"t.go": block("A") + block("B") + mid},
			patch: sec(same, other, same),
			kind:  patch.KindAmbiguous,
			msg:   []string{"chunk 3 matches 2 places"},
		},
		{
			name:  "same_chunks_both_after_another_chunk",
			files: map[string]string{"t.go": mid + block("A") + block("B")},
			patch: sec(other, same, same),
			want:  map[string]string{"t.go": strings.Replace(mid, "return 1", "return 2", 1) + done(block("A")+block("B"))},
		},
		{
			name:  "same_chunks_crlf_file",
			files: map[string]string{"t.go": strings.ReplaceAll(block("A")+block("B"), "\n", "\r\n")},
			patch: sec(same, same),
			want:  map[string]string{"t.go": strings.ReplaceAll(done(block("A")+block("B")), "\n", "\r\n")},
		},
		{
			// A chunk after the same chunks whose window overlaps the second place.
			name:  "chunk_overlapping_the_second_same_place_refused",
			files: map[string]string{"t.go": block("A") + block("B")},
			patch: sec(same, same, []string{"@@", " \tcheck(got, want)", "-}", "+}", " ", "-func B() {", "+func B2() {"}),
			kind:  patch.KindOverlap,
			msg:   []string{"chunks 1 and 3"},
		},
		{
			// Two sections for one file, each with one copy of the chunk.
			name:  "same_chunk_in_two_sections_refused",
			files: map[string]string{"t.go": block("A") + block("B")},
			patch: apText(append(append(append([]string{"*** Update File: t.go"}, same...), "*** Update File: t.go"), same...)...),
			kind:  patch.KindAmbiguous,
		},
		{
			// Pure insertion: the added line is nowhere yet, two places, two chunks.
			name:  "same_insertion_chunks",
			files: map[string]string{"t.go": block("A") + block("B")},
			patch: sec([]string{"@@", " \tgot := run()", "+\tlog(got)", " \twant := 1"}, []string{"@@", " \tgot := run()", "+\tlog(got)", " \twant := 1"}),
			want:  map[string]string{"t.go": strings.ReplaceAll(block("A")+block("B"), "\tgot := run()\n", "\tgot := run()\n\tlog(got)\n")},
		},
		{
			// Insertion made at one of three places already: the new side is in the file.
			name:  "same_insertion_made_at_one_of_three_refused",
			files: map[string]string{"t.go": strings.Replace(block("A"), "\tgot := run()\n", "\tgot := run()\n\tlog(got)\n", 1) + block("B") + block("C")},
			patch: sec([]string{"@@", " \tgot := run()", "+\tlog(got)", " \twant := 1"}, []string{"@@", " \tgot := run()", "+\tlog(got)", " \twant := 1"}),
			kind:  patch.KindAmbiguous,
		},
		{
			// Blank and bracket lines only as context: places by punctuation.
			name:  "same_chunks_of_blank_context",
			files: map[string]string{"t.go": lines("}", "", "x", "}", "", "x")},
			patch: sec([]string{"@@", " }", " ", "-x", "+y"}, []string{"@@", " }", " ", "-x", "+y"}),
			want:  map[string]string{"t.go": lines("}", "", "y", "}", "", "y")},
		},
		{
			// End-of-file chunks are not grouped: refused.
			name:  "same_chunks_end_of_file_refused",
			files: map[string]string{"t.go": block("A") + block("B")},
			patch: sec([]string{"@@", " \tcheck(got, want)", " }", "-", "+// end", "*** End of File"}, []string{"@@", " \tcheck(got, want)", " }", "-", "+// end", "*** End of File"}),
			kind:  patch.KindOverlap,
		},
	})
}

// TestAttackChunkPartlyApplied attacks the rule for a chunk partly applied itself.
func TestAttackChunkPartlyApplied(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	f := lines("func f() {", "\ta := 1", "\tb := 2", "\tc := 3", "}")
	chunk := []string{"@@", " func f() {", "-\ta := 1", "+\ta := 10", " \tb := 2", "-\tc := 3", "+\tc := 30", " }"}
	aDone := strings.Replace(f, "\ta := 1\n", "\ta := 10\n", 1)
	whole := strings.Replace(aDone, "\tc := 3\n", "\tc := 30\n", 1)
	sec := func(chunks ...[]string) string {
		ls := []string{"*** Update File: p.go"}
		for _, c := range chunks {
			ls = append(ls, c...)
		}
		return apText(ls...)
	}
	apRun(t, []apCase{
		{
			// The chunk was meant for f, whose first change was made another way (logf); h
			// looks like the chunk with that change made. The change left (save → store)
			// stands between the same lines in f and h, so which one it is meant for is not
			// known: refused (no reading of the chunk is certain; LCS then finds f and h alike).
			name: "lookalike_block_with_the_change_made_refused",
			files: map[string]string{"t.go": "func f() {\n\tx := load()\n\tlogf(x)\n\tcheck(x)\n\tsave(x)\n\tdone()\n}\n\n" +
				"func h() {\n\tx := load()\n\tlog.Print(x)\n\tcheck(x)\n\tsave(x)\n\tdone()\n}\n"},
			patch: apText("*** Update File: t.go", "@@", " \tx := load()", "-\tlog(x)", "+\tlog.Print(x)", " \tcheck(x)", "-\tsave(x)", "+\tstore(x)", " \tdone()"),
			kind:  patch.KindAmbiguous, // the LCS rescue after it finds two windows
		},
		{
			// The change taken as made removes a blank line: the first block still has it
			// between the same lines (a(), blank, c()), so that block may be the chunk's,
			// with d() edited since. Refused.
			name:  "made_change_removing_a_blank_line_still_in_the_file_refused",
			files: map[string]string{"t.go": lines("a()", "", "c()", "d2()", "e()", "", "a()", "b()", "c()", "d()", "e()")},
			patch: apText("*** Update File: t.go", "@@", " a()", "-", "+b()", " c()", "-d()", "+D()", " e()"),
			kind:  patch.KindAmbiguous, // the LCS rescue after it finds two windows
		},
		{
			name:  "crlf_file_partly_applied",
			files: map[string]string{"p.go": strings.ReplaceAll(aDone, "\n", "\r\n")},
			patch: sec(chunk),
			want:  map[string]string{"p.go": strings.ReplaceAll(whole, "\n", "\r\n")},
		},
		{
			// The same chunk twice: one copy at one place as written, the other at a place with
			// a's change made; a 3-way merge gives both places changed.
			name:  "same_chunk_twice_one_place_partly_applied",
			files: map[string]string{"p.go": aDone + f},
			patch: sec(chunk, chunk),
			kind:  patch.KindOverlap,
		},
		{
			// Two sections for one file: the first makes a's change, the second is the whole
			// chunk again (written for the file before the first).
			name:  "two_sections_second_repeats_the_first_change",
			files: map[string]string{"p.go": f},
			patch: apText(append([]string{"*** Update File: p.go", "@@", " func f() {", "-\ta := 1", "+\ta := 10", " \tb := 2", "*** Update File: p.go"}, chunk...)...),
			want:  map[string]string{"p.go": whole},
		},
		{
			// c's change was made by someone else in another way: neither of c's forms is there.
			name:  "other_change_made_differently_refused",
			files: map[string]string{"p.go": strings.Replace(aDone, "\tc := 3\n", "\tc := 31\n", 1)},
			patch: sec(chunk),
			kind:  patch.KindNotFound,
		},
		{
			// The same chunk twice meaning the change twice, two places; one place has a made,
			// the other has c made: each copy finds a different reading.
			name:  "same_chunk_twice_different_changes_made",
			files: map[string]string{"p.go": aDone + strings.Replace(f, "\tc := 3\n", "\tc := 30\n", 1)},
			patch: sec(chunk, chunk),
			kind:  patch.KindAmbiguous,
		},
		{
			// Out of order: the partly applied chunk's place is above the place of the chunk
			// before it in the patch.
			name:  "partly_applied_above_the_previous_chunk",
			files: map[string]string{"p.go": aDone + lines("func g() {", "\tx := 1", "}")},
			patch: sec([]string{"@@", " func g() {", "-\tx := 1", "+\tx := 2"}, chunk),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 2: partly applied at line 1", "nothing was written"},
		},
		{
			// The made change adds a line equal to the context line above it: a second copy
			// or the change made?
			name:  "made_change_repeats_its_context_line",
			files: map[string]string{"p.go": lines("x", "x", "y", "w")},
			patch: sec([]string{"@@", " x", "+x", " y", "-w", "+W", " z"}),
			kind:  patch.KindNotFound,
		},
		{
			// Made change's added line also present elsewhere (moved there): the insertion
			// proves nothing beyond being a line.
			name:  "made_insertion_and_other_change",
			files: map[string]string{"p.go": lines("a", "log()", "b", "c", "d")},
			patch: sec([]string{"@@", " a", "+log()", " b", "-c", "+C", " d"}),
			want:  map[string]string{"p.go": lines("a", "log()", "b", "C", "d")},
		},
		{
			// Re-sent after a whole write, file edited since (c's line changed again): refused.
			name:  "resent_after_whole_write_edited_since_refused",
			files: map[string]string{"p.go": strings.Replace(whole, "\tc := 30\n", "\tc := 300\n", 1)},
			patch: sec(chunk),
			kind:  patch.KindNotFound,
		},
		{
			// Partly applied chunk overlapping a chunk before it.
			name:  "partly_applied_overlapping_the_chunk_before_refused",
			files: map[string]string{"p.go": lines("x", "func f() {", "\ta := 10", "\tb := 2", "\tc := 3", "}")},
			patch: sec([]string{"@@", " x", " func f() {", "-\ta := 1", "+\ta := 11"}, chunk),
			kind:  patch.KindNotFound,
		},
		{
			// The change taken as made is an insertion of a line equal to the next one: the
			// file's "a", "b" is also the insertion not made, so whether it is made is not
			// known. Refused whole.
			name:  "insertion_between_repeated_lines_refused",
			files: map[string]string{"p.go": lines("a", "b", "b", "c", "e")},
			patch: sec([]string{"@@", " a", "+b", " b", "-c", "+d", " e"}),
			kind:  patch.KindNotFound,
			msg:   []string{"Failed to find expected lines"},
		},
		{
			// The same chunk twice, one place partly applied, the other applied whole: the
			// chunk is found applied; refused whole, nothing written.
			name:  "same_chunk_twice_one_place_partly_one_whole_refused",
			files: map[string]string{"p.go": aDone + whole},
			patch: sec(chunk, chunk),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 1: already applied", "nothing was written"},
		},
		{
			// The same chunk twice, both places with the same change made: the reading
			// matches two places.
			name:  "same_chunk_twice_both_places_partly_applied_same_way_refused",
			files: map[string]string{"p.go": aDone + aDone},
			patch: sec(chunk, chunk),
			kind:  patch.KindAmbiguous,
		},
		{
			// The same chunk twice meaning the change twice, one place only, partly applied:
			// the second copy has no place; refused whole.
			name:  "same_partly_applied_chunk_twice_one_place_refused",
			files: map[string]string{"p.go": aDone},
			patch: sec(chunk, chunk),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 1: partly applied at line 1", "chunk 2: cannot be placed"},
		},
	})
}
