package place

import (
	"fmt"
	"math"
	"strings"
)

// rescuer runs the bounded rescues of one chunk: prefix/suffix first, then LCS. They run
// only when no ladder level matched, and every line comparison and LCS cell spends one unit of
// the chunk's work budget; reaching the limit is a miss, so results never depend on time.
type rescuer struct {
	s       *Locator
	ch      Chunk
	body    chunkBody
	cursor  int
	budget  int64
	used    int64
	spent   bool // the budget ran out
	notes   []string
	changed changedLine // the first removed line found changed in the file
}

const (
	NoteWorkLimit  = "rescue work limit reached" // the note of a rescue the work limit stopped
	noteLCSUnsound = "LCS: the closest window does not contain every removed line as written; nothing is removed that the patch does not name"
	noteLCSGuess   = "LCS: the closest window holds file lines the patch does not show next to its added lines, so where the added lines go would be a guess; add those lines as context"
)

// spend takes n units; it reports false once the budget is exhausted.
func (r *rescuer) spend(n int64) bool {
	if r.used+n > r.budget {
		r.used, r.spent = r.budget+1, true
		return false
	}
	r.used += n
	return true
}

// edgeCap is the loosest level used for edge comparisons. It does not follow
// RescueOptions.MaxTolerance: with a narrower edge comparison a capped applier could rescue a chunk
// whose edges are ambiguous under the full set, and lowering the cap must never turn a
// failure into a success. Edges never use leading-whitespace trimming.
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
	if cfg.PrefixSuffix {
		p, ok, err := r.prefixSuffix(k, rep)
		if err != nil || ok {
			return p, ok, err
		}
		if r.spent {
			r.notes = append(r.notes, NoteWorkLimit)
			return placement{}, false, nil
		}
	}
	if cfg.LCS {
		p, ok, err := r.lcs(k, rep)
		if err != nil || ok {
			return p, ok, err
		}
		if r.spent {
			r.notes = append(r.notes, NoteWorkLimit)
			return placement{}, false, nil
		}
	}
	if cfg.StaleEdges && !cfg.Codex {
		p, ok, err := r.staleEdges(k, rep)
		if err != nil || ok {
			return p, ok, err
		}
		if r.spent {
			r.notes = append(r.notes, NoteWorkLimit)
		}
	}
	return placement{}, false, nil
}

// ladderEqual reports whether patch line p equals file line i at some ladder level up to the
// cap: the only way a removed line may be paired with a file line.
func (r *rescuer) ladderEqual(p string, i int) bool {
	for l := LevelExact; l <= r.s.cfg.MaxTol; l++ {
		if r.s.ix.lineMatches(l, p, i) {
			return true
		}
	}
	return false
}

// resembleMaxLen: longer lines resemble only when equal after normalising.
const resembleMaxLen = 400

// resembles reports whether a drifted context line p still resembles file line f: equal after
// the mapping table and full trimming, or a character-level similarity 2·M/(len(a)+len(b)) of
// at least 0.6, M being the length of their longest common subsequence of characters. It
// spends one unit per character pair.
func (r *rescuer) resembles(p, f string) bool {
	a, b := []rune(Normalize(LevelUnicodeTrim, p)), []rune(Normalize(LevelUnicodeTrim, f))
	if string(a) == string(b) {
		return true
	}
	if len(a) > resembleMaxLen || len(b) > resembleMaxLen || len(a)+len(b) == 0 {
		return false
	}
	if !r.spend(int64(len(a) * len(b))) {
		return false
	}
	return 10*2*lcsLen(a, b) >= 6*(len(a)+len(b))
}

// changedLine describes a removed line that no longer equals the file: the file changed since
// the model read it.
type changedLine struct {
	fileLine    int // 0-based
	file, patch string
	found       bool
}

func (c changedLine) String(path string) string {
	return fmt.Sprintf("line %d of %s changed since the patch was written: the file has `%s`, the patch expects `%s`; read the file again",
		c.fileLine+1, path, CutLine(c.file), CutLine(c.patch))
}

