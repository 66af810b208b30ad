package place

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Locator places the chunks of one Update section on the section's base version of the
// file: anchors, the tolerance ladder with the unique-match rules, end-of-file anchoring, the
// trailing-blank retry, chunks given out of order, the already-applied check, rescues
// (rescue.go), and the nearest-window diagnostic.
type Locator struct {
	cfg      *Config
	path     string   // as written in the patch
	section  int      // 1-based
	lines    []string // the section's base version of the file, without terminators
	ix       *lineIndex
	work     workBudget       // locating budget of the current chunk
	placed   []placement      // windows placed so far in this section
	mixed    []appliedChunk   // chunks placed partly applied (mixedApplied): line is the window's first
	chunks   []Chunk          // the section's chunks (for sameChunks)
	same     map[string][]int // chunks by their lines, built when first needed (sameAs)
	assigned map[int]sameSlot // 1-based chunk → its place given out by sameChunks
}

// New returns the Locator of one Update section: path is the file's name as the patch writes
// it (for messages), section its 1-based index, lines the file's lines before the section
// without their terminators (and without a byte order mark), and bom whether the file had one
// (a leading U+FEFF on a pattern line compared with line 1 is then ignored). cfg is read, never
// written.
func New(cfg *Config, path string, section int, lines []string, bom bool) *Locator {
	return &Locator{cfg: cfg, path: path, section: section, lines: lines, ix: newLineIndex(lines, bom)}
}

func (s *Locator) n() int { return len(s.lines) }

func (s *Locator) newErr(kind Kind, chunk, line int, msg string) *Error {
	return &Error{Kind: kind, Path: s.path, Line: line, Section: s.section, Chunk: chunk, Msg: msg}
}

// seekResult is the outcome of one ladder search.
type seekResult struct {
	pos       int // -1 when not found
	level     Level
	ambiguous bool
	cands     []int // 0-based candidate starts when ambiguous
	exhausted bool  // the work limit ended the search before it was decided
}

// seek runs the tolerance ladder for pat from start. At exact level the first position wins
// unless uniqueExact is set; at loose levels the match must be unique, and an ambiguity is
// final.
func (s *Locator) seek(pat []string, start int, eof, uniqueExact bool) seekResult {
	return s.seekLevels(pat, start, eof, uniqueExact, LevelExact, s.cfg.MaxTol)
}

// seekLevels runs the ladder from level lo to hi.
func (s *Locator) seekLevels(pat []string, start int, eof, uniqueExact bool, lo, hi Level) seekResult {
	n, m := s.n(), len(pat)
	for l := lo; l <= hi; l++ {
		if eof {
			p := n - m
			if s.cfg.Codex && p < start {
				// Codex never tries an end-of-file window above its cursor.
				return seekResult{pos: -1}
			}
			if !s.work.spend(int64(m)) {
				return seekResult{pos: -1, level: l, exhausted: true}
			}
			if p >= 0 && s.ix.matchesAt(l, pat, normAll(l, pat), p) {
				return seekResult{pos: p, level: l}
			}
			continue
		}
		limit := 0
		if l == LevelExact && !uniqueExact {
			limit = 1
		}
		ps := s.ix.positions(l, pat, start, limit, &s.work)
		switch {
		case len(ps) == 1 && (limit == 1 || !s.work.exhausted()):
			return seekResult{pos: ps[0], level: l}
		case len(ps) > 1:
			return seekResult{pos: -1, level: l, ambiguous: true, cands: ps, exhausted: s.work.exhausted()}
		case s.work.exhausted():
			return seekResult{pos: -1, level: l, exhausted: true, cands: ps}
		}
	}
	return seekResult{pos: -1}
}

