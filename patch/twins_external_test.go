package patch_test

import (
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// TestSameChunksAtAsManyPlaces: chunks with the same lines, none able to choose its place, are
// applied when the file has exactly as many places for them as the patch has such chunks
// (every place gets the same change); any other count, or chunks that differ in what they add,
// stays ambiguous.
func TestSameChunksAtAsManyPlaces(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	test := func(name string) []string {
		return []string{"func " + name + "(t *testing.T) {", "\tgot := run()", "\twant := \"found \\\\u{0} byte\"", "\tcheck(t, got, want)", "}", ""}
	}
	file := func(names ...string) string {
		var ls []string
		for _, n := range names {
			ls = append(ls, test(n)...)
		}
		return lines(ls...)
	}
	same := []string{"@@", " \tgot := run()", "-\twant := \"found \\\\u{0} byte\"", "+\twant := \"found \\\\0 byte\"", " \tcheck(t, got, want)"}
	changed := func(s string) string {
		return strings.ReplaceAll(s, "\twant := \"found \\\\u{0} byte\"", "\twant := \"found \\\\0 byte\"")
	}
	mid := lines("func mid() int {", "\treturn 1", "}", "")
	other := []string{"@@", " func mid() int {", "-\treturn 1", "+\treturn 2"}
	twoChunks := apText(append(append([]string{"*** Update File: t.go"}, same...), same...)...)
	apRun(t, []apCase{
		{
			name:  "two_same_chunks_two_places_both_changed",
			files: map[string]string{"t.go": file("TestA", "TestB")},
			patch: twoChunks,
			want:  map[string]string{"t.go": changed(file("TestA", "TestB"))},
			check: func(t *testing.T, res *patch.Result, err error) {
				apWantStrategies(patch.StrategyExact, patch.StrategyExact)(t, res, err)
				noteWith(1, "same change at 2 places", "chunks 1, 2", "file line 2")(t, res, err)
				noteWith(2, "same change at 2 places", "file line 8")(t, res, err)
			},
		},
		{
			// An anchor that is nowhere in the file is a hint only: the chunk is one of the
			// same chunks as if it had none, and the report says the anchor was not found.
			name:  "same_chunk_with_an_anchor_not_in_the_file",
			files: map[string]string{"t.go": file("TestA", "TestB")},
			patch: apText(append(append([]string{"*** Update File: t.go"}, same...), append([]string{"@@ func TestGone(t *testing.T) {"}, same[1:]...)...)...),
			want:  map[string]string{"t.go": changed(file("TestA", "TestB"))},
			check: noteWith(2, "anchor"),
		},
		{
			// An anchor the file has keeps its chunk out of the same chunks: after it, the
			// chunk matches once and takes that place, so the other chunk's two places stay
			// a choice.
			name:  "same_chunk_with_an_anchor_in_the_file_refused",
			files: map[string]string{"t.go": file("TestA", "TestB")},
			patch: apText(append(append([]string{"*** Update File: t.go"}, same...), append([]string{"@@ func TestB(t *testing.T) {"}, same[1:]...)...)...),
			kind:  patch.KindAmbiguous,
			msg:   []string{"chunk 1 matches 2 places"},
		},
		{
			name:  "three_same_chunks_around_another_chunk",
			files: map[string]string{"t.go": file("TestA") + mid + file("TestB", "TestC")},
			patch: apText(append(append(append(append([]string{"*** Update File: t.go"}, same...), other...), same...), same...)...),
			want:  map[string]string{"t.go": changed(file("TestA")) + strings.Replace(mid, "1", "2", 1) + changed(file("TestB", "TestC"))},
		},
		{
			// Two chunks, three places: which place is left as it is would be a guess.
			name:  "two_same_chunks_three_places_refused",
			files: map[string]string{"t.go": file("TestA", "TestB", "TestC")},
			patch: twoChunks,
			kind:  patch.KindAmbiguous,
			msg:   []string{"chunk 1 matches 3 places"},
		},
		{
			name:  "one_chunk_two_places_refused",
			files: map[string]string{"t.go": file("TestA", "TestB")},
			patch: apText(append([]string{"*** Update File: t.go"}, same...)...),
			kind:  patch.KindAmbiguous,
			msg:   []string{"chunk 1 matches 2 places"},
		},
		{
			// The same old lines, different added lines: which place gets which would be a guess.
			name:  "same_old_lines_different_additions_refused",
			files: map[string]string{"t.go": file("TestA", "TestB")},
			patch: apText(append(append([]string{"*** Update File: t.go"}, same...),
				"@@", " \tgot := run()", "-\twant := \"found \\\\u{0} byte\"", "+\twant := \"found NUL byte\"", " \tcheck(t, got, want)")...),
			kind: patch.KindAmbiguous,
			msg:  []string{"chunk 1 matches 2 places"},
		},
		{
			// Two chunks, the old lines at two places, and the change already made at a third:
			// the patch may have been written for that one and one of the others; which is not
			// known.
			name:  "change_made_at_another_place_already_refused",
			files: map[string]string{"t.go": changed(file("TestA")) + file("TestB", "TestC")},
			patch: twoChunks,
			kind:  patch.KindAmbiguous,
		},
		{
			// Places that overlap: the change at one undoes the other's context.
			name:  "overlapping_places_refused",
			files: map[string]string{"t.go": lines("x", "x", "x", "y")},
			patch: apText("*** Update File: t.go", "@@", " x", "-x", "+z", "@@", " x", "-x", "+z"),
			kind:  patch.KindAmbiguous,
		},
		{
			// With an anchor each chunk is sought after its anchor, which must choose.
			name:  "same_chunks_with_an_ambiguous_anchor_refused",
			files: map[string]string{"t.go": file("TestA", "TestA")},
			patch: apText("*** Update File: t.go", "@@ func TestA(t *testing.T) {", same[1], same[2], same[3], same[4],
				"@@ func TestA(t *testing.T) {", same[1], same[2], same[3], same[4]),
			kind: patch.KindAmbiguous,
		},
	})
}