// prefixSuffix is the prefix/suffix rescue. Its edges are the context lines before the first
// and after the last changed (added or removed) line; the old lines between them are the
// stale middle. When the middle removes nothing, the edges must be adjacent in the file (the
// file may not lose a line to make the context fit); otherwise the file span between them has
// as many lines as the middle, each removed line equal to its span line at a ladder level and
// each context line resembling its span line (drifted context is kept as the file has it). A
// removed line that differs is a miss that names the line, never a removal.
func (r *rescuer) prefixSuffix(k int, rep *ChunkReport) (placement, bool, error) {
	lines := r.body.lines
	first, last := r.body.changeSpan()
	if first < 0 {
		return placement{}, false, nil
	}
	pre, suf := first, len(lines)-1-last // body lines before/after the changes: all context
	if pre < 1 || suf < 1 {
		return placement{}, false, nil
	}
	old, _ := r.body.old()
	var middle []Line
	for _, l := range lines[first : last+1] {
		if l.Op != Insert {
			middle = append(middle, l)
		}
	}
	span := 0
	for _, l := range middle {
		if l.Op == Remove {
			span = len(middle)
			break
		}
	}
	if span == 0 && len(middle) > 0 {
		// Added lines on both sides of context lines the file does not have there: skipping
		// them would guess whether the lines were invented or left out around them.
		return placement{}, false, nil
	}
	left, right := old[:pre], old[len(old)-suf:]
	ln0, rn0 := r.normLevels(left), r.normLevels(right)
	n := r.s.n()
	width := pre + span + suf
	lFrom, lTo := max(r.cursor, 0), n-width
	if r.ch.EOF {
		lFrom = max(lFrom, n-width)
	}
	var found []int
	var edgeLevel Level
	for l := lFrom; l <= lTo && len(found) < 2; l++ {
		ll, ok := r.edgeMatch(left, ln0, l)
		if r.spent {
			return placement{}, false, nil
		}
		if !ok {
			continue
		}
		rl, ok := r.edgeMatch(right, rn0, l+pre+span)
		if r.spent {
			return placement{}, false, nil
		}
		if !ok {
			continue
		}
		fits := true
		for i, mid := range middle[:span] {
			f := l + pre + i
			if mid.Op == Remove {
				if !r.spend(int64(LevelUnicodeTrim) + 1) {
					return placement{}, false, nil
				}
				if !r.ladderEqual(mid.Text, f) {
					if !r.changed.found {
						r.changed = changedLine{fileLine: f, file: r.s.lines[f], patch: mid.Text, found: true}
					}
					fits = false
					break
				}
				continue
			}
			if !r.resembles(mid.Text, r.s.lines[f]) {
				fits = false
				break
			}
		}
		if r.spent {
			return placement{}, false, nil
		}
		if fits {
			found = append(found, l)
			edgeLevel = max(ll, rl)
		}
	}
	switch len(found) {
	case 0:
		return placement{}, false, nil
	case 1:
	default:
		e := r.s.newErr(KindAmbiguous, k, r.ch.Line, fmt.Sprintf(
			"Prefix/suffix rescue was ambiguous in %s:\n%s", r.s.path, joinLines(old)))
		e.Candidates = []int{found[0] + 1, found[1] + 1}
		e.FileLine = found[0] + 1
		return placement{}, false, e
	}
	l := found[0]
	if r.guessedNextToAdded(lines[first:last+1], l+pre) {
		r.notes = append(r.notes, noteDriftGuess)
		return placement{}, false, nil
	}
	pair := make([]int, len(old))
	for i := range pair {
		pair[i] = -1
	}
	for i := range pre {
		pair[i] = l + i
	}
	for i := range span {
		pair[pre+i] = l + pre + i
	}
	for i := range suf {
		pair[len(old)-suf+i] = l + pre + span + i
	}
	if !r.changesSettled(pair) {
		r.notes = append(r.notes, noteGuessedInsertion)
		return placement{}, false, nil
	}
	if r.sideTwinRefused(pair) {
		return placement{}, false, nil
	}
	p := r.s.placeAligned(r.body, l, l+width, pair, StrategyPrefixSuffix, k, rep)
	drifted := 0
	for i, mid := range middle[:span] {
		if mid.Op == Context && mid.Text != r.s.lines[l+pre+i] {
			drifted++
		}
	}
	unpaired := len(middle) - span
	rep.Notes = append(rep.Notes, fmt.Sprintf("edges %d+%d lines matched at %s", pre, suf, edgeLevel))
	switch {
	case drifted > 0:
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d context %s differed from the file and %s kept as the file has %s",
			drifted, Plural(drifted, "line", "lines"), Plural(drifted, "was", "were"), Plural(drifted, "it", "them")))
	case unpaired > 0:
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d context %s of the patch %s not in the file and %s skipped",
			unpaired, Plural(unpaired, "line", "lines"), Plural(unpaired, "is", "are"), Plural(unpaired, "was", "were")))
	}
	return p, true, nil
}