func normAll(l Level, pat []string) []string {
	out := make([]string, len(pat))
	for i, p := range pat {
		out[i] = Normalize(l, p)
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

// changeSpan returns the indexes of the first and last changed (removed or added) line of
// the body, or -1, -1 when it changes nothing.
func (b chunkBody) changeSpan() (first, last int) {
	first, last = -1, -1
	for i, l := range b.lines {
		if l.Op != Context {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
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

func (b chunkBody) edits() []Edit {
	out := make([]Edit, len(b.lines))
	for i, l := range b.lines {
		out[i] = Edit{Op: l.Op, Text: l.Text}
		if l.Op != Insert {
			out[i].Text = ""
		}
	}
	return out
}

// withoutTrailingBlank returns the body for Codex's trailing-blank retry: the last
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

// endsWithBlankContext reports whether the chunk's last line is a blank context line, the
// trailing-newline artefact Codex's retry is for. Outside compat mode the retry needs it: a
// removed blank line is a removal the patch names, and a blank context line followed by added
// lines would become an added line.
func (b chunkBody) endsWithBlankContext() bool {
	n := len(b.lines)
	return n > 0 && b.lines[n-1].Op == Context && b.lines[n-1].Text == ""
}

// unifiedHeader matches the text after "@@ " of a unified-diff chunk header,
// "-a[,b] +c[,d] @@" optionally followed by text (git writes a function name there).
var unifiedHeader = regexp.MustCompile(`^-(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@(?:[ \t]+(.*))?$`)

// anchorsOf returns the anchors a chunk is located with. In the default mode an anchor written
// as a unified-diff header is not searched for: the text after its second "@@", if any, is
// the anchor, and the old-side line number it names is returned for diagnostics (0 if none).
func (s *Locator) anchorsOf(ch Chunk) ([]string, int) {
	if s.cfg.Codex {
		return ch.Anchors, 0
	}
	var out []string
	said := 0
	for _, a := range ch.Anchors {
		m := unifiedHeader.FindStringSubmatch(a)
		if m == nil {
			out = append(out, a)
			continue
		}
		said, _ = strconv.Atoi(m[1])
		if t := m[2]; strings.TrimSpace(t) != "" {
			out = append(out, t)
		}
	}
	return out, said
}

// appliedChunk records a chunk whose change is already in the file.
type appliedChunk struct {
	chunk, line int // 1-based chunk index and file line where its new side was found
	// sound: the new side is at line exactly and nowhere else in the file, and no removed
	// line of the chunk is left as written (see appliedSound): the rest of the patch may be
	// applied around it.
	sound bool
	size  int // lines of the new side
}

// Locate places every chunk of the section and returns the placements sorted by position,
// with one report per chunk in patch order. A failure is an [*Error].
func (s *Locator) Locate(chunks []Chunk) ([]Placement, []ChunkReport, error) {
	places, reports, err := s.locateAll(chunks)
	return export(places), reports, err
}

// locateAll places every chunk of the section and returns the placements sorted by position,
// with one report per chunk in patch order.
func (s *Locator) locateAll(chunks []Chunk) ([]placement, []ChunkReport, error) {
	var texts []string
	for _, ch := range chunks {
		texts = append(texts, ch.Anchors...)
		for _, l := range ch.Lines {
			texts = append(texts, l.Text)
		}
	}
	s.ix.restrictExact(texts)
	s.chunks, s.same, s.assigned = chunks, nil, nil
	places := make([]placement, 0, len(chunks))
	reports := make([]ChunkReport, 0, len(chunks))
	var applied []appliedChunk
	cursor := 0
	fail := func(k int, err error) ([]placement, []ChunkReport, error) {
		if len(applied) > 0 || len(s.mixed) > 0 {
			return nil, nil, s.alreadyApplied(applied, len(chunks), k, err)
		}
		return nil, nil, err
	}
	for k, ch := range chunks {
		s.work = workBudget{limit: s.cfg.WorkLimit}
		rep := ChunkReport{Section: s.section, Chunk: k + 1, Path: s.path}
		body := chunkBody{lines: ch.Lines}
		old, _ := body.old()
		pure := len(old) == 0
		anchors, said := s.anchorsOf(ch)
		at := cursor
		var missing *Error // an anchor not found, for a chunk its own lines may still place
		missed := ""
		lastFrom, lastLevel := 0, LevelExact // where the last anchor was sought from, and its level
		for i, a := range anchors {
			insertionAnchor := pure && !ch.EOF && i == len(anchors)-1
			lastFrom = at
			r := s.seek([]string{a}, at, false, insertionAnchor)
			if r.pos < 0 && !r.ambiguous && !s.cfg.Codex && at > 0 {
				// An anchor above the cursor: a chunk given out of order, taken only when the
				// anchor is unique in the whole file.
				if rr := s.seek([]string{a}, 0, false, true); rr.pos >= 0 || rr.ambiguous {
					r = rr
					if rr.pos >= 0 {
						rep.Notes = append(rep.Notes, noteOutOfOrder(rr.pos))
					}
				}
			}
			if r.ambiguous {
				return fail(k+1, s.anchorAmbiguous(k+1, ch.Line, a, r))
			}
			if r.pos < 0 {
				e := s.newErr(KindNotFound, k+1, ch.Line, fmt.Sprintf("Failed to find context '%s' in %s", CutLine(a), s.path))
				if s.cfg.Codex || pure {
					return fail(k+1, e)
				}
				// The anchor is a hint: the chunk's own lines may still place it, under the
				// rules of a chunk without one (below).
				missing, missed = e, a
				break
			}
			at = r.pos + 1
			rep.AnchorLevel = max(rep.AnchorLevel, r.level)
			lastLevel = r.level
		}
		if missing == nil && !pure && len(anchors) > 0 && lastLevel == LevelExact {
			if err := s.anchorChoice(k+1, ch, body, anchors[len(anchors)-1], lastFrom, at); err != nil {
				return fail(k+1, err)
			}
		}
		if pure {
			ins := s.n()
			rep.Strategy = StrategyAppend
			if !ch.EOF && len(anchors) > 0 {
				ins, rep.Strategy = at, StrategyAnchor
			}
			if line, ok := s.insertedAlready(body, ins, rep.Strategy == StrategyAppend); ok {
				applied = append(applied, s.appliedAt(k+1, body, line))
				reports = append(reports, s.appliedReport(rep, applied[len(applied)-1]))
				continue
			}
			ed := body.edits()
			places = append(places, placement{start: ins, end: ins, edits: ed, order: k})
			rep.Start, rep.Added = ins+1, len(ed)
			reports = append(reports, rep)
			if len(anchors) > 0 {
				// The anchors moved the search below them, also for an insertion at the end
				// of the file (as in Codex).
				cursor = max(cursor, at)
			}
			continue
		}
		if missing != nil {
			at = cursor
		}
		p, line, err := s.placeChunk(k+1, ch, body, at, len(anchors) == 0 || missing != nil, &rep)
		if err != nil && missing != nil {
			err = anchorMissingErr(missing, err)
		}
		if err == nil && missing != nil && line == 0 {
			rep.AnchorLevel = 0
			rep.Notes = append(rep.Notes, s.anchorNote(missed, p.start, cursor))
		}
		if err != nil {
			var pe *Error
			if said > 0 && errors.As(err, &pe) && pe.Kind == KindNotFound {
				pe.Msg += fmt.Sprintf("\nThe chunk header said line %d; line numbers are never used to place a chunk.", said)
			}
			return fail(k+1, err)
		}
		if said > 0 && line == 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the patch said line %d; the lines were found at line %d", said, p.start+1))
		}
		if line > 0 {
			applied = append(applied, s.appliedAt(k+1, body, line))
			reports = append(reports, s.appliedReport(rep, applied[len(applied)-1]))
			continue
		}
		if err := s.besideAlready(k+1, ch, p); err != nil {
			return fail(k+1, err)
		}
		places = append(places, p)
		s.placed = append(s.placed, p)
		reports = append(reports, rep)
		cursor = max(cursor, p.end)
	}
	if (len(applied) > 0 || len(s.mixed) > 0) && (len(places) == 0 || !s.partlyApplied(applied, places, reports)) {
		return nil, nil, s.alreadyApplied(applied, len(chunks), 0, nil)
	}
	if err := s.rescuedInOrder(places, reports); err != nil {
		return nil, nil, err
	}
	if err := s.copiesExcluded(places, reports, chunks); err != nil {
		return nil, nil, err
	}
	sorted, err := s.order(places)
	if err != nil {
		return nil, nil, err
	}
	return sorted, reports, nil
}

// Rescued reports whether a strategy is one of the rescues: a placement by lines that did not
// all match, chosen because no other place fits as well.
func Rescued(st Strategy) bool {
	return st == StrategyPrefixSuffix || st == StrategyLCS || st == StrategyStaleEdges
}

// rescuedInOrder refuses a section in which a chunk placed by a rescue and another chunk would
// land in the reverse of the patch's order (a later chunk above an earlier one). Only the
// ladder proves a place on its own (the chunk's lines as written, unique in the file); a rescue
// picks the place that fits best, and when that place contradicts the order the patch gives
// its chunks, the file no longer reads as the patch says: the other edit moved or swapped the
// blocks, and which chunk goes where is a guess. places are in patch order; reports hold one
// report per chunk.
func (s *Locator) rescuedInOrder(places []placement, reports []ChunkReport) error {
	if s.cfg.Codex {
		return nil
	}
	top, topRescued := -1, -1 // the earlier placement lowest in the file, of any strategy and rescued
	for i, p := range places {
		if reports[p.order].Strategy == StrategyAppend {
			continue // the end of the file by definition, whatever the order
		}
		r := Rescued(reports[p.order].Strategy)
		other := top
		if !r {
			other = topRescued
		}
		if other >= 0 && p.start < places[other].start {
			q := places[other]
			e := s.newErr(KindAmbiguous, p.order+1, 0, fmt.Sprintf(
				"Out of order in %s: chunk %d (%s, file line %d) would land above chunk %d (%s, file line %d), "+
					"the reverse of the patch's order; a place found by a rescue does not prove such a move. "+
					"Give each chunk context lines the file has now, or send the chunks as the file orders them",
				s.path, p.order+1, reports[p.order].Strategy, p.start+1, q.order+1, reports[q.order].Strategy, q.start+1))
			e.FileLine, e.Candidates = p.start+1, []int{q.start + 1, p.start + 1}
			return e
		}
		if top < 0 || p.start > places[top].start {
			top = i
		}
		if r && (topRescued < 0 || p.start > places[topRescued].start) {
			topRescued = i
		}
	}
	return nil
}

// anchorChoice refuses an anchor that is on several lines when the chunk's lines, sought
// exactly after each of them, are at different places: taking the first, as Codex does, would
// be a guess. at is just below the anchor line found first, from where it was sought.
func (s *Locator) anchorChoice(k int, ch Chunk, body chunkBody, anchor string, from, at int) *Error {
	if s.cfg.Codex {
		return nil
	}
	ps := s.ix.positions(LevelExact, []string{anchor}, from, 0, &s.work)
	if len(ps) < 2 {
		return nil
	}
	old, _ := body.old()
	first := s.ix.positions(LevelExact, old, at, 1, &s.work)
	if len(first) == 0 {
		return nil
	}
	for _, p := range ps[1:] {
		if next := s.ix.positions(LevelExact, old, p+1, 1, &s.work); len(next) > 0 && next[0] != first[0] {
			e := s.anchorAmbiguous(k, ch.Line, anchor, seekResult{level: LevelExact, cands: ps, exhausted: s.work.exhausted()})
			e.Msg += fmt.Sprintf("; the chunk's lines follow them at different places (file lines %d and %d); give an anchor that is on one line only, or more context lines", first[0]+1, next[0]+1)
			return e
		}
	}
	return nil
}

// anchorMissingErr is the error of a chunk whose anchor was not found and whose own lines did
// not place it either: the anchor's error, with why the lines did not.
func anchorMissingErr(anchor *Error, err error) error {
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind == KindIO {
		return err
	}
	why, _, _ := strings.Cut(pe.Msg, "\n")
	e := *anchor
	e.Msg += "; without it, the chunk's lines do not place it either: " + why
	if pe.Kind == KindAmbiguous || pe.Kind == KindAlreadyApplied || pe.Kind == KindOverlap || pe.Kind == KindChanged {
		e.Kind = pe.Kind
	}
	e.FileLine = pe.FileLine
	return &e
}

// anchorRenameWindow bounds how far above a chunk placed without its anchor a renamed anchor
// is looked for.
const anchorRenameWindow = 200

// anchorNote is the report note of a chunk placed by its own lines after its anchor was not
// found: the nearest line above the chunk (below the cursor) that resembles the anchor is
// named as the anchor renamed.
func (s *Locator) anchorNote(anchor string, start, cursor int) string {
	note := fmt.Sprintf("anchor not found: '%s' is not in the file; the chunk's own lines placed it (unique in the file)", CutLine(anchor))
	if strings.TrimSpace(anchor) == "" {
		return note
	}
	r := &rescuer{s: s, budget: s.cfg.WorkLimit}
	for i := start - 1; i >= max(0, cursor, start-anchorRenameWindow); i-- {
		f := s.lines[i]
		if strings.TrimSpace(f) != "" && r.resembles(anchor, f) {
			return fmt.Sprintf("anchor renamed: '%s' is not in the file; file line %d '%s' above the chunk resembles it, and the chunk's own lines placed it (unique in the file)",
				CutLine(anchor), i+1, CutLine(f))
		}
		if r.spent {
			break
		}
	}
	return note
}

// appliedAt records chunk k (1-based), whose new side was found at 1-based file line, and
// whether that finding is sound enough to apply the rest of the patch around it: the chunk
// removes a line with a letter or a digit (a chunk that only adds lines may mean them twice,
// unless additionSettled),
// its new side is there exactly and nowhere else in the file, and no run of its removed lines
// that has a letter or a digit is still in the file as written (the change replaced them).
func (s *Locator) appliedAt(k int, body chunkBody, line int) appliedChunk {
	added := body.new()
	a := appliedChunk{chunk: k, line: line, size: len(added)}
	if s.cfg.Codex || len(added) == 0 {
		return a
	}
	if ps := s.ix.positions(LevelExact, added, 0, 2, &s.work); len(ps) != 1 || ps[0] != line-1 || s.work.exhausted() {
		return a
	}
	var run []string
	named := false // a removed run with a letter or digit: a chunk that only adds lines may mean them twice
	gone := func() bool {
		sig := SignificantLines(run)
		named = named || sig
		ok := !sig || len(s.ix.positions(LevelExact, run, 0, 1, &s.work)) == 0 && !s.work.exhausted()
		run = run[:0]
		return ok
	}
	for _, l := range body.lines {
		if l.Op == Remove {
			run = append(run, l.Text)
			continue
		}
		if !gone() {
			return a
		}
	}
	a.sound = gone() && (named || s.additionSettled(body)) && !s.changeLeft(body, line-1, len(added))
	return a
}

// additionSettled reports whether a chunk that only adds lines, found applied, is soundly so:
// its added lines have a letter or a digit and stand between context lines on both sides, and
// its old side (the context lines next to each other, without the added lines) is nowhere in
// the file as written. Then the chunk cannot be applied anywhere as it is, and the lines it
// names around the addition are in the file only with the addition between them: the change
// is there (made by the other edit too, as a 3-way merge reads it), not a second copy the
// patch means to add.
func (s *Locator) additionSettled(body chunkBody) bool {
	first, last := -1, -1
	var ins []string
	for i, l := range body.lines {
		switch l.Op {
		case Remove:
			return false
		case Insert:
			if first < 0 {
				first = i
			}
			last = i
			ins = append(ins, l.Text)
		}
	}
	if first <= 0 || last == len(body.lines)-1 || !SignificantLines(ins) {
		return false
	}
	old, _ := body.old()
	return len(s.ix.positions(LevelExact, old, 0, 1, &s.work)) == 0 && !s.work.exhausted()
}

// appliedReport is the report of a chunk found already applied (rep has its anchor level).
func (s *Locator) appliedReport(rep ChunkReport, a appliedChunk) ChunkReport {
	rep.Strategy = StrategyAlreadyApplied
	rep.Start, rep.Len = a.line, a.size
	rep.Notes = append(rep.Notes, fmt.Sprintf("already applied: the chunk's new lines are at file line %d; left as they are", a.line))
	return rep
}

// partlyApplied reports whether the chunks found applied may stay as they are while the
// placed ones are applied: each was found soundly (appliedAt); each placed chunk was matched
// with its lines as the patch has them (at a ladder level, not by a rescue: in a file that
// already holds part of the change, lines that drifted may be another part of it) and does
// not add two lines in a row that the file already has, nor has its new side already in the
// file over or beside its window (that part of the change may be there too: a chunk whose old
// lines still match after it was applied); and the windows of all the chunks, applied and placed, are disjoint and in the
// patch's order (a change found applied out of that order is more likely at a near copy of
// the chunk's real place).
func (s *Locator) partlyApplied(applied []appliedChunk, places []placement, reports []ChunkReport) bool {
	type win struct{ order, start, end int }
	var ws []win
	for _, a := range applied {
		if !a.sound {
			return false
		}
		ws = append(ws, win{a.chunk - 1, a.line - 1, a.line - 1 + a.size})
	}
	for _, r := range reports {
		if _, ladder := levelOf(r.Strategy); !ladder && r.Strategy != StrategyAlreadyApplied {
			return false
		}
	}
	for _, p := range places {
		ws = append(ws, win{p.order, p.start, p.end})
		if s.newSideAround(p) {
			return false
		}
		if !slices.ContainsFunc(s.mixed, func(a appliedChunk) bool { return a.chunk == p.order+1 }) &&
			s.changeMade(chunkBody{lines: s.chunks[p.order].Lines}, p) {
			return false
		}
		var run []string
		for _, e := range append(slices.Clone(p.edits), Edit{Op: Context}) {
			if e.Op == Insert && SignificantLines([]string{e.Text}) {
				run = append(run, e.Text)
				continue
			}
			if len(run) >= 2 {
				for i := 0; i+2 <= len(run); i++ {
					if len(s.ix.positions(LevelExact, run[i:i+2], 0, 1, &s.work)) > 0 || s.work.exhausted() {
						return false
					}
				}
			}
			run = run[:0]
		}
	}
	slices.SortFunc(ws, func(a, b win) int { return a.order - b.order })
	for i := 1; i < len(ws); i++ {
		if ws[i].start < ws[i-1].end || ws[i].start < ws[i-1].start {
			return false
		}
	}
	return true
}

// newSideAround reports whether the new side of placement p (the file's kept lines and the
// added lines) is already in the file exactly, at a window overlapping or touching p's.
func (s *Locator) newSideAround(p placement) bool {
	var nw []string
	Walk(p.start, p.edits, func(i int) { nw = append(nw, s.lines[i]) }, func(text string) { nw = append(nw, text) })
	if len(nw) == 0 {
		return false
	}
	for _, q := range s.ix.positions(LevelExact, nw, max(0, p.start-len(nw)), 0, &s.work) {
		if q <= p.end && q+len(nw) >= p.start {
			return true
		}
	}
	return s.work.exhausted()
}

// copiesExcluded checks the near copies a stale-edges placement left to the patch's order
// (placement.copies). A copy is excluded when the chunk, placed there, would land out of the
// patch's order with a chunk whose own place is proven: a later chunk whose window starts
// between the chunk's window and the copy's end, or an earlier one whose window ends between
// the copy's start and the chunk's window. A proven place is one that does not depend on
// where the chunk before it was put: a ladder match that is unique in the whole file, or
// another stale-edges placement (a block unique in the whole file, whose own copies are checked
// here too). Any copy not excluded refuses the section, naming both places.
func (s *Locator) copiesExcluded(places []placement, reports []ChunkReport, chunks []Chunk) error {
	proven := map[int]bool{} // by chunk index, computed once
	isProven := func(o placement) bool {
		if v, ok := proven[o.order]; ok {
			return v
		}
		rep := reports[o.order]
		v := false
		switch l, ladder := levelOf(rep.Strategy); {
		case rep.Strategy == StrategyStaleEdges:
			v = true
		case ladder && !rep.BlankRetry && o.end > o.start:
			old, _ := chunkBody{lines: chunks[o.order].Lines}.old()
			w := workBudget{limit: s.cfg.WorkLimit}
			v = len(s.ix.positions(l, old, 0, 2, &w)) == 1 && !w.exhausted()
		}
		proven[o.order] = v
		return v
	}
	for _, p := range places {
		m := p.end - p.start
		for _, q := range p.copies {
			excluded := false
			for _, o := range places {
				if o.end == o.start {
					continue // an insertion proves no place of its own
				}
				between := o.order > p.order && q > p.start && o.start >= p.end && o.start < q+m ||
					o.order < p.order && q < p.start && o.end <= p.start && o.end > q
				if between && isProven(o) {
					excluded = true
					break
				}
			}
			if !excluded {
				e := s.newErr(KindAmbiguous, p.order+1, 0, fmt.Sprintf(
					"Ambiguous placement in %s: chunk %d, with outer context lines left out, matches %s and resembles %s, "+
						"and no other chunk of the patch, placed for certain, lies between the two to rule that place out; add context lines the file has now",
					s.path, p.order+1, fileSpan(p.start, p.end), fileSpan(q, q+m)))
				e.FileLine, e.Candidates = p.start+1, []int{p.start + 1, q + 1}
				return e
			}
		}
	}
	return nil
}

// levelOf returns the ladder level a strategy names, if it names one.
func levelOf(st Strategy) (Level, bool) {
	for l := LevelExact; l <= LevelUnicodeTrim; l++ {
		if string(st) == l.String() {
			return l, true
		}
	}
	return 0, false
}

func noteOutOfOrder(pos int) string {
	return fmt.Sprintf("out of order: found at file line %d, above the previous chunk", pos+1)
}

// hasAddedText reports whether the body adds a line with a non-blank character: only such
// chunks are checked for being applied already (adding a blank line twice is legitimate).
func (b chunkBody) hasAddedText() bool {
	for _, l := range b.lines {
		if l.Op == Insert && strings.TrimSpace(l.Text) != "" {
			return true
		}
	}
	return false
}

func (b chunkBody) hasRemove() bool {
	for _, l := range b.lines {
		if l.Op == Remove {
			return true
		}
	}
	return false
}

// matchesAnyLevel reports whether pat matches at p at some ladder level up to the cap.
func (s *Locator) matchesAnyLevel(pat []string, p int) bool {
	if p < 0 || p+len(pat) > s.n() {
		return false
	}
	for l := LevelExact; l <= s.cfg.MaxTol; l++ {
		if !s.work.spend(int64(len(pat))) {
			return false
		}
		if s.ix.matchesAt(l, pat, normAll(l, pat), p) {
			return true
		}
	}
	return false
}

// insertedAlready reports whether the added lines of a pure insertion are already at its
// insertion point: right after the anchor, or at the end of the file for an append.
func (s *Locator) insertedAlready(body chunkBody, at int, appendAtEnd bool) (int, bool) {
	if s.cfg.Codex || !body.hasAddedText() {
		return 0, false
	}
	added := body.new()
	if appendAtEnd {
		at = s.n() - len(added)
	}
	if s.matchesAnyLevel(added, at) {
		return at + 1, true
	}
	return 0, false
}

// appliedAround reports whether a chunk without removed lines, whose old (context) lines
// were found at pos, already has its added lines there: its new side matches at pos, shifted
// up by the added lines that precede its first context line.
func (s *Locator) appliedAround(body chunkBody, pos int) (int, bool) {
	if s.cfg.Codex || body.hasRemove() || !body.hasAddedText() {
		return 0, false
	}
	lead := 0
	for _, l := range body.lines {
		if l.Op != Insert {
			break
		}
		lead++
	}
	p := pos - lead
	if s.matchesAnyLevel(body.new(), p) {
		return p + 1, true
	}
	return 0, false
}

// appliedElsewhere reports whether a chunk whose old side was found nowhere has its new side at
// or after the cursor (exactly, or uniquely at a loose level): the change is already there.
func (s *Locator) appliedElsewhere(body chunkBody, cursor int, eof bool) (int, bool) {
	if s.cfg.Codex || !body.hasAddedText() {
		return 0, false
	}
	r := s.seek(body.new(), cursor, eof, false)
	if r.pos < 0 && eof && !r.ambiguous {
		// Lines a later chunk appended may follow a change pinned to the end of the file.
		r = s.seek(body.new(), cursor, false, false)
	}
	if r.pos >= 0 {
		return r.pos + 1, true
	}
	return 0, false
}

// alreadyApplied builds the KindAlreadyApplied error of a section in which some chunks are
// already applied; failed (1-based, 0 if none) is a chunk that could not be placed, with its
// error.
func (s *Locator) alreadyApplied(applied []appliedChunk, chunks, failed int, cause error) *Error {
	first := append(slices.Clone(applied), s.mixed...)[0]
	e := s.newErr(KindAlreadyApplied, first.chunk, 0, "")
	e.FileLine = first.line
	if len(applied) == 1 && chunks == 1 {
		e.Msg = fmt.Sprintf("This change is already in %s at line %d; nothing was written", s.path, applied[0].line)
		return e
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Part of this change is already in %s; nothing was written:", s.path)
	done := map[int]int{}
	for _, a := range applied {
		done[a.chunk] = a.line
	}
	part := map[int]int{}
	for _, a := range s.mixed {
		part[a.chunk] = a.line
	}
	for k := 1; k <= chunks; k++ {
		switch line, ok := done[k]; {
		case ok:
			fmt.Fprintf(&b, "\n  chunk %d: already applied at line %d", k, line)
		case part[k] > 0:
			fmt.Fprintf(&b, "\n  chunk %d: partly applied at line %d (some of its changes are there, not all)", k, part[k])
		case k == failed:
			kind := KindIO
			var pe *Error
			if errors.As(cause, &pe) {
				kind = pe.Kind
			}
			fmt.Fprintf(&b, "\n  chunk %d: cannot be placed (%s)", k, kind)
		case failed > 0 && k > failed:
			fmt.Fprintf(&b, "\n  chunk %d: not checked", k)
		default:
			fmt.Fprintf(&b, "\n  chunk %d: not applied yet", k)
		}
	}
	b.WriteString("\nRemove the chunks that are already applied and send the rest again.")
	e.Msg = b.String()
	return e
}

// elsewhere returns the other places where the old lines of body match at level l in the
// whole file, leaving out pos and windows that overlap the chunks placed so far.
func (s *Locator) elsewhere(body chunkBody, l Level, pos int) []int {
	old, _ := body.old()
	var out []int
	for _, p := range s.ix.positions(l, old, 0, 0, &s.work) {
		if _, hit := s.overlapping(p, p+len(old)); p != pos && !hit {
			out = append(out, p)
		}
	}
	return out
}

// overlapping returns the first window placed earlier that [start, end) overlaps.
func (s *Locator) overlapping(start, end int) (placement, bool) {
	for _, p := range s.placed {
		if start < p.end && p.start < end {
			return p, true
		}
	}
	return placement{}, false
}

// overlapErr is the KindOverlap error of chunk k, whose lines are at [start, end), a window
// that overlaps chunk q's.
func (s *Locator) overlapErr(k, line, start, end int, q placement) *Error {
	e := s.newErr(KindOverlap, k, line, overlapMsg(s.path, q, placement{start: start, end: end, order: k - 1}))
	e.FileLine = start + 1
	return e
}

// overlapMsg names two overlapping windows, the earlier chunk of the patch first.
func overlapMsg(path string, a, b placement) string {
	if b.order < a.order {
		a, b = b, a
	}
	return fmt.Sprintf("Overlapping patch chunks in %s: chunks %d and %d: chunk %d is at %s and chunk %d at %s; "+
		"give each line to one chunk only (merge the two chunks into one)",
		path, a.order+1, b.order+1, a.order+1, fileSpan(a.start, a.end), b.order+1, fileSpan(b.start, b.end))
}

// fileSpan names the 0-based window [start, end) by 1-based file lines.
func fileSpan(start, end int) string {
	switch {
	case end == start:
		return fmt.Sprintf("an insertion before file line %d", start+1)
	case end == start+1:
		return fmt.Sprintf("file line %d", start+1)
	}
	return fmt.Sprintf("file lines %d-%d", start+1, end)
}

// placeChunk locates a chunk with old lines: ladder, trailing-blank retry, out-of-order
// search, the already-applied check, rescues. A chunk found already applied returns the file
// line where its new side is (and no placement).
func (s *Locator) placeChunk(k int, ch Chunk, body chunkBody, cursor int, noAnchor bool, rep *ChunkReport) (placement, int, error) {
	old, oldLines := body.old()
	uniqueExact := noAnchor && !s.cfg.Codex
	if slot, ok := s.assigned[k]; ok {
		// another chunk with the same lines gave this one its place (sameChunks)
		pos := slot.ps[slot.i]
		if q, hit := s.overlapping(pos, pos+len(old)); hit {
			return placement{}, 0, s.overlapErr(k, oldLines[0], pos, pos+len(old), q)
		}
		if pos < cursor {
			// a chunk between the same chunks took a place below this one: the patch's order
			// does not give this chunk that place, and which place it means is not known
			return placement{}, 0, s.chunkAmbiguous(k, ch, oldLines, seekResult{level: LevelExact, ambiguous: true, cands: slot.ps})
		}
		rep.Notes = append(rep.Notes, sameNote(slot))
		return s.finish(body, pos, Strategy(LevelExact.String()), k, rep), 0, nil
	}
	r := s.seek(old, cursor, ch.EOF, uniqueExact)
	if r.ambiguous {
		if pos, ok := s.sameChunks(k, ch, old, cursor, r, rep); ok {
			return s.finish(body, pos, Strategy(LevelExact.String()), k, rep), 0, nil
		}
		return placement{}, 0, s.chunkAmbiguous(k, ch, oldLines, r)
	}
	if r.pos < 0 && !r.exhausted && old[len(old)-1] == "" && len(old) > 1 && (s.cfg.Codex || body.endsWithBlankContext()) {
		retry := body.withoutTrailingBlank()
		rold, rlines := retry.old()
		rr := s.seek(rold, cursor, ch.EOF, uniqueExact)
		if rr.ambiguous {
			return placement{}, 0, s.chunkAmbiguous(k, ch, rlines, rr)
		}
		if rr.pos >= 0 && !s.cfg.Codex && rr.pos+len(rold) < s.n() {
			// The retry is for the blank line a final newline leaves at the end of a chunk
			// that reaches the end of the file. Anywhere else the file has another line where
			// the patch has the blank, perhaps after a line the patch left out: added lines
			// before the blank would land on a guessed side of it, and without the blank the
			// remaining lines may match a place the patch did not mean. Not retried.
			rr.pos = -1
		}
		if rr.pos >= 0 {
			rep.BlankRetry = true
			rep.Notes = append(rep.Notes, "trailing blank line dropped from the old side")
			body, r = retry, rr
		}
	}
	if r.exhausted && r.pos < 0 {
		note := "locating stopped at the work limit"
		if len(r.cands) == 1 {
			note = fmt.Sprintf("the lines match at file line %d, but the work limit ended the check that no other place matches; add context lines or an @@ anchor", r.cands[0]+1)
		}
		return placement{}, 0, s.notFound(k, ch, body, cursor, []string{note})
	}
	if r.pos >= 0 {
		if uniqueExact && cursor > 0 && !ch.EOF {
			// Chunks may come out of order, so a place above the cursor is a candidate too:
			// the match must be unique in the whole file, apart from windows already taken.
			if cands := s.elsewhere(body, r.level, r.pos); len(cands) > 0 {
				rr := r
				rr.ambiguous, rr.cands = true, append([]int{r.pos}, cands...)
				slices.Sort(rr.cands)
				return placement{}, 0, s.chunkAmbiguous(k, ch, oldLines, rr)
			}
		}
		if line, ok := s.appliedAround(body, r.pos); ok {
			return placement{}, line, nil
		}
		if err := s.sideGuess(k, body, r.pos, r.level); err != nil {
			return placement{}, 0, err
		}
		p := s.finish(body, r.pos, Strategy(r.level.String()), k, rep)
		if rep.BlankRetry {
			rep.Pairing = append(rep.Pairing, 0) // the dropped blank: an old line left unpaired
		}
		return p, 0, nil
	}
	if !s.cfg.Codex && !ch.EOF && cursor > 0 {
		// Chunks given out of order: the lines are sought in the whole file, and must be
		// unique there at every level.
		rr := s.seek(old, 0, false, true)
		if rr.ambiguous {
			return placement{}, 0, s.chunkAmbiguous(k, ch, oldLines, rr)
		}
		if rr.pos >= 0 && rr.pos < cursor {
			if q, ok := s.overlapping(rr.pos, rr.pos+len(old)); ok {
				return placement{}, 0, s.overlapErr(k, oldLines[0], rr.pos, rr.pos+len(old), q)
			}
			if err := s.sideGuess(k, body, rr.pos, rr.level); err != nil {
				return placement{}, 0, err
			}
			p := s.finish(body, rr.pos, Strategy(rr.level.String()), k, rep)
			rep.Notes = append(rep.Notes, noteOutOfOrder(rr.pos))
			return p, 0, nil
		}
	}
	if line, ok := s.appliedElsewhere(body, cursor, ch.EOF); ok {
		return placement{}, line, nil
	}
	if s.cfg.MaxTol < LevelUnicodeTrim {
		// Levels beyond the cap are not accepted, but they still decide whether a rescue
		// may run: a chunk that would match (or be ambiguous) there is not rescued, so that
		// lowering the cap never turns a failure into a success.
		beyond := s.seekLevels(old, cursor, ch.EOF, false, s.cfg.MaxTol+1, LevelUnicodeTrim)
		if beyond.ambiguous {
			return placement{}, 0, s.chunkAmbiguous(k, ch, oldLines, beyond)
		}
		if beyond.pos >= 0 {
			note := fmt.Sprintf("the lines match only at %s (file line %d), beyond the tolerance cap %s",
				beyond.level, beyond.pos+1, s.cfg.MaxTol)
			return placement{}, 0, s.notFound(k, ch, body, cursor, []string{note})
		}
	}
	if p, handled, err := s.lineNumbered(k, ch, body, cursor, uniqueExact, rep); handled {
		return p, 0, err
	}
	if mb, pos, ok := s.mixedApplied(ch, body, cursor, !noAnchor, rep); ok {
		s.mixed = append(s.mixed, appliedChunk{chunk: k, line: pos + 1})
		return s.finish(mb, pos, Strategy(LevelExact.String()), k, rep), 0, nil
	}
	rs := &rescuer{s: s, ch: ch, body: body, cursor: cursor, budget: s.cfg.WorkLimit}
	p, ok, err := rs.run(k, rep)
	if err != nil {
		return placement{}, 0, err
	}
	if ok {
		return p, 0, nil
	}
	if rs.changed.found {
		return placement{}, 0, s.changedErr(k, ch, body, rs.changed, rs.notes)
	}
	return placement{}, 0, s.notFound(k, ch, body, cursor, rs.notes)
}

// lineLevel returns the strictest ladder level, up to the cap, at which patch line p equals
// file line i.
func (s *Locator) lineLevel(p string, i int) (Level, bool) {
	for l := LevelExact; l <= s.cfg.MaxTol; l++ {
		if s.ix.lineMatches(l, p, i) {
			return l, true
		}
	}
	return 0, false
}

// sideGuess checks a chunk that the ladder matched at pos at a loose level (default mode);
// see sideTwin for the rule.
func (s *Locator) sideGuess(k int, body chunkBody, pos int, level Level) *Error {
	if s.cfg.Codex || level == LevelExact {
		return nil
	}
	var pair []int
	for _, l := range body.lines {
		if l.Op != Insert {
			pair = append(pair, pos+len(pair))
		}
	}
	tw, ok := s.sideTwin(body, pair)
	if !ok {
		return nil
	}
	where, as := fmt.Sprintf("file line %d nearby", tw.g+1), "as written"
	switch tw.g {
	case tw.f + 1:
		where = fmt.Sprintf("file line %d right below it", tw.g+1)
	case tw.f - 1:
		where = fmt.Sprintf("file line %d right above it", tw.g+1)
	}
	if tw.level != LevelExact {
		as = "when compared with " + tw.level.String()
	}
	what, effect := "context line next to the added lines", fmt.Sprintf("the added lines could go next to file line %d or next to file line %d", tw.f+1, tw.g+1)
	if tw.line.Op == Remove {
		what, effect = "removed line", fmt.Sprintf("it could mean file line %d or %d", tw.f+1, tw.g+1)
	}
	e := s.newErr(KindAmbiguous, k, tw.line.Line, fmt.Sprintf(
		"Ambiguous placement in %s: chunk %d matches only when compared with %s, and its %s '%s' "+
			"is paired with file line %d ('%s'), but %s is that line %s; %s. "+
			"Copy the context and removed lines as the file has them now, or add an @@ line",
		s.path, k, level, what, CutLine(tw.line.Text), tw.f+1, CutLine(s.lines[tw.f]), where, as, effect))
	e.Candidates = []int{min(tw.f, tw.g) + 1, max(tw.f, tw.g) + 1}
	e.FileLine = tw.g + 1
	return e
}

// sideTwinOf describes a patch line paired with file line f that equals file line g more
// strictly (at level).
type sideTwinOf struct {
	line  Line
	f, g  int
	level Level
}

// sideTwin checks a placement (pair[i]: the file line of old line i, -1 when unpaired). Added
// lines go next to the file lines paired with the old lines around them, and a removed line
// takes out the file line it is paired with. When a context line beside added lines, or a
// removed line, equals its own file line only loosely (trailing or leading whitespace, or
// typographic punctuation, differ) while a file line near the placement (within the chunk's
// length of it) equals it strictly (as written, or at a stricter level), the chunk has two
// readings: the file line it was paired with is a drifted copy of it, or the line the model
// saw is the other one and the lines between were changed. The readings put the added lines
// next to different file lines, or remove different ones (typically closing brackets or
// repeated statements after the file was re-indented). A line that equals its file line exactly
// is settled; so is a context line whose neighbour across the added lines is a removed line
// (removed lines fix the place of the lines that replace them), and a file line paired with a
// patch line of the same text is no second reading.
func (s *Locator) sideTwin(body chunkBody, pair []int) (sideTwinOf, bool) {
	ls := body.lines
	old, _ := body.old()
	lo, hi := s.n(), -1
	for _, f := range pair {
		if f >= 0 {
			lo, hi = min(lo, f), max(hi, f)
		}
	}
	lo, hi = max(lo-len(old), 0), min(hi+len(old), s.n()-1)
	oi := 0
	for i, l := range ls {
		if l.Op == Insert {
			continue
		}
		f := pair[oi]
		oi++
		if f < 0 {
			continue
		}
		switch l.Op {
		case Context:
			beside := i+1 < len(ls) && ls[i+1].Op == Insert && !otherSideRemoves(ls, i, +1) ||
				i > 0 && ls[i-1].Op == Insert && !otherSideRemoves(ls, i, -1)
			if !beside {
				continue
			}
		case Remove:
		default:
			continue
		}
		lf, ok := s.lineLevel(l.Text, f)
		if !ok || lf == LevelExact {
			continue
		}
		// nearest first, so that the message names the closest second reading
		for d := 1; f-d >= lo || f+d <= hi; d++ {
			for _, g := range []int{f + d, f - d} {
				if g < lo || g > hi {
					continue
				}
				if j := slices.Index(pair, g); j >= 0 && old[j] == l.Text {
					continue
				}
				if lg, ok := s.lineLevel(l.Text, g); ok && lg < lf {
					return sideTwinOf{line: l, f: f, g: g, level: lg}, true
				}
			}
		}
	}
	return sideTwinOf{}, false
}

// otherSideRemoves reports whether the first old line past the added lines next to body line
// i, in direction dir, is a removed line.
func otherSideRemoves(ls []Line, i, dir int) bool {
	for j := i + dir; j >= 0 && j < len(ls); j += dir {
		if ls[j].Op != Insert {
			return ls[j].Op == Remove
		}
	}
	return false
}

// noteSideTwin is the rescues' note for a placement sideTwin refuses.
const noteSideTwin = "a line next to the change matches its file line only loosely while a file line nearby is that line as written, so where the change goes is a guess"

// sideTwinRefused reports (and notes) a rescue placement that sideTwin refuses.
func (r *rescuer) sideTwinRefused(pair []int) bool {
	if _, ok := r.s.sideTwin(r.body, pair); ok {
		r.notes = append(r.notes, noteSideTwin)
		return true
	}
	return false
}

// changedErr is the KindNotFound error of a chunk whose removed line no longer equals the file
// line it would remove: the file changed since the model read it.
func (s *Locator) changedErr(k int, ch Chunk, body chunkBody, c changedLine, notes []string) *Error {
	old, oldLines := body.old()
	var b strings.Builder
	fmt.Fprintf(&b, "Failed to find expected lines in %s:\n%s\n%s.", s.path, joinLines(old), c.String(s.path))
	for _, note := range notes {
		if note != noteLCSUnsound {
			fmt.Fprintf(&b, "\nRescue: %s.", note)
		}
	}
	line := ch.Line
	for i, t := range old {
		if t == c.patch {
			line = oldLines[i]
			break
		}
	}
	e := s.newErr(KindNotFound, k, line, b.String())
	e.FileLine = c.fileLine + 1
	return e
}

// finish builds the placement of body at pos (old line i on file line pos+i) and fills the
// report.
func (s *Locator) finish(body chunkBody, pos int, st Strategy, k int, rep *ChunkReport) placement {
	old, _ := body.old()
	pair := make([]int, len(old))
	for i := range pair {
		pair[i] = pos + i
	}
	return s.placeAligned(body, pos, pos+len(old), pair, st, k, rep)
}

// placeAligned builds the placement of body over the window [start, end) from a pairing of
// its old lines with file lines (pair[i] is the 0-based file line of old line i, -1 when
// unpaired) and fills the report, which takes pair over (made 1-based). A file line paired with a removed line is dropped; every
// other file line of the window is kept as the file has it; unpaired context lines of the
// patch are skipped; added lines go right after the file line paired with the nearest
// preceding old line, or, when none precedes, right before the one paired with the nearest
// following old line.
func (s *Locator) placeAligned(body chunkBody, start, end int, pair []int, st Strategy, k int, rep *ChunkReport) placement {
	ed := make([]Edit, 0, len(body.lines)+end-start)
	pos, oi := start, 0
	var pending []Edit
	seen := false
	for _, l := range body.lines {
		if l.Op == Insert {
			e := Edit{Op: Insert, Text: l.Text}
			if seen {
				ed = append(ed, e)
			} else {
				pending = append(pending, e)
			}
			continue
		}
		q := pair[oi]
		oi++
		if q < 0 {
			continue
		}
		for ; pos < q; pos++ {
			ed = append(ed, Edit{Op: Context})
		}
		if !seen {
			ed, pending, seen = append(ed, pending...), nil, true
		}
		ed = append(ed, Edit{Op: l.Op})
		pos++
	}
	ed = append(ed, pending...)
	for ; pos < end; pos++ {
		ed = append(ed, Edit{Op: Context})
	}
	rep.Strategy = st
	rep.Start, rep.Len = start+1, end-start
	rep.Removed, rep.Added = 0, 0
	for _, e := range ed {
		switch e.Op {
		case Remove:
			rep.Removed++
		case Insert:
			rep.Added++
		}
	}
	for i := range pair {
		pair[i]++ // 1-based, 0 = unpaired
	}
	rep.Pairing = pair
	return placement{start: start, end: end, edits: ed, order: k - 1}
}

// order sorts placements by position (insertions before a window starting at the same line,
// equal positions in patch order) and rejects overlaps.
func (s *Locator) order(ps []placement) ([]placement, error) {
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
	pos, last := 0, placement{}
	for _, p := range sorted {
		if p.start < pos {
			e := s.newErr(KindOverlap, max(last.order, p.order)+1, 0, overlapMsg(s.path, last, p))
			e.FileLine = p.start + 1
			return nil, e
		}
		if p.end > p.start || p.end > pos {
			pos, last = p.end, p
		}
	}
	return sorted, nil
}

// Messages quote a chunk's lines, bounded: up to maxQuoted lines in full, else the first and
// last quoteEnds lines around a count of the lines left out; a line longer than
// maxQuotedLine bytes is cut, with a count of the bytes left out.
const (
	maxQuoted     = 12
	quoteEnds     = 5
	maxQuotedLine = 240
)

// joinLines quotes lines for a message, one a line, bounded as above.
func joinLines(ls []string) string {
	if len(ls) > maxQuoted {
		head := slices.Clone(ls[:quoteEnds])
		head = append(head, fmt.Sprintf("… %d more lines …", len(ls)-2*quoteEnds))
		ls = append(head, ls[len(ls)-quoteEnds:]...)
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = CutLine(l)
	}
	return strings.Join(out, "\n")
}

// CutLine bounds one quoted line to about maxQuotedLine bytes, cut at a character boundary.
func CutLine(l string) string {
	if len(l) <= maxQuotedLine {
		return l
	}
	i := maxQuotedLine
	for i > 0 && !utf8.RuneStart(l[i]) {
		i--
	}
	return fmt.Sprintf("%s… (%d more bytes)", l[:i], len(l)-i)
}

// maxListed is how many candidate lines an error message lists.
const maxListed = 6

// CandidateList renders 0-based candidates as 1-based line numbers, at most maxListed of
// them, followed by how many more there are ("12, 40, … and 7 more"). total is the number of
// candidates (at least len(cands)); atLeast says the count stopped at the work limit.
func CandidateList(cands []int, total int, atLeast bool) string {
	var b strings.Builder
	for i, c := range cands {
		if i == maxListed {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(c + 1))
	}
	if more := total - min(len(cands), maxListed); more > 0 {
		if atLeast {
			fmt.Fprintf(&b, " and at least %d more", more)
		} else {
			fmt.Fprintf(&b, " and %d more", more)
		}
	}
	return b.String()
}

// OneBased returns 0-based line numbers as 1-based ones.
func OneBased(cands []int) []int {
	cands = cands[:min(len(cands), maxListed)]
	out := make([]int, len(cands))
	for i, c := range cands {
		out[i] = c + 1
	}
	return out
}

func (s *Locator) chunkAmbiguous(k int, ch Chunk, oldLines []int, r seekResult) *Error {
	line := ch.Line
	if len(oldLines) > 0 {
		line = oldLines[0]
	}
	count := strconv.Itoa(len(r.cands))
	if r.exhausted {
		count = "at least " + count
	}
	e := s.newErr(KindAmbiguous, k, line, fmt.Sprintf(
		"Ambiguous match in %s: chunk %d matches %s places when compared with %s (file lines %s); "+
			"add more context lines or an @@ line to choose one",
		s.path, k, count, r.level, CandidateList(r.cands, len(r.cands), r.exhausted)))
	e.Candidates = OneBased(r.cands)
	e.FileLine = r.cands[0] + 1
	return e
}

func (s *Locator) anchorAmbiguous(k, line int, anchor string, r seekResult) *Error {
	e := s.newErr(KindAmbiguous, k, line, fmt.Sprintf(
		"Ambiguous context '%s' in %s: matches file lines %s (compared with %s)",
		CutLine(anchor), s.path, CandidateList(r.cands, len(r.cands), r.exhausted), r.level))
	e.Candidates = OneBased(r.cands)
	e.FileLine = r.cands[0] + 1
	return e
}

// notFound builds the KindNotFound error with the nearest-window diagnostic.
func (s *Locator) notFound(k int, ch Chunk, body chunkBody, cursor int, notes []string) *Error {
	old, oldLines := body.old()
	n, m := s.n(), len(old)
	var b strings.Builder
	fmt.Fprintf(&b, "Failed to find expected lines in %s:\n%s\n", s.path, joinLines(old))
	line := ch.Line
	if len(oldLines) > 0 {
		line = oldLines[0]
	}
	e := s.newErr(KindNotFound, k, line, "")
	lo := cursor
	if ch.EOF {
		lo = max(n-m, 0)
	}
	w := workBudget{limit: s.cfg.WorkLimit}
	start, ok := s.nearest(old, cursor, ch.EOF, &w)
	switch {
	case n == 0:
		b.WriteString("The file is empty.")
	case w.exhausted():
		b.WriteString("The search for the closest match stopped at the work limit; add context lines that occur rarely in the file.")
	case !ok:
		if above := s.above(old, cursor, ch.EOF); above != "" {
			b.WriteString(above)
			break
		}
		if cursor > 0 && !ch.EOF {
			// Drifted lines above the cursor: chunks out of order are sought above it only
			// at the ladder levels, never rescued there.
			if at, ok := s.nearest(old, 0, false, &w); ok && at < cursor && !w.exhausted() {
				fmt.Fprintf(&b, "No similar lines found below file line %d, where the previous chunk ended; the closest match starts above, at file line %d; give the chunks in file order.",
					cursor, at+1)
				break
			}
		}
		fmt.Fprintf(&b, "No similar lines found in file lines %d-%d.", min(lo+1, n), n)
	default:
		i := 0
		for i < m && start+i < n && s.ix.lineMatches(s.cfg.MaxTol, old[i], start+i) {
			i++
		}
		if i == m {
			i = 0
		}
		q := start + i + 1
		ftext := "<end of file>"
		if q <= n {
			ftext = s.lines[q-1]
		}
		fmt.Fprintf(&b, "Closest match starts at file line %d; first difference:\n  patch line %d: %s\n  file line %d: %s",
			start+1, oldLines[i], CutLine(old[i]), q, CutLine(ftext))
		e.Line, e.FileLine = oldLines[i], q
	}
	for _, note := range notes {
		fmt.Fprintf(&b, "\nRescue: %s.", note)
	}
	e.Msg = b.String()
	return e
}

// above explains a chunk whose lines are not below the cursor but are above it (chunks out of
// order, which Codex-compatibility mode does not look for, or lines that overlap a chunk placed
// earlier); "" when they are not there either.
func (s *Locator) above(old []string, cursor int, eof bool) string {
	if cursor == 0 || eof {
		return ""
	}
	r := s.seek(old, 0, false, false)
	if r.pos < 0 || r.pos >= cursor {
		return ""
	}
	end := r.pos + len(old)
	if q, ok := s.overlapping(r.pos, end); ok {
		return fmt.Sprintf("The lines are at %s, which overlap chunk %d (at %s); give each line to one chunk only (merge the two chunks into one).",
			fileSpan(r.pos, end), q.order+1, fileSpan(q.start, q.end))
	}
	return fmt.Sprintf("The lines are at %s, above file line %d where the previous chunk ended; give the chunks in file order.",
		fileSpan(r.pos, end), cursor+1)
}

// nearest finds the window start with the most old lines matching at unicode-trim, by voting
// through the index; ties go to the smallest start.
//
// Every vote costs one unit of w; when w runs out the search stops without a result.
func (s *Locator) nearest(old []string, cursor int, eof bool, w *workBudget) (int, bool) {
	n, m := s.n(), len(old)
	if n == 0 {
		return 0, false
	}
	li := s.ix.level(LevelUnicodeTrim)
	// votes[p+m] counts the old lines that match with the window starting at p (p ≥ -m+1).
	votes := make([]int32, n+m)
	for i, o := range old {
		text := Normalize(LevelUnicodeTrim, o)
		h := li.lookup(text)
		if h.first < 0 {
			continue
		}
		if !w.spend(int64(h.count)) {
			return 0, false
		}
		for q := h.first; q >= 0; q = li.next[q] {
			if h.mixed && li.norm[q] != text {
				continue // another line with the same hash
			}
			p := int(q) - i
			if eof {
				if p != n-m {
					continue
				}
			} else if p < cursor {
				continue
			}
			votes[p+m]++
		}
	}
	best, bestV := -1, int32(0)
	for k, v := range votes {
		if v > bestV {
			best, bestV = k-m, v
		}
	}
	return best, best >= 0
}

// besideAlready refuses a placed chunk whose added lines before its first old line (or after
// its last), when that line is a kept one, are already the file lines right above (or below)
// its window, with a letter or
// digit among them: the same lines would be added a second time, which is what a change that
// is partly applied already looks like (git's 3-way merge takes such lines once). Codex
// compatibility mode does not check.
func (s *Locator) besideAlready(k int, ch Chunk, p placement) *Error {
	if s.cfg.Codex {
		return nil
	}
	first, last := -1, -1
	for i, e := range p.edits {
		if e.Op != Insert {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil // a pure insertion: insertedAlready decides
	}
	check := func(run []Edit, at int, where string) *Error {
		texts := make([]string, len(run))
		for i, e := range run {
			texts[i] = e.Text
		}
		if len(texts) == 0 || !SignificantLines(texts) || !s.matchesAnyLevel(texts, at) {
			return nil
		}
		e := s.newErr(KindAlreadyApplied, k, ch.Line, fmt.Sprintf(
			"Chunk %d adds, %s, %s that %s already has there (%s):\n%s\n"+
				"The change may be partly applied already; nothing was written. Remove those lines from the chunk, "+
				"or, if they must appear twice, add the file's lines there as context.",
			k, where, Plural(len(texts), "a line", fmt.Sprint(len(texts))+" lines"), s.path, fileSpan(at, at+len(texts)), joinLines(texts)))
		e.FileLine = at + 1
		return e
	}
	// Added lines next to a removed line replace it; only added lines beside a kept line are
	// checked.
	if p.edits[first].Op == Context {
		if err := check(p.edits[:first], p.start-first, "right above the lines it was matched on"); err != nil {
			return err
		}
	}
	if p.edits[last].Op == Context {
		return check(p.edits[last+1:], p.end, "right below the lines it was matched on")
	}
	return nil
}

// SignificantLines reports whether some line has a letter or a digit.
func SignificantLines(lines []string) bool {
	for _, l := range lines {
		for _, c := range l {
			if unicode.IsLetter(c) || unicode.IsDigit(c) {
				return true
			}
		}
	}
	return false
}
