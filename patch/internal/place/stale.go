package place

import (
	"fmt"
	"slices"
	"strings"
)

// The stale-edges rescue places a chunk whose outer context lines changed since the model read
// the file: another edit rewrote, added or removed lines near the change but not next to it.
// It is GNU patch's fuzz (leave out up to a few context lines at a hunk's edges) with the
// guesses taken out:
//
//   - only context lines are left out, from the chunk's two ends, and at least the one context
//     line right next to the change stays on each side that has one, so the change is placed
//     between the same two file lines the model saw around it (git's 3-way merge refuses a
//     change whose neighbouring line the other edit touched, and so does this rescue);
//   - the lines that remain (every removed line as written, the changed lines' neighbours,
//     the inner context) must match at a ladder level at exactly one place in the whole file,
//     apart from the windows of the section's other chunks; at the fewest lines left out that
//     give a match, every way of leaving them out must agree on that place;
//   - no other place in the file holds a block that resembles the remaining lines, line by
//     line (equal after the mapping table and trimming, or similar characters), unless the
//     patch's order rules it out (a chunk with a certain place lies between the two; see
//     copiesExcluded): where the lines the model meant were edited, such a near copy would
//     otherwise take the change;
//   - no other place explains the whole chunk as well: around any other place, the file must
//     hold fewer of the chunk's old lines in order (a longest common subsequence over a window
//     widened by the chunk's length on each side), or as many with fewer of them side by side,
//     than around this one. When the other edit
//     inserted lines inside the chunk's context, the remaining lines may still fit a look-alike
//     block elsewhere, while the real place keeps more of the chunk;
//   - around that place (widened on each side by the chunk's length, or by twice as many lines
//     as were left out if that is more), every
//     alignment of the chunk's old lines with the file that keeps the most lines in order
//     pairs the remaining lines as the match does and puts the added lines on the same sides
//     of the same file lines (the LCS rescue's soundness check): a left-out line found a little
//     further on could otherwise mean that the other edit inserted lines next to the change;
//   - the lines left out are not touched: the file keeps them as it has them.
//
// Fuzz takes the first place near the hunk's line number where the shortened hunk fits and
// writes there, so a shortened hunk that also fits a look-alike block, or that only fits one
// because its real place was edited, is applied in the wrong place.

// staleEdgesMaxDrop bounds the context lines left out on each side.
const staleEdgesMaxDrop = 3

const (
	noteStaleAmbiguous = "stale edges: with outer context lines left out, the rest of the chunk matches more than one place"
	noteStaleNearCopy  = "stale edges: with outer context lines left out, the rest of the chunk matches one place and resembles another"
	noteStaleLocal     = "stale edges: around the place the rest of the chunk matches, the left-out context lines could pair with other file lines, so where the change goes would be a guess"
	noteStaleElsewhere = "stale edges: with outer context lines left out, the rest of the chunk matches one place, but another place holds as many of the chunk's lines in order"
)

