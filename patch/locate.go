package patch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// sectionLocator places the chunks of one Update section on the section's base version of the
// file (§3.4): anchors, the tolerance ladder with the unique-match rule, end-of-file anchoring,
// the trailing-blank retry, rescues (rescue.go), and the nearest-window diagnostic.
type sectionLocator struct {
	cfg     *config
	path    string // as written in the patch
	section int    // 1-based
	d       *doc
	ix      *lineIndex
}

func newSectionLocator(cfg *config, path string, section int, d *doc) *sectionLocator {
	return &sectionLocator{cfg: cfg, path: path, section: section, d: d, ix: newLineIndex(d.lines, d.bom)}
}

func (s *sectionLocator) n() int { return len(s.d.lines) }

func (s *sectionLocator) newErr(kind Kind, chunk, line int, msg string) *Error {
	return &Error{Kind: kind, Path: s.path, Line: line, Section: s.section, Chunk: chunk, Msg: msg}
}

// seekResult is the outcome of one ladder search.
type seekResult struct {
	pos       int // -1 when not found
	level     Level
	ambiguous bool
	cands     []int // 0-based candidate starts when ambiguous
}

// seek runs the tolerance ladder for pat from start (R24, R25, R28). At exact level the first
// position wins unless uniqueExact is set; at loose levels the match must be unique, and an
// ambiguity is final.
func (s *sectionLocator) seek(pat []string, start int, eof, uniqueExact bool) seekResult {
	return s.seekLevels(pat, start, eof, uniqueExact, LevelExact, s.cfg.maxTol)
}

// seekLevels runs the ladder from level lo to hi.
func (s *sectionLocator) seekLevels(pat []string, start int, eof, uniqueExact bool, lo, hi Level) seekResult {
	n, m := s.n(), len(pat)
	for l := lo; l <= hi; l++ {
		if eof {
			p := n - m
			if p >= 0 && s.ix.matchesAt(l, pat, normAll(l, pat), p) {
				return seekResult{pos: p, level: l}
			}
			continue
		}
		limit := 0
		if l == LevelExact && !uniqueExact {
			limit = 1
		}
		ps := s.ix.positions(l, pat, start, limit)
		switch {
		case len(ps) == 1:
			return seekResult{pos: ps[0], level: l}
		case len(ps) > 1:
			return seekResult{pos: -1, level: l, ambiguous: true, cands: ps}
		}
	}
	return seekResult{pos: -1}
}

func normAll(l Level, pat []string) []string {
	out := make([]string, len(pat))
	for i, p := range pat {
		out[i] = normalize(l, p)
	}
	return out
}

// chunkBody is a chunk's body with the patch-text line of each old-side line, so that edits
// and diagnostics can be derived after the trailing-blank retry changed it.
type chunkBody struct {
	lines []Line
}

func (b chunkBody) old() (texts []string, lines []int) {
	for _, l := range b.lines {
		if l.Op == Context || l.Op == Remove {
			texts = append(texts, l.Text)
			lines = append(lines, l.Line)
		}
	}
	return texts, lines
}

func (b chunkBody) new() []string {
	var out []string
	for _, l := range b.lines {
		if l.Op == Context || l.Op == Insert {
			out = append(out, l.Text)
		}
	}
	return out
}

func (b chunkBody) edits() []edit {
	out := make([]edit, len(b.lines))
	for i, l := range b.lines {
		out[i] = edit{op: l.Op, text: l.Text}
		if l.Op != Insert {
			out[i].text = ""
		}
	}
	return out
}

// withoutTrailingBlank returns the body for Codex's trailing-blank retry (R29): the last
// old-side line, which is empty, leaves the old side; a context line stays on the new side as
// an added empty line when added lines follow it.
func (b chunkBody) withoutTrailingBlank() chunkBody {
	idx := -1
	for i := len(b.lines) - 1; i >= 0; i-- {
		if b.lines[i].Op != Insert {
			idx = i
			break
		}
	}
	out := slices.Clone(b.lines)
	if out[idx].Op == Context && idx < len(out)-1 {
		out[idx].Op = Insert
		return chunkBody{lines: out}
	}
	return chunkBody{lines: slices.Delete(out, idx, idx+1)}
}

