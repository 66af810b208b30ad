package patch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// propRescuedOrder: a file of blocks that each hold the same line "x = 1" among lines of their
// own; the patch changes that line in some blocks, one chunk each, in block order. Behind the
// model's back the blocks may have been permuted and a context line of one chunk rewritten
// (so that chunk needs a rescue). Whatever is written must be the file with "x = 1" changed in
// exactly the blocks the chunks name, and a chunk placed by a rescue never lands in the
// reverse of the patch's order with another chunk; a refusal writes nothing.
//
// With lookalike, the blocks' own lines resemble each other ("b0 line 1", "b1 line 1"), so
// every block is a near copy of every other: the stale-edges rescue then places a chunk only
// where the patch's order, through the other chunks, rules the copies out.
func propRescuedOrder(t *rapid.T, outcomes map[string]int, lookalike bool) {
	nb := rapid.IntRange(2, 5).Draw(t, "blocks")
	blocks := make([][]string, nb)
	shared := make([]int, nb) // index of "x = 1" in each block
	for b := range blocks {
		n := rapid.IntRange(4, 7).Draw(t, "block_len")
		shared[b] = rapid.IntRange(1, n-1).Draw(t, "shared_at")
		for j := range n {
			l := orderWord(b*8 + j)
			if lookalike {
				l = fmt.Sprintf("b%d line %d", b, j)
			}
			blocks[b] = append(blocks[b], l)
		}
		blocks[b] = slices.Insert(blocks[b], shared[b], "x = 1")
	}
	// The chunks: a subset of two or more blocks, in block order.
	var chosen []int
	for b := range nb {
		if rapid.Bool().Draw(t, "chosen") {
			chosen = append(chosen, b)
		}
	}
	if len(chosen) < 2 {
		t.Skip("fewer than two chunks")
	}
	w := rapid.IntRange(2, 3).Draw(t, "context")
	var text strings.Builder
	text.WriteString("*** Begin Patch\n*** Update File: f.txt\n")
	stale := rapid.IntRange(-1, 2*len(chosen)-1).Draw(t, "stale_chunk") % len(chosen) // -1: none
	type ctx struct{ b, i int }                                                       // the rewritten context line
	rewritten := ctx{-1, -1}
	for c, b := range chosen {
		lo, hi := max(0, shared[b]-w), min(len(blocks[b]), shared[b]+w+1)
		text.WriteString("@@\n")
		for i := lo; i < hi; i++ {
			l := blocks[b][i]
			switch {
			case i == shared[b]:
				text.WriteString("-x = 1\n+x = 2\n")
				continue
			case c == stale && rewritten.b < 0 && (i == lo && i < shared[b]-1 || i == hi-1 && i > shared[b]+1):
				rewritten = ctx{b, i} // an outer context line, not next to the change
			}
			text.WriteString(" " + l + "\n")
		}
	}
	text.WriteString("*** End Patch\n")
	// The file on disk: the blocks permuted, the rewritten line edited.
	perm := make([]int, nb)
	for i := range perm {
		perm[i] = i
	}
	if rapid.IntRange(0, 3).Draw(t, "permute") > 0 {
		perm = rapid.Permutation(perm).Draw(t, "perm")
	}
	var before, want []string
	for _, b := range perm {
		for i, l := range blocks[b] {
			if (ctx{b, i}) == rewritten {
				l += " // edited"
			}
			before = append(before, l)
			if i == shared[b] && slices.Contains(chosen, b) {
				l = "x = 2"
			}
			want = append(want, l)
		}
	}
	m, ap := propApplier(t, map[string][]byte{"f.txt": joinFile(before)})
	res, err := ap.Apply(context.Background(), text.String())
	got := readMem(m, "f.txt")
	if err != nil {
		if got != string(joinFile(before)) {
			t.Fatalf("refused (%v) but wrote %q", err, got)
		}
		var pe *Error
		if errors.As(err, &pe) && strings.Contains(pe.Msg, "Out of order") {
			outcomes["refused: rescued chunk out of order"]++
		} else {
			outcomes["refused: other"]++
		}
		return
	}
	if got != string(joinFile(want)) {
		t.Fatalf("wrote the wrong file\nbefore %q\npatch:\n%s\ngot  %q\nwant %q\nreport %+v", before, text.String(), got, joinFile(want), res.Report)
	}
	reversed, rescue := false, false
	for i, ri := range res.Report {
		rescue = rescue || place.Rescued(place.Strategy(ri.Strategy))
		for _, rj := range res.Report[i+1:] {
			if rj.Start < ri.Start {
				reversed = true
				if place.Rescued(place.Strategy(ri.Strategy)) || place.Rescued(place.Strategy(rj.Strategy)) {
					t.Fatalf("chunk %d (%s) placed above chunk %d (%s)\nbefore %q\npatch:\n%s", rj.Chunk, rj.Strategy, ri.Chunk, ri.Strategy, before, text.String())
				}
			}
		}
	}
	switch {
	case reversed:
		outcomes["applied: chunks reversed, all by the ladder"]++
	case rescue:
		outcomes["applied: in order, with a rescue"]++
	default:
		outcomes["applied: in order, by the ladder"]++
	}
}

// TestRescuedOrderProperty runs propRescuedOrder and logs how the runs ended.
func TestRescuedOrderProperty(t *testing.T) {
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { propRescuedOrder(t, outcomes, false) })
	t.Logf("outcomes: %v", outcomes)
	for _, k := range []string{"refused: rescued chunk out of order", "applied: chunks reversed, all by the ladder", "applied: in order, with a rescue"} {
		if outcomes[k] == 0 {
			t.Errorf("the generator needs adjusting: no %q in %v", k, outcomes)
		}
	}
}

// orderWord returns a line of ten letters for i, from a fixed generator: distinct lines whose
// characters have little in common, so that blocks do not resemble each other.
func orderWord(i int) string {
	x := uint32(i)*2654435761 + 12345
	var b [10]byte
	for k := range b {
		x = x*1103515245 + 12345
		b[k] = 'a' + byte(x>>16%26)
	}
	return string(b[:])
}

// TestNearCopyOrderProperty runs propRescuedOrder on blocks that are near copies of each other.
func TestNearCopyOrderProperty(t *testing.T) {
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { propRescuedOrder(t, outcomes, true) })
	t.Logf("outcomes: %v", outcomes)
	if outcomes["applied: in order, with a rescue"] == 0 || outcomes["refused: other"] == 0 {
		t.Errorf("the generator needs adjusting: %v", outcomes)
	}
}