// staleEdges is the stale-edges rescue (see above).
func (r *rescuer) staleEdges(k int, rep *ChunkReport) (placement, bool, error) {
	lines := r.body.lines
	first, last := r.body.changeSpan()
	if first < 0 {
		return placement{}, false, nil
	}
	lead, trail := first, len(lines)-1-last // context lines before and after the changes
	maxL, maxR := min(max(lead-1, 0), staleEdgesMaxDrop), min(max(trail-1, 0), staleEdgesMaxDrop)
	if r.ch.EOF {
		maxR = 0 // the end of the file is part of what the chunk says
	}
	old, _ := r.body.old()
	m := len(old)
	for total := 1; total <= maxL+maxR; total++ {
		pos, found, ambiguous := -1, false, false
		for kl := max(0, total-maxR); kl <= min(total, maxL); kl++ {
			kr := total - kl
			p, ok, amb := r.uniqueBlock(old[kl:m-kr], r.ch.EOF)
			if r.spent {
				return placement{}, false, nil
			}
			switch {
			case amb:
				ambiguous = true
			case ok && found && p-kl != pos:
				ambiguous = true
			case ok:
				pos, found = p-kl, true
			}
		}
		if ambiguous {
			r.notes = append(r.notes, noteStaleAmbiguous)
			return placement{}, false, nil
		}
		if !found {
			continue
		}
		// The place, as if no line were left out: pos + i is where old line i would be. Pair
		// the lines of the block that matched; leave the others unpaired.
		var kl, kr int
		for kl = max(0, total-maxR); kl <= min(total, maxL); kl++ {
			if p, ok, _ := r.uniqueBlock(old[kl:m-(total-kl)], r.ch.EOF); ok && p-kl == pos {
				kr = total - kl
				break
			}
		}
		block := old[kl : m-kr]
		start := pos + kl
		near, copies, ok := r.nearCopy(block, start)
		if ok || r.spent {
			if !r.spent {
				r.notes = append(r.notes, fmt.Sprintf("%s (file line %d)", noteStaleNearCopy, near+1))
			}
			return placement{}, false, nil
		}
		if q, ok := r.betterElsewhere(old, start-kl, start, start+len(block)); ok || r.spent {
			if !r.spent {
				r.notes = append(r.notes, fmt.Sprintf("%s (file line %d)", noteStaleElsewhere, q+1))
			}
			return placement{}, false, nil
		}
		pair := make([]int, m)
		for i := range pair {
			pair[i] = -1
			if i >= kl && i < m-kr {
				pair[i] = start + i - kl
			}
		}
		widen := max(2*total, m)
		if !r.locallySettled(old, pair, start-kl-widen, start+len(block)+kr+widen) {
			if !r.spent {
				r.notes = append(r.notes, noteStaleLocal)
			}
			return placement{}, false, nil
		}
		if !r.changesSettled(pair) {
			r.notes = append(r.notes, noteGuessedInsertion)
			return placement{}, false, nil
		}
		if r.sideTwinRefused(pair) {
			return placement{}, false, nil
		}
		pl := r.s.placeAligned(r.body, start, start+len(block), pair, StrategyStaleEdges, k, rep)
		pl.copies = copies
		rep.Notes = append(rep.Notes, fmt.Sprintf("stale edges: %d context %s at the start and %d at the end left out and kept as the file has them",
			kl, Plural(kl, "line", "lines"), kr))
		if start < r.cursor {
			rep.Notes = append(rep.Notes, noteOutOfOrder(start))
		}
		return pl, true, nil
	}
	return placement{}, false, nil
}

// uniqueBlock seeks block with the ladder in the whole file, apart from windows of chunks
// placed earlier in the section. ok reports exactly one match at the first level with any;
// ambiguous reports two or more, or a first match beyond the applier's tolerance cap (so that
// lowering the cap never turns a refusal into a rescue at another place). With eof the block
// must end the file.
func (r *rescuer) uniqueBlock(block []string, eof bool) (pos int, ok, ambiguous bool) {
	s := r.s
	n, m := s.n(), len(block)
	if m == 0 || m > n {
		return -1, false, false
	}
	for l := LevelExact; l <= LevelUnicodeTrim; l++ {
		var ps []int
		if eof {
			if !r.spend(int64(m)) {
				return -1, false, false
			}
			if s.ix.matchesAt(l, block, normAll(l, block), n-m) {
				ps = []int{n - m}
			}
		} else {
			w := workBudget{limit: r.budget - r.used}
			ps = s.ix.positions(l, block, 0, 0, &w)
			if !r.spend(w.used) || w.exhausted() {
				r.used, r.spent = r.budget+1, true
				return -1, false, false
			}
		}
		var free []int
		for _, p := range ps {
			if _, hit := s.overlapping(p, p+m); !hit {
				free = append(free, p)
			}
		}
		switch {
		case len(free) > 1 || len(free) == 1 && l > s.cfg.MaxTol:
			return -1, false, true
		case len(free) == 1 && len(r.ch.Anchors) > 0 && free[0] < r.cursor:
			return -1, false, false // above the chunk's @@ anchor: not the place it names
		case len(free) == 1:
			return free[0], true, false
		}
	}
	return -1, false, false
}

