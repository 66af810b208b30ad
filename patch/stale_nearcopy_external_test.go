package patch_test

import (
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// TestNearCopyRuledOutByOrder: a stale-edges placement whose lines also resemble another
// place is applied only when a chunk of the patch whose own place is certain lies between the
// two, so that the other place would put the chunks out of the patch's order.
func TestNearCopyRuledOutByOrder(t *testing.T) {
	// Three tests; the other edit joined "program" and ".option(...)" on one line in each. The
	// first two hold near copies of each other's lines.
	file := strings.Join([]string{
		"test('has foo', () => {", // 1
		"  program.option('--foo');",
		"",
		"  expect(program.usage()).toMatch('[options]');",
		"});", // 5
		"",
		"test('has bar', () => {",
		"  program.option('--bar');",
		"",
		"  expect(program.usage()).not.toMatch('[options]');", // 10
		"});",
		"",
		"test('has baz', () => {",
		"  const n = program.commands.length;",
		"  assert.equal(n, 0);", // 15
		"});",
		"",
	}, "\n")
	foo := []string{"@@", "   program", "     .option('--foo');", " ",
		"-  expect(program.usage()).toMatch('[options]');", "+  assert.match(program.usage(), /\\[options\\]/);",
		" });", " ", " test('has bar', () => {"}
	bar := []string{"@@", "   program", "     .option('--bar');", " ",
		"-  expect(program.usage()).not.toMatch('[options]');", "+  assert.doesNotMatch(program.usage(), /\\[options\\]/);",
		" });", " ", " test('has baz', () => {"}
	barOption := []string{"@@", "-  program.option('--bar');", "+  program.option('--bar', 'B');"}
	baz := []string{"@@", "-  assert.equal(n, 0);", "+  assert.equal(n, 1);"}
	fooDone := strings.Replace(file, "expect(program.usage()).toMatch('[options]');", "assert.match(program.usage(), /\\[options\\]/);", 1)
	barDone := strings.Replace(file, "expect(program.usage()).not.toMatch('[options]');", "assert.doesNotMatch(program.usage(), /\\[options\\]/);", 1)
	both := strings.Replace(fooDone, "expect(program.usage()).not.toMatch('[options]');", "assert.doesNotMatch(program.usage(), /\\[options\\]/);", 1)
	patchOf := func(chunks ...[]string) string {
		lines := []string{"*** Update File: t.js"}
		for _, c := range chunks {
			lines = append(lines, c...)
		}
		return apText(lines...)
	}
	files := map[string]string{"t.js": file}
	apRun(t, []apCase{
		{
			// The copy of foo's lines (file lines 9-13) has nothing of the patch between it and
			// file lines 3-7: where foo goes is a guess.
			name: "near_copy_alone_refused", files: files,
			patch: patchOf(foo),
			kind:  patch.KindAmbiguous,
			msg:   []string{"chunk 1, with outer context lines left out, matches file lines 3-7 and resembles file lines 9-13"},
		},
		{
			// A later chunk, placed as written and unique, lies between: foo at file line 9
			// would come after it.
			name: "near_copy_below_ruled_out_by_a_later_chunk_between", files: files,
			patch: patchOf(foo, barOption),
			want:  map[string]string{"t.js": strings.Replace(fooDone, "program.option('--bar');", "program.option('--bar', 'B');", 1)},
			check: apWantStrategies(patch.StrategyStaleEdges, patch.StrategyExact),
		},
		{
			// The later chunk lies beyond the copy: foo at the copy would still be in order.
			name: "near_copy_below_later_chunk_beyond_it_refused", files: files,
			patch: patchOf(foo, baz),
			kind:  patch.KindAmbiguous,
			msg:   []string{"resembles file lines 9-13"},
		},
		{
			// An earlier chunk between the copy (file lines 3-7) and bar's place rules it out.
			name: "near_copy_above_ruled_out_by_an_earlier_chunk_between", files: files,
			patch: patchOf(barOption, bar),
			want:  map[string]string{"t.js": strings.Replace(barDone, "program.option('--bar');", "program.option('--bar', 'B');", 1)},
			check: apWantStrategies(patch.StrategyExact, patch.StrategyStaleEdges),
		},
		{
			// Each rescued chunk is the other's near copy; together, in the patch's order, each
			// place is the only one left.
			name: "two_rescued_chunks_rule_out_each_others_copy", files: files,
			patch: patchOf(foo, bar),
			want:  map[string]string{"t.js": both},
			check: apWantStrategies(patch.StrategyStaleEdges, patch.StrategyStaleEdges),
		},
		{
			// The chunk between is placed after its anchor, but its lines are also elsewhere in
			// the file: its place depends on where foo went, so it proves nothing.
			name:  "near_copy_ruled_out_only_by_an_unproven_chunk_refused",
			files: map[string]string{"t.js": strings.Replace(file, "  const n = program.commands.length;", "  program.option('--bar');", 1)},
			patch: patchOf(foo, []string{"@@ test('has bar', () => {", "-  program.option('--bar');", "+  program.option('--bar', 'B');"}),
			kind:  patch.KindAmbiguous,
			msg:   []string{"resembles file lines 9-13"},
		},
	})
}