const noteDriftGuess = "prefix/suffix: a drifted context line next to added lines equals the file line beside it, " +
	"so the patch may have left a line out there and where the added lines go would be a guess"

// guessedNextToAdded reports whether a context line of the middle (body lines, whose old lines
// pair with the file from line at on) differs from its file line and sits right next to added
// lines while it equals, at a ladder level, the file line on that side. Either the line
// drifted, or the patch left out the line it was paired with and it is really its neighbour;
// the added lines would land on different sides of that file line, so the rescue refuses.
func (r *rescuer) guessedNextToAdded(middle []Line, at int) bool {
	f := at
	for i, l := range middle {
		if l.Op == Insert {
			continue
		}
		if l.Op == Context && !r.ladderEqual(l.Text, f) {
			if i+1 < len(middle) && middle[i+1].Op == Insert && f+1 < r.s.n() && r.ladderEqual(l.Text, f+1) {
				return true
			}
			if i > 0 && middle[i-1].Op == Insert && f > 0 && r.ladderEqual(l.Text, f-1) {
				return true
			}
		}
		f++
	}
	return false
}

// Plural returns one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// lcsCand is one candidate window of the LCS rescue.
type lcsCand struct {
	start, length int
	score         int
	pair          []int  // 0-based file line per old line, -1 unaligned
	key           string // the effect: removed file lines and insertion points
	sound         bool   // every removed line aligned with a file line it equals, one optimal effect
	missing       bool   // unsound because a removed line is unaligned or differs from its file line
}