// nearCopy looks for other places than start, in the whole file and apart from the windows
// placed earlier, where every line of block resembles the file line at its offset, and
// returns them sorted (0-based starts). Such a copy does not refuse the chunk at once: the
// patch's order may exclude it once every chunk is placed (see copiesExcluded). found reports
// a copy that nothing can exclude — one overlapping the block at start, or more copies than
// nearCopyMax — and near is the first such place. Candidates come from the index: places
// where some line of the block is equal after the mapping table and trimming.
func (r *rescuer) nearCopy(block []string, start int) (near int, copies []int, found bool) {
	s := r.s
	n, m := s.n(), len(block)
	li := s.ix.level(LevelUnicodeTrim)
	tried := map[int]bool{start: true}
	for i, b := range block {
		text := Normalize(LevelUnicodeTrim, b)
		for q := li.lookup(text).first; q >= 0; q = li.next[q] {
			p := int(q) - i
			if p < 0 || p+m > n || tried[p] {
				continue
			}
			tried[p] = true
			if !r.spend(int64(m)) {
				return 0, nil, false
			}
			if _, hit := s.overlapping(p, p+m); hit {
				continue
			}
			all := true
			for j, bl := range block {
				if !r.resembles(bl, s.lines[p+j]) {
					all = false
					break
				}
			}
			if r.spent {
				return 0, nil, false
			}
			switch {
			case !all:
			case p < start+m && p+m > start || len(copies) == nearCopyMax:
				return p, nil, true
			default:
				copies = append(copies, p)
			}
		}
	}
	slices.Sort(copies)
	return 0, copies, false
}

// nearCopyMax bounds the near copies of a stale-edges placement that the patch's order may
// exclude; one more is refused.
const nearCopyMax = 8

