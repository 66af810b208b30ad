package patch

import (
	"fmt"
	"math"
	"strings"
)

// rescuer runs the bounded rescues of one chunk (§3.5): prefix/suffix first, then LCS. They run
// only when no ladder level matched, and every line comparison and LCS cell spends one unit of
// the chunk's work budget; reaching the limit is a miss, so results never depend on time.
type rescuer struct {
	s      *sectionLocator
	ch     Chunk
	body   chunkBody
	cursor int
	budget int64
	used   int64
	spent  bool // the budget ran out
	notes  []string
}

const noteWorkLimit = "rescue work limit reached"

// spend takes n units; it reports false once the budget is exhausted.
func (r *rescuer) spend(n int64) bool {
	r.used += n
	if r.used > r.budget {
		r.spent = true
		return false
	}
	return true
}

// edgeCap is the loosest level used for edge comparisons (R33). It does not follow
// WithMaxTolerance: with a narrower edge comparison a capped applier could rescue a chunk
// whose edges are ambiguous under the full set, and lowering the cap must never turn a
// failure into a success (spec property 17). Edges never use leading-whitespace trimming.
func (r *rescuer) edgeCap() Level { return LevelUnicodeTrimEnd }

// edgeMatch reports whether the block pat matches at x under one of the edge comparators
// (all lines at the same level). pn[l] holds pat normalised at level l.
func (r *rescuer) edgeMatch(pat []string, pn [][]string, x int) (Level, bool) {
	if x < 0 || x+len(pat) > r.s.n() {
		return 0, false
	}
	for l := LevelExact; l <= r.edgeCap(); l++ {
		if !r.spend(int64(len(pat))) {
			return 0, false
		}
		if r.s.ix.matchesAt(l, pat, pn[l], x) {
			return l, true
		}
	}
	return 0, false
}

func (r *rescuer) normLevels(pat []string) [][]string {
	out := make([][]string, r.edgeCap()+1)
	for l := range out {
		out[l] = normAll(Level(l), pat)
	}
	return out
}

// run tries the enabled rescues in order. ok reports a rescue; err is an ambiguity.
func (r *rescuer) run(k int, rep *ChunkReport) (placement, bool, error) {
	cfg := r.s.cfg
	if cfg.prefixSuffix {
		p, ok, err := r.prefixSuffix(k, rep)
		if err != nil || ok {
			return p, ok, err
		}
		if r.spent {
			r.notes = append(r.notes, noteWorkLimit)
			return placement{}, false, nil
		}
	}
	if cfg.lcs {
		p, ok, err := r.lcs(k, rep)
		if err != nil || ok {
			return p, ok, err
		}
		if r.spent {
			r.notes = append(r.notes, noteWorkLimit)
		}
	}
	return placement{}, false, nil
}

func unicodeEqual(a, b string) bool { return a == b || mapUnicode(a) == mapUnicode(b) }