// locateAll places every chunk of the section and returns the placements sorted by position,
// with one report per chunk in patch order.
func (s *sectionLocator) locateAll(chunks []Chunk) ([]placement, []ChunkReport, error) {
	places := make([]placement, 0, len(chunks))
	reports := make([]ChunkReport, 0, len(chunks))
	cursor := 0
	n := s.n()
	for k, ch := range chunks {
		rep := ChunkReport{Section: s.section, Chunk: k + 1, Path: s.path}
		body := chunkBody{lines: ch.Lines}
		old, _ := body.old()
		pure := len(old) == 0
		for i, a := range ch.Anchors {
			insertionAnchor := pure && !ch.EOF && i == len(ch.Anchors)-1
			r := s.seek([]string{a}, cursor, false, insertionAnchor)
			if r.ambiguous {
				return nil, nil, s.anchorAmbiguous(k+1, ch.Line, a, r)
			}
			if r.pos < 0 {
				return nil, nil, s.newErr(KindNotFound, k+1, ch.Line,
					fmt.Sprintf("Failed to find context '%s' in %s", a, s.path))
			}
			cursor = r.pos + 1
			rep.AnchorLevel = max(rep.AnchorLevel, r.level)
		}
		if pure {
			at := n
			rep.Strategy = StrategyAppend
			if !ch.EOF && len(ch.Anchors) > 0 {
				at, rep.Strategy = cursor, StrategyAnchor
			}
			ed := body.edits()
			places = append(places, placement{start: at, end: at, edits: ed, order: k})
			rep.Start, rep.Added = at+1, len(ed)
			reports = append(reports, rep)
			continue
		}
		p, err := s.placeChunk(k+1, ch, body, cursor, &rep)
		if err != nil {
			return nil, nil, err
		}
		places = append(places, p)
		reports = append(reports, rep)
		cursor = p.end
	}
	sorted, err := s.order(places)
	if err != nil {
		return nil, nil, err
	}
	return sorted, reports, nil
}

// placeChunk locates a chunk with old lines: ladder, trailing-blank retry, rescues.
func (s *sectionLocator) placeChunk(k int, ch Chunk, body chunkBody, cursor int, rep *ChunkReport) (placement, error) {
	old, oldLines := body.old()
	r := s.seek(old, cursor, ch.EOF, false)
	if r.ambiguous {
		return placement{}, s.chunkAmbiguous(k, ch, oldLines, r)
	}
	if r.pos < 0 && old[len(old)-1] == "" && len(old) > 1 {
		retry := body.withoutTrailingBlank()
		rold, rlines := retry.old()
		rr := s.seek(rold, cursor, ch.EOF, false)
		if rr.ambiguous {
			return placement{}, s.chunkAmbiguous(k, ch, rlines, rr)
		}
		if rr.pos >= 0 {
			rep.BlankRetry = true
			rep.Notes = append(rep.Notes, "trailing blank line dropped from the old side")
			body, r = retry, rr
		}
	}
	if r.pos >= 0 {
		return s.finish(body, r.pos, Strategy(r.level.String()), k, rep), nil
	}
	if s.cfg.maxTol < LevelUnicodeTrim {
		// Levels beyond the cap are not accepted, but they still decide whether a rescue
		// may run: a chunk that would match (or be ambiguous) there is not rescued, so that
		// lowering the cap never turns a failure into a success.
		beyond := s.seekLevels(old, cursor, ch.EOF, false, s.cfg.maxTol+1, LevelUnicodeTrim)
		if beyond.ambiguous {
			return placement{}, s.chunkAmbiguous(k, ch, oldLines, beyond)
		}
		if beyond.pos >= 0 {
			note := fmt.Sprintf("the lines match only at %s (file line %d), beyond the tolerance cap %s",
				beyond.level, beyond.pos+1, s.cfg.maxTol)
			return placement{}, s.notFound(k, ch, body, cursor, []string{note})
		}
	}
	rs := &rescuer{s: s, ch: ch, body: body, cursor: cursor, budget: s.cfg.workLimit}
	p, ok, err := rs.run(k, rep)
	if err != nil {
		return placement{}, err
	}
	if ok {
		return p, nil
	}
	return placement{}, s.notFound(k, ch, body, cursor, rs.notes)
}

// finish builds the placement of body at pos and fills the report.
func (s *sectionLocator) finish(body chunkBody, pos int, st Strategy, k int, rep *ChunkReport) placement {
	old, _ := body.old()
	ed := body.edits()
	rep.Strategy = st
	rep.Start, rep.Len = pos+1, len(old)
	for _, e := range ed {
		switch e.op {
		case Remove:
			rep.Removed++
		case Insert:
			rep.Added++
		}
	}
	return placement{start: pos, end: pos + len(old), edits: ed, order: k - 1}
}