// betterElsewhere reports a place other than the chosen one (chunk start at, its matched block
// [lo, hi)) around which the file holds at least as many of the chunk's old lines in order as
// around the chosen one, and, as many, at least as many of them side by side. Windows reach the chunk's length beyond each end of the chunk; a
// competing window leaves out the lines of the chosen block;
// candidate places come from the index (a place where some old line would sit on an equal file
// line) and are pruned with the multiset bound before the LCS is computed.
func (r *rescuer) betterElsewhere(old []string, at, lo, hi int) (int, bool) {
	s := r.s
	n, m := s.n(), len(old)
	slack := m
	on := normAll(LevelUnicodeTrim, old)
	oldCount := map[string]int{}
	for _, t := range on {
		oldCount[t]++
	}
	// score is the LCS of the old lines with the window around q; a competitor's window leaves
	// out the chosen block's lines, so that it cannot win with the chosen place's own lines.
	score := func(q int, own bool) (int, bool) {
		a, b := max(q-slack, 0), min(q+m+slack, n)
		if a >= b {
			return 0, true
		}
		if !r.spend(int64(b - a)) {
			return 0, false
		}
		win := s.ix.norms(LevelUnicodeTrim)[a:b]
		if !own && a < hi && lo < b {
			win = append(slices.Clone(win[:max(lo-a, 0)]), win[min(hi-a, len(win)):]...)
		}
		if upperBound(oldCount, win) == 0 {
			return 0, true
		}
		if !r.spend(int64(m * (b - a))) {
			return 0, false
		}
		// Lines kept in order, then pairs of them kept side by side (a tie on the first is
		// broken by the second: the chosen place holds its block together).
		pair := adjacentAlign(on, win, 0, true)
		sc := 0
		for i, q := range pair {
			if q >= 0 {
				sc += 1 << 20
				if i+1 < len(pair) && pair[i+1] == q+1 {
					sc++
				}
			}
		}
		return sc, true
	}
	own, ok := score(at, true)
	if !ok {
		return 0, false
	}
	li := s.ix.level(LevelUnicodeTrim)
	tried := map[int]bool{}
	for i, t := range on {
		for f := li.lookup(t).first; f >= 0; f = li.next[f] {
			q := int(f) - i
			if tried[q] || q == at {
				continue
			}
			tried[q] = true
			if _, hit := s.overlapping(q, q+m); hit {
				continue
			}
			if !r.spend(1) {
				return 0, false
			}
			sc, ok := score(q, false)
			if !ok {
				return 0, false
			}
			if sc >= own {
				return q, true
			}
		}
	}
	return 0, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// locallySettled checks a stale-edges placement (pair: old line → file line, -1 for the lines
// left out) against the best alignments of all old lines with the file window [lo, hi): those
// that keep the most lines in order and, among them, the most pairs of neighbouring old lines on
// neighbouring file lines. Every such alignment (the leftmost and the rightmost are compared)
// must have the placement's effect: the same file lines removed, and every added line between
// the same two file lines. A left-out line that the file has a little further on, next to a
// line like one that was matched, is another reading of where the change goes.
func (r *rescuer) locallySettled(old []string, pair []int, lo, hi int) bool {
	lo, hi = max(lo, 0), min(hi, r.s.n())
	if !r.spend(int64(4 * len(old) * (hi - lo))) {
		return false
	}
	win := make([]string, hi-lo)
	for j := range win {
		win[j] = r.s.ix.normLine(LevelUnicodeTrim, lo+j)
	}
	on := normAll(LevelUnicodeTrim, old)
	want := r.effect(pair)
	for _, leftmost := range []bool{true, false} {
		if r.effect(adjacentAlign(on, win, lo, leftmost)) != want {
			return false
		}
	}
	return true
}

// effect renders what a pairing of the chunk's old lines does: the file lines it removes and,
// for each added line, the file lines paired with the nearest old lines before and after it.
func (r *rescuer) effect(pair []int) string {
	var b strings.Builder
	oi, prev := 0, -1
	var pending int // added lines waiting for the next paired old line
	for _, l := range r.body.lines {
		if l.Op == Insert {
			pending++
			continue
		}
		q := pair[oi]
		oi++
		if q < 0 {
			continue
		}
		for ; pending > 0; pending-- {
			fmt.Fprintf(&b, "+%d:%d ", prev, q)
		}
		if l.Op == Remove {
			fmt.Fprintf(&b, "-%d ", q)
		}
		prev = q
	}
	for ; pending > 0; pending-- {
		fmt.Fprintf(&b, "+%d:end ", prev)
	}
	return b.String()
}

// adjacentAlign aligns a with b (window starting at file line start): most equal lines in
// order, then most pairs of consecutive lines of a on consecutive lines of b. It returns the
// file line of each line of a (-1 unaligned), from the leftmost or the rightmost optimum.
func adjacentAlign(a, b []string, start int, leftmost bool) []int {
	const big = 1 << 20
	m, w := len(a), len(b)
	// ends[i][j]: best score of a[:i] and b[:j] with a[i-1] aligned to b[j-1] (-1: impossible);
	// any[i][j]: best score of a[:i] and b[:j].
	ends := make([][]int, m+1)
	anyS := make([][]int, m+1)
	for i := range ends {
		ends[i] = make([]int, w+1)
		anyS[i] = make([]int, w+1)
		for j := range ends[i] {
			ends[i][j] = -1
		}
	}
	for i := 1; i <= m; i++ {
		for j := 1; j <= w; j++ {
			if a[i-1] == b[j-1] {
				v := anyS[i-1][j-1] + big
				if e := ends[i-1][j-1]; e >= 0 {
					v = max(v, e+big+1)
				}
				ends[i][j] = v
			}
			anyS[i][j] = max(ends[i][j], anyS[i-1][j], anyS[i][j-1])
		}
	}
	pair := make([]int, m)
	for i := range pair {
		pair[i] = -1
	}
	i, j, inEnd := m, w, false
	for i > 0 && j > 0 {
		if inEnd { // a[i-1] is aligned to b[j-1]: where did the score before it come from?
			pair[i-1] = start + j - 1
			e := ends[i-1][j-1]
			switch {
			case e >= 0 && e+big+1 == ends[i][j] && (!leftmost || anyS[i-1][j-1]+big != ends[i][j]):
				inEnd = true
			default:
				inEnd = false
			}
			i, j = i-1, j-1
			continue
		}
		v := anyS[i][j]
		switch {
		case leftmost && anyS[i][j-1] == v:
			j--
		case ends[i][j] == v:
			inEnd = true
		case anyS[i-1][j] == v:
			i--
		default:
			j--
		}
	}
	return pair
}
