package patch_test

import (
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// TestChunksOutOfPatchOrder: a placement found by a rescue never puts chunks in the reverse of
// the patch's order; chunks whose lines match as written (unique in the file) still may.
func TestChunksOutOfPatchOrder(t *testing.T) {
	// Two blocks that hold the same line; the other edit swapped them and rewrote the first
	// context line of beta, so chunk 2 is only found by leaving that line out.
	swapped := "start\nbeta one\nbeta two\nx = 1\nbeta three\nmid\nalpha one\nalpha two\nx = 1\nalpha three\nend\n"
	inOrder := "start\nalpha one\nalpha two\nx = 1\nalpha three\nmid\nbeta one\nbeta two\nx = 1\nbeta three\nend\n"
	alpha := []string{"@@", " alpha one", " alpha two", "-x = 1", "+x = 2", " alpha three"}
	betaStale := []string{"@@", " beta zero", " beta two", "-x = 1", "+x = 2", " beta three"}
	beta := []string{"@@", " beta one", " beta two", "-x = 1", "+x = 2", " beta three"}
	patchOf := func(chunks ...[]string) string {
		lines := []string{"*** Update File: a.txt"}
		for _, c := range chunks {
			lines = append(lines, c...)
		}
		return apText(lines...)
	}
	cases := []apCase{
		{
			// Chunk 2, rescued, would land above chunk 1: refused, nothing written.
			name: "rescued_chunk_above_an_earlier_one_refused", files: map[string]string{"a.txt": swapped},
			patch: patchOf(alpha, betaStale),
			kind:  patch.KindAmbiguous,
			msg:   []string{"Out of order in a.txt: chunk 2 (stale-edges, file line 3) would land above chunk 1 (exact, file line 7)", "send the chunks as the file orders them"},
		},
		{
			// The same chunks in the order the file has them: the rescue is in order, applied.
			name: "rescued_chunk_in_order_applied", files: map[string]string{"a.txt": inOrder},
			patch: patchOf(alpha, betaStale),
			want:  map[string]string{"a.txt": strings.ReplaceAll(inOrder, "x = 1", "x = 2")},
			check: apWantStrategies(patch.StrategyExact, patch.StrategyStaleEdges),
		},
		{
			// An earlier chunk rescued below a later one that matches as written: refused too.
			name: "earlier_rescued_chunk_below_a_later_one_refused", files: map[string]string{"a.txt": strings.Replace(swapped, "beta one", "beta zero", 1)},
			patch: patchOf([]string{"@@", " alpha zero", " alpha two", "-x = 1", "+x = 2", " alpha three"}, betaStale),
			kind:  patch.KindAmbiguous,
			msg:   []string{"chunk 2 (exact, file line 2) would land above chunk 1 (stale-edges, file line 8)"},
		},
		{
			// Both chunks match as written and once each: their lines prove both places, the
			// reverse order is a model's slip (reported "out of order").
			name: "exact_chunks_reversed_applied", files: map[string]string{"a.txt": swapped},
			patch: patchOf(alpha, beta),
			want:  map[string]string{"a.txt": strings.ReplaceAll(swapped, "x = 1", "x = 2")},
			check: wantNote("out of order"),
		},
	}
	apRun(t, cases)
}