// order sorts placements by position (insertions before a window starting at the same line,
// equal positions in patch order) and rejects overlaps (R31).
func (s *sectionLocator) order(ps []placement) ([]placement, error) {
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b placement) int {
		if a.start != b.start {
			return a.start - b.start
		}
		ai, bi := a.start == a.end, b.start == b.end
		switch {
		case ai && !bi:
			return -1
		case !ai && bi:
			return 1
		}
		return a.order - b.order
	})
	pos, last := 0, -1
	for _, p := range sorted {
		if p.start < pos {
			i, j := min(last, p.order)+1, max(last, p.order)+1
			return nil, s.newErr(KindOverlap, j, 0,
				fmt.Sprintf("Overlapping patch chunks in %s: chunks %d and %d", s.path, i, j))
		}
		if p.end > p.start || p.end > pos {
			pos, last = p.end, p.order
		}
	}
	return sorted, nil
}

func fileLines(cands []int) string {
	var b strings.Builder
	for i, c := range cands {
		if i == 5 {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(c + 1))
	}
	return b.String()
}

func oneBased(cands []int) []int {
	out := make([]int, len(cands))
	for i, c := range cands {
		out[i] = c + 1
	}
	return out
}

func (s *sectionLocator) chunkAmbiguous(k int, ch Chunk, oldLines []int, r seekResult) *Error {
	line := ch.Line
	if len(oldLines) > 0 {
		line = oldLines[0]
	}
	e := s.newErr(KindAmbiguous, k, line, fmt.Sprintf(
		"Ambiguous match in %s: chunk %d matches %d places when compared with %s (file lines %s); "+
			"add context lines or an @@ anchor to choose one",
		s.path, k, len(r.cands), r.level, fileLines(r.cands)))
	e.Candidates = oneBased(r.cands)
	e.FileLine = r.cands[0] + 1
	return e
}

func (s *sectionLocator) anchorAmbiguous(k, line int, anchor string, r seekResult) *Error {
	e := s.newErr(KindAmbiguous, k, line, fmt.Sprintf(
		"Ambiguous context '%s' in %s: matches file lines %s (compared with %s)",
		anchor, s.path, fileLines(r.cands), r.level))
	e.Candidates = oneBased(r.cands)
	e.FileLine = r.cands[0] + 1
	return e
}

// notFound builds the KindNotFound error with the nearest-window diagnostic of R48.
func (s *sectionLocator) notFound(k int, ch Chunk, body chunkBody, cursor int, notes []string) *Error {
	old, oldLines := body.old()
	n, m := s.n(), len(old)
	var b strings.Builder
	fmt.Fprintf(&b, "Failed to find expected lines in %s:\n%s\n", s.path, strings.Join(old, "\n"))
	line := ch.Line
	if len(oldLines) > 0 {
		line = oldLines[0]
	}
	e := s.newErr(KindNotFound, k, line, "")
	lo := cursor
	if ch.EOF {
		lo = max(n-m, 0)
	}
	start, ok := s.nearest(old, cursor, ch.EOF)
	switch {
	case n == 0:
		b.WriteString("The file is empty.")
	case !ok:
		fmt.Fprintf(&b, "No similar lines found in file lines %d-%d.", min(lo+1, n), n)
	default:
		i := 0
		for i < m && start+i < n && s.ix.lineMatches(s.cfg.maxTol, old[i], start+i) {
			i++
		}
		if i == m {
			i = 0
		}
		q := start + i + 1
		ftext := "<end of file>"
		if q <= n {
			ftext = s.d.lines[q-1]
		}
		fmt.Fprintf(&b, "Closest match starts at file line %d; first difference:\n  patch line %d: %s\n  file line %d: %s",
			start+1, oldLines[i], old[i], q, ftext)
		e.Line, e.FileLine = oldLines[i], q
	}
	for _, note := range notes {
		fmt.Fprintf(&b, "\nRescue: %s.", note)
	}
	e.Msg = b.String()
	return e
}

// nearest finds the window start with the most old lines matching at unicode-trim, by voting
// through the index; ties go to the smallest start.
func (s *sectionLocator) nearest(old []string, cursor int, eof bool) (int, bool) {
	n, m := s.n(), len(old)
	if n == 0 {
		return 0, false
	}
	li := s.ix.level(LevelUnicodeTrim)
	votes := make(map[int]int)
	for i, o := range old {
		h, ok := li.head[normalize(LevelUnicodeTrim, o)]
		if !ok {
			continue
		}
		for q := h.first; q >= 0; q = li.next[q] {
			p := int(q) - i
			if eof {
				if p != n-m {
					continue
				}
			} else if p < cursor {
				continue
			}
			votes[p]++
		}
	}
	best, bestV := -1, 0
	for p, v := range votes {
		if v > bestV || (v == bestV && p < best) {
			best, bestV = p, v
		}
	}
	return best, best >= 0
}