// lcs is the LCS rescue. Candidate windows have len(old)-2 … len(old)+2 lines and start and end
// with lines matching the chunk's first and last old lines; the best-scoring window must lead
// every window with another effect by the margin. The chunk is applied through the alignment:
// aligned removed lines drop their file line (they must equal it at a ladder level, else the
// window is a miss), aligned context keeps its file line, unaligned patch context is skipped and
// unaligned file lines are kept.
func (r *rescuer) lcs(k int, rep *ChunkReport) (placement, bool, error) {
	cfg := r.s.cfg
	old, _ := r.body.old()
	m, n := len(old), r.s.n()
	if m > cfg.LCSMaxLines || n == 0 {
		return placement{}, false, nil
	}
	needed := m
	if m > 2 {
		needed = max(2, int(math.Ceil(cfg.LCSThreshold*float64(m)-1e-9)))
	}
	margin := max(cfg.Margin(m), 1)
	first, last := old[:1], old[m-1:]
	fn, ln0 := r.normLevels(first), r.normLevels(last)
	var cands []lcsCand
	from := max(r.cursor, 0)
	for p := from; p < n; p++ {
		if _, ok := r.edgeMatch(first, fn, p); !ok {
			if r.spent {
				return placement{}, false, nil
			}
			continue
		}
		for length := max(1, m-2); length <= m+2 && p+length <= n; length++ {
			if r.ch.EOF && p+length != n {
				continue
			}
			if length > 1 || m > 1 {
				if length == 1 && m > 1 {
					continue // the first and last old lines cannot share one file line
				}
				if _, ok := r.edgeMatch(last, ln0, p+length-1); !ok {
					if r.spent {
						return placement{}, false, nil
					}
					continue
				}
			}
			cands = append(cands, lcsCand{start: p, length: length})
			if len(cands) > cfg.LCSMaxCands {
				r.notes = append(r.notes, fmt.Sprintf("LCS: too many candidates (more than %d)", cfg.LCSMaxCands))
				return placement{}, false, nil
			}
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
	best := -1
	for i := range cands {
		c := &cands[i]
		if !r.spend(int64(c.length)) {
			return placement{}, false, nil
		}
		win := make([]string, c.length)
		for j := range win {
			win[j] = r.s.ix.normLine(LevelUnicodeTrim, c.start+j)
		}
		if upperBound(oldCount, win) < relevant {
			c.score = -1
			continue
		}
		if !r.spend(int64(m * c.length)) {
			return placement{}, false, nil
		}
		r.align(c, on, win)
		if best < 0 || c.score > cands[best].score {
			best = i
		}
	}
	if best < 0 {
		return placement{}, false, nil
	}
	b := cands[best]
	second := 0
	for i, c := range cands {
		if i != best && c.key != b.key && c.score > second {
			second = c.score
		}
	}
	if b.score < needed {
		r.notes = append(r.notes, fmt.Sprintf("LCS best %d/%d is below the needed %d", b.score, m, needed))
		return placement{}, false, nil
	}
	if b.score-second < margin {
		e := r.s.newErr(KindAmbiguous, k, r.ch.Line, fmt.Sprintf(
			"LCS rescue was ambiguous in %s:\n%s", r.s.path, joinLines(old)))
		e.FileLine = b.start + 1
		return placement{}, false, e
	}
	for _, c := range cands {
		// A window with the same score and leftmost effect whose other optimal alignment
		// disagrees shows that the effect is one of several readings.
		if c.key == b.key && c.score == b.score && !c.sound {
			b.sound = false
			b.missing = b.missing || c.missing
		}
	}
	if !b.sound {
		note := noteLCSGuess
		if b.missing {
			note = noteLCSUnsound
		}
		r.notes = append(r.notes, note)
		return placement{}, false, nil
	}
	// The score counts the chunk's lines a window keeps, so a window that holds them all with
	// an extra line inside beats one that lost a line, though both are one edit away from the
	// chunk. Counted in edits (old lines left unaligned plus window lines left unaligned), no
	// window with another effect may be as close as the best one.
	bestDist := m + b.length - 2*b.score
	for i := range cands {
		c := &cands[i]
		if i == best || c.length-m > bestDist || m-c.length > bestDist {
			continue
		}
		if c.score < 0 { // pruned by the bound: score it now if it could be as close
			if !r.spend(int64(c.length)) {
				return placement{}, false, nil
			}
			win := make([]string, c.length)
			for j := range win {
				win[j] = r.s.ix.normLine(LevelUnicodeTrim, c.start+j)
			}
			if ub := upperBound(oldCount, win); m+c.length-2*ub > bestDist {
				continue
			}
			if !r.spend(int64(m * c.length)) {
				return placement{}, false, nil
			}
			r.align(c, on, win)
		}
		if c.key != b.key && m+c.length-2*c.score <= bestDist {
			e := r.s.newErr(KindAmbiguous, k, r.ch.Line, fmt.Sprintf(
				"LCS rescue was ambiguous in %s:\n%s\nThe window at file line %d and the one at file line %d are as many line edits away from the chunk.",
				r.s.path, joinLines(old), b.start+1, c.start+1))
			e.FileLine = b.start + 1
			return placement{}, false, e
		}
	}
	if !r.changesSettled(b.pair) {
		r.notes = append(r.notes, noteGuessedInsertion)
		return placement{}, false, nil
	}
	// The candidates start and end on lines like the chunk's first and last; the place the
	// chunk was written for may have lost one of those to the other edit. Windows that start
	// on the chunk's second line or end on its last but one compete too (they are never
	// taken, only compared).
	if c, ok, err := r.closerWithoutEdge(on, oldCount, from, b, bestDist, cands); err || ok {
		if ok {
			e := r.s.newErr(KindAmbiguous, k, r.ch.Line, fmt.Sprintf(
				"LCS rescue was ambiguous in %s:\n%s\nThe window at file line %d and the one at file line %d are as many line edits away from the chunk.",
				r.s.path, joinLines(old), b.start+1, c+1))
			e.FileLine = b.start + 1
			return placement{}, false, e
		}
		return placement{}, false, nil // the work limit
	}
	if r.sideTwinRefused(b.pair) {
		return placement{}, false, nil
	}
	p := r.s.placeAligned(r.body, b.start, b.start+b.length, b.pair, StrategyLCS, k, rep)
	rep.Notes = append(rep.Notes, fmt.Sprintf("LCS %d/%d, runner-up %d", b.score, m, second))
	if kept := b.length - b.score; kept > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d file %s not named by the patch kept", kept, Plural(kept, "line", "lines")))
	}
	return p, true, nil
}

// align fills c's score, pairing, effect key and soundness. The alignment maximises the number
// of aligned lines, then the number of aligned removed lines; of the optimal alignments the
// leftmost is taken, and the candidate is unsound when the rightmost removes other file lines.
func (r *rescuer) align(c *lcsCand, on, win []string) {
	ops := make([]Op, 0, len(on))
	for _, l := range r.body.lines {
		if l.Op != Insert {
			ops = append(ops, l.Op)
		}
	}
	m, w := len(on), len(win)
	unit := 2*m + 2 // a match is worth more than all removed-line bonuses together
	dp := make([][]int, m+1)
	for i := range dp {
		dp[i] = make([]int, w+1)
	}
	gain := func(i, j int) int {
		if on[i] != win[j] {
			return -1
		}
		if ops[i] == Remove {
			return unit + 1
		}
		return unit
	}
	for i := 1; i <= m; i++ {
		for j := 1; j <= w; j++ {
			v := max(dp[i-1][j], dp[i][j-1])
			if g := gain(i-1, j-1); g >= 0 {
				v = max(v, dp[i-1][j-1]+g)
			}
			dp[i][j] = v
		}
	}
	trace := func(leftmost bool) []int {
		pair := make([]int, m)
		for i := range pair {
			pair[i] = -1
		}
		i, j := m, w
		for i > 0 && j > 0 {
			g := gain(i-1, j-1)
			diag := g >= 0 && dp[i][j] == dp[i-1][j-1]+g
			switch {
			case leftmost && dp[i][j] == dp[i][j-1]:
				j--
			case !leftmost && diag:
				pair[i-1] = c.start + j - 1
				i, j = i-1, j-1
			case leftmost && diag:
				pair[i-1] = c.start + j - 1
				i, j = i-1, j-1
			case dp[i][j] == dp[i-1][j]:
				i--
			default:
				j--
			}
		}
		return pair
	}
	c.score = dp[m][w] / unit
	c.pair = trace(true)
	right := trace(false)
	removed := func(pair []int) string {
		var b strings.Builder
		for i, q := range pair {
			if ops[i] == Remove {
				fmt.Fprintf(&b, "%d,", q)
			}
		}
		return b.String()
	}
	effect := func(pair []int) string {
		var b strings.Builder
		b.WriteString(removed(pair))
		oi, last := 0, c.start-1
		for _, l := range r.body.lines {
			if l.Op == Insert {
				fmt.Fprintf(&b, "+%d", last)
				continue
			}
			if q := pair[oi]; q >= 0 {
				last = q
			}
			oi++
		}
		return b.String()
	}
	c.sound = r.settleGaps(c.start, c.start+c.length, c.pair) && r.settleGaps(c.start, c.start+c.length, right)
	// An alignment as long that leaves a removed line unaligned reads the file as not having
	// that line any more (the other edit removed it too, or another line like it): removing
	// the line it would be paired with is then a guess.
	removedLines := 0
	for _, op := range ops {
		if op == Remove {
			removedLines++
		}
	}
	if removedLines > 0 {
		pen := make([]int, w+1)
		prev := make([]int, w+1)
		for i := 1; i <= m; i++ {
			for j := 1; j <= w; j++ {
				v := max(prev[j], pen[j-1])
				if on[i-1] == win[j-1] {
					g := unit
					if ops[i-1] == Remove {
						g-- // prefer leaving removed lines unaligned
					}
					v = max(v, prev[j-1]+g)
				}
				pen[j] = v
			}
			prev, pen = pen, prev
			clear(pen)
		}
		best := prev[w]
		if most := (best + unit - 1) / unit; most == c.score && unit*most-best < removedLines {
			c.sound, c.missing = false, true
		}
	}
	for i, q := range c.pair {
		if ops[i] == Remove && (q < 0 || !r.ladderEqual(r.body.oldText(i), q)) {
			c.sound, c.missing = false, true
		}
	}
	// The effect: removed file lines, and where each added line goes (after the file line
	// paired with the nearest preceding old line). The leftmost and the rightmost optimal
	// alignments must agree on it.
	c.key = effect(c.pair)
	if c.key != effect(right) {
		c.sound = false
	}
}

// settleGaps decides where added lines go when the window holds file lines the alignment left
// out. Added lines between two aligned old lines (or a window edge) whose file lines are not
// adjacent could go on either side of the unaligned file lines between them. When the patch has
// as many unaligned context lines there as the file has unaligned lines, and each resembles its
// file line, they are drifted context and are paired in order (kept as the file has them);
// otherwise the place of the added lines is a guess and the candidate is unsound (a miss).
// Added lines that directly follow an aligned removed line replace it and go at its place.
func (r *rescuer) settleGaps(start, end int, pair []int) bool {
	prevQ := start - 1
	var loose []int // unaligned context lines (old indices) since the last aligned old line
	inserts := false
	replacing := false // the lines so far since the last aligned old line are added lines after a removed one
	ok := true
	settle := func(nextQ int) {
		gap := nextQ - prevQ - 1
		if !inserts || gap <= 0 || !ok {
			return
		}
		if len(loose) != gap {
			ok = false
			return
		}
		for t, i := range loose {
			if !r.resembles(r.body.oldText(i), r.s.lines[prevQ+1+t]) {
				ok = false
				return
			}
		}
		for t, i := range loose {
			pair[i] = prevQ + 1 + t
		}
	}
	oi := 0
	for _, l := range r.body.lines {
		if l.Op == Insert {
			inserts = inserts || !replacing
			continue
		}
		q := pair[oi]
		if q < 0 {
			if l.Op == Context {
				loose = append(loose, oi)
			}
			replacing = false
			oi++
			continue
		}
		settle(q)
		prevQ, loose, inserts, replacing = q, loose[:0], false, l.Op == Remove
		oi++
	}
	settle(end)
	return ok
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

// oldText returns the text of old line i.
func (b chunkBody) oldText(i int) string {
	for _, l := range b.lines {
		if l.Op == Insert {
			continue
		}
		if i == 0 {
			return l.Text
		}
		i--
	}
	return ""
}

// lcsLen is the length of the longest common subsequence of a and b (two-row table):
// of lines for the LCS rescue, of characters for resemblance.
func lcsLen[E comparable](a, b []E) int {
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

// noteGuessedInsertion is the note of a rescue refused by changesSettled.
const noteGuessedInsertion = "the file has lines the patch does not show next to or among the lines it changes, so the place of the added lines among them would be a guess; add the file's current lines there as context"

// changesSettled is the rule for writing a change next to lines that the file no longer has
// as the patch shows them (where git's 3-way merge reports a conflict: the other edit touched
// the lines next to this one). A group of changed lines that removes lines replaces them where
// they are: every rescue pairs each removed line with a file line it equals, and those file
// lines must be consecutive (a line the other edit put among them would end up on a guessed
// side of the added lines); a drifted context line beside the group is kept as the file has it. A group that only adds lines has no place
// of its own: the context lines on both sides of it must be paired with file lines (equal or,
// after drift, resembling), and those two file lines must be adjacent, so that the added lines
// go between the same two lines the model saw. A context line the file does not have there
// (unpaired) or a gap of file lines the patch does not show would make the place a guess.
// pair gives the 0-based file line of each old line (-1 unpaired).
func (r *rescuer) changesSettled(pair []int) bool {
	lines := r.body.lines
	oldIdx := make([]int, len(lines)) // body line → old index (-1 for added lines)
	oi := 0
	for i, l := range lines {
		oldIdx[i] = -1
		if l.Op != Insert {
			oldIdx[i] = oi
			oi++
		}
	}
	for i := 0; i < len(lines); {
		if lines[i].Op == Context {
			i++
			continue
		}
		j, removes, prev := i, false, -1
		for ; j < len(lines) && lines[j].Op != Context; j++ {
			if lines[j].Op != Remove {
				continue
			}
			q := pair[oldIdx[j]]
			if removes && q != prev+1 {
				return false // a file line the patch does not show among the lines it replaces
			}
			removes, prev = true, q
		}
		if !removes {
			before, after := -1, -1
			if i > 0 {
				if before = pair[oldIdx[i-1]]; before < 0 {
					return false
				}
			}
			if j < len(lines) {
				if after = pair[oldIdx[j]]; after < 0 {
					return false
				}
			}
			if before >= 0 && after >= 0 && after != before+1 {
				return false
			}
		}
		i = j
	}
	return true
}

// closerWithoutEdge looks for a window, not among the LCS candidates, that starts on a line
// like the chunk's first or second old line and ends on one like its last or last but one,
// with another effect than the best candidate b and at most bestDist line edits from the
// chunk. It returns that window's start; exhausted reports that the work limit ended the
// search (the caller then refuses).
func (r *rescuer) closerWithoutEdge(on []string, oldCount map[string]int, from int, b lcsCand, bestDist int, cands []lcsCand) (start int, found, exhausted bool) {
	old, _ := r.body.old()
	m, n := len(old), r.s.n()
	if m < 2 || r.ch.EOF {
		return 0, false, false
	}
	known := map[[2]int]bool{}
	for _, c := range cands {
		known[[2]int{c.start, c.length}] = true
	}
	heads, tails := [][]string{old[:1], old[1:2]}, [][]string{old[m-1:], old[m-2 : m-1]}
	hn := [][][]string{r.normLevels(heads[0]), r.normLevels(heads[1])}
	tn := [][][]string{r.normLevels(tails[0]), r.normLevels(tails[1])}
	matchAny := func(pats [][]string, ns [][][]string, x int) bool {
		for i := range pats {
			if _, ok := r.edgeMatch(pats[i], ns[i], x); ok {
				return true
			}
		}
		return false
	}
	for p := from; p < n; p++ {
		if !matchAny(heads, hn, p) {
			if r.spent {
				return 0, false, true
			}
			continue
		}
		for length := max(1, m-bestDist); length <= m+bestDist && p+length <= n; length++ {
			if known[[2]int{p, length}] || !matchAny(tails, tn, p+length-1) {
				if r.spent {
					return 0, false, true
				}
				continue
			}
			if !r.spend(int64(length)) {
				return 0, false, true
			}
			win := make([]string, length)
			for j := range win {
				win[j] = r.s.ix.normLine(LevelUnicodeTrim, p+j)
			}
			if ub := upperBound(oldCount, win); m+length-2*ub > bestDist {
				continue
			}
			if !r.spend(int64(m * length)) {
				return 0, false, true
			}
			c := lcsCand{start: p, length: length}
			r.align(&c, on, win)
			if c.key != b.key && m+length-2*c.score <= bestDist {
				return p, true, false
			}
		}
	}
	return 0, false, false
}
