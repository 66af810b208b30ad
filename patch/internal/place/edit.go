package place

// What the face's string-replacement edits use of the core: the ladder over whole lines, the
// side check, and the closest place for the not-found message. An edit has no anchor and runs
// none of the rescues (see the face's ApplyEdits).

// A Match is the outcome of seeking lines on the ladder.
type Match struct {
	Pos       int   // 0-based first line; -1 when not found
	Level     Level // the level it matched at
	Ambiguous bool  // several places match at Level (an ambiguity is final)
	Cands     []int // 0-based starts of the places, when Ambiguous
	Exhausted bool  // the work limit ended the search before it was decided
}

// Seek seeks pat in the whole file on the ladder, from exact to the configured cap, under the
// rule of a chunk without an anchor: the match must be unique at every level, exact included.
func (s *Locator) Seek(pat []string) Match {
	s.work = workBudget{limit: s.cfg.WorkLimit}
	r := s.seekLevels(pat, 0, false, true, LevelExact, s.cfg.MaxTol)
	return Match{Pos: r.pos, Level: r.level, Ambiguous: r.ambiguous, Cands: r.cands, Exhausted: r.exhausted}
}

// MatchesAt reports whether every line of pat matches the file at line p (0-based) at level l.
func (s *Locator) MatchesAt(l Level, pat []string, p int) bool {
	return p >= 0 && p+len(pat) <= s.n() && s.ix.matchesAt(l, pat, normAll(l, pat), p)
}

// LineMatches reports whether the patch line p matches file line i (0-based) at level l.
func (s *Locator) LineMatches(l Level, p string, i int) bool { return s.ix.lineMatches(l, p, i) }

// A Twin is a second reading of a loose match (see sideTwin): the patch line Text is paired
// with file line F, while file line G nearby is that line more exactly (both 0-based).
type Twin struct {
	Text string
	F, G int
}

// SideTwin checks the lines of a change (context, removed and added lines, in order) paired
// with the file lines pair (one per context or removed line, 0-based) for a second reading.
func (s *Locator) SideTwin(lines []Line, pair []int) (Twin, bool) {
	tw, ok := s.sideTwin(chunkBody{lines: lines}, pair)
	return Twin{Text: tw.line.Text, F: tw.f, G: tw.g}, ok
}

// Nearest returns the 0-based start of the window of the file that holds the most lines of
// old at the loosest level; ok is false when no line of old is in the file or the file is
// empty, and exhausted says the work limit stopped the search.
func (s *Locator) Nearest(old []string) (start int, ok, exhausted bool) {
	w := workBudget{limit: s.cfg.WorkLimit}
	start, ok = s.nearest(old, 0, false, &w)
	return start, ok, w.exhausted()
}