// prefixSuffix is the rescue of R34.
func (r *rescuer) prefixSuffix(k int, rep *ChunkReport) (placement, bool, error) {
	old, _ := r.body.old()
	nw := r.body.new()
	lo, ln := len(old), len(nw)
	lim := min(lo, ln)
	pre := 0
	for pre < lim && unicodeEqual(old[pre], nw[pre]) {
		pre++
	}
	suf := 0
	for suf < lim-pre && unicodeEqual(old[lo-1-suf], nw[ln-1-suf]) {
		suf++
	}
	if pre < 1 || suf < 1 {
		return placement{}, false, nil
	}
	stale := lo - pre - suf
	span := max(r.s.cfg.staleMin, r.s.cfg.staleFactor*stale)
	left, right := old[:pre], old[lo-suf:]
	ln0, rn0 := r.normLevels(left), r.normLevels(right)
	n := r.s.n()
	// rightAt memoises the right edge's match at x: 0 unknown, else 1 + level, or -1 no.
	rightAt := make([]int8, n+1)
	rightMatch := func(x int) (Level, bool) {
		if v := rightAt[x]; v != 0 {
			return Level(max(v-1, 0)), v > 0
		}
		l, ok := r.edgeMatch(right, rn0, x)
		rightAt[x] = -1
		if ok {
			rightAt[x] = int8(l) + 1
		}
		return l, ok
	}
	type pair struct{ l, r int }
	var found []pair
	var edgeLevel Level
	lFrom, lTo := r.cursor, n-pre-suf
	if r.ch.EOF {
		lTo = min(lTo, n-suf-pre)
		lFrom = max(lFrom, n-suf-pre-span)
	}
	for l := max(lFrom, 0); l <= lTo && len(found) < 2; l++ {
		ll, ok := r.edgeMatch(left, ln0, l)
		if r.spent {
			return placement{}, false, nil
		}
		if !ok {
			continue
		}
		rFrom, rTo := l+pre, min(l+pre+span, n-suf)
		if r.ch.EOF {
			rFrom = max(rFrom, n-suf)
		}
		for x := rFrom; x <= rTo; x++ {
			if !r.spend(1) {
				return placement{}, false, nil
			}
			rl, ok := rightMatch(x)
			if r.spent {
				return placement{}, false, nil
			}
			if ok {
				found = append(found, pair{l, x})
				edgeLevel = max(ll, rl)
				if len(found) == 2 {
					break
				}
			}
		}
	}
	switch len(found) {
	case 0:
		return placement{}, false, nil
	case 1:
	default:
		e := r.s.newErr(KindAmbiguous, k, r.ch.Line, fmt.Sprintf(
			"Prefix/suffix rescue was ambiguous in %s:\n%s", r.s.path, joinLines(old)))
		e.Candidates = []int{found[0].l + 1, found[1].l + 1}
		e.FileLine = found[0].l + 1
		return placement{}, false, e
	}
	f := found[0]
	s := f.r - (f.l + pre)
	var ed []edit
	for range pre {
		ed = append(ed, edit{op: Context})
	}
	for range s {
		ed = append(ed, edit{op: Remove})
	}
	for _, t := range nw[pre : ln-suf] {
		ed = append(ed, edit{op: Insert, text: t})
	}
	for range suf {
		ed = append(ed, edit{op: Context})
	}
	rep.Strategy = StrategyPrefixSuffix
	rep.Start, rep.Len = f.l+1, f.r+suf-f.l
	rep.Removed, rep.Added = s, ln-suf-pre
	rep.Notes = append(rep.Notes,
		fmt.Sprintf("edges %d+%d lines matched at %s", pre, suf, edgeLevel),
		fmt.Sprintf("stale span %d %s", s, plural(s, "line", "lines")))
	return placement{start: f.l, end: f.r + suf, edits: ed, order: k - 1}, true, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinLines(ls []string) string { return strings.Join(ls, "\n") }

// lcs is the rescue of R35.
func (r *rescuer) lcs(k int, rep *ChunkReport) (placement, bool, error) {
	cfg := r.s.cfg
	old, _ := r.body.old()
	m, n := len(old), r.s.n()
	if m > cfg.lcsMaxLines || n == 0 || m > n {
		return placement{}, false, nil
	}
	needed := m
	if m > 2 {
		needed = max(2, int(math.Ceil(cfg.lcsThreshold*float64(m)-1e-9)))
	}
	margin := max(cfg.margin(m), 1)
	first, last := old[:1], old[m-1:]
	fn, ln0 := r.normLevels(first), r.normLevels(last)
	var cands []int
	from, to := max(r.cursor, 0), n-m
	if r.ch.EOF {
		from = n - m
	}
	for p := from; p <= to; p++ {
		if _, ok := r.edgeMatch(first, fn, p); !ok {
			if r.spent {
				return placement{}, false, nil
			}
			continue
		}
		if m > 1 {
			if _, ok := r.edgeMatch(last, ln0, p+m-1); !ok {
				if r.spent {
					return placement{}, false, nil
				}
				continue
			}
		}
		cands = append(cands, p)
		if len(cands) > cfg.lcsMaxCands {
			r.notes = append(r.notes, fmt.Sprintf("LCS: too many candidates (more than %d)", cfg.lcsMaxCands))
			return placement{}, false, nil
		}
	}
	if len(cands) == 0 {
		return placement{}, false, nil
	}
	on := normAll(LevelUnicodeTrim, old)
	oldCount := map[string]int{}
	for _, s := range on {
		oldCount[s]++
	}
	relevant := max(needed-margin+1, 1)
	best, bestScore, second := -1, -1, 0
	win := make([]string, m)
	for _, p := range cands {
		if !r.spend(int64(m)) {
			return placement{}, false, nil
		}
		for i := range win {
			win[i] = r.s.ix.normLine(LevelUnicodeTrim, p+i)
		}
		if upperBound(oldCount, win) < relevant {
			continue
		}
		if !r.spend(int64(m * m)) {
			return placement{}, false, nil
		}
		sc := lcsLen(on, win)
		switch {
		case sc > bestScore:
			second = max(second, bestScore)
			best, bestScore = p, sc
		case sc > second:
			second = sc
		}
	}
	if bestScore < needed {
		if bestScore >= 0 {
			r.notes = append(r.notes, fmt.Sprintf("LCS best %d/%d is below the needed %d", bestScore, m, needed))
		}
		return placement{}, false, nil
	}
	if bestScore-second < margin {
		e := r.s.newErr(KindAmbiguous, k, r.ch.Line, fmt.Sprintf(
			"LCS rescue was ambiguous in %s:\n%s", r.s.path, joinLines(old)))
		e.FileLine = best + 1
		return placement{}, false, e
	}
	p := r.s.finish(r.body, best, StrategyLCS, k, rep)
	rep.Notes = append(rep.Notes, fmt.Sprintf("LCS %d/%d, runner-up %d", bestScore, m, second))
	return p, true, nil
}

// upperBound is the size of the multiset intersection of the old lines and the window, an
// upper bound of their LCS.
func upperBound(oldCount map[string]int, win []string) int {
	used := make(map[string]int, len(win))
	n := 0
	for _, w := range win {
		if used[w] < oldCount[w] {
			used[w]++
			n++
		}
	}
	return n
}

// lcsLen is the length of the longest common subsequence of a and b (two-row table).
func lcsLen(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
