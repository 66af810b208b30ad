package patch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/harnesskit/harnesskit/internal/udiff"
	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// This file is the string-replacement edit: one file, edits {old, new, replaceAll} applied in
// order in memory, then committed like a patch. Locating reuses the patch locator: the exact
// text first, then the tolerance ladder over whole lines with its unique-match rule and its
// side check, then read-tool line numbers. No rescue runs (they need a threshold or drop
// lines the model gave): an edit is applied where its old text is, or refused.

// An Edit is one string replacement: Old is replaced by New. Old must be found in the file
// (see [ApplyEdits] for how it is sought) at one place, or at every place when ReplaceAll is
// set. An empty Old creates the file (or fills an empty one) with New.
type Edit struct {
	Old, New   string
	ReplaceAll bool
}

// An EditRequest is one edit call: the file (absolute, or relative to the Applier's base), the
// edits applied in order, each to the result of those before it, and optionally the digest
// ([Digest]) of the content the host last showed the model. When ReadDigest is set and the
// file no longer has that content, the edit is refused with [KindChanged]: the model's old
// text was taken from a copy that is no longer the file.
type EditRequest struct {
	Path       string
	Edits      []Edit
	ReadDigest string
}

// StrategyCreate: an edit with an empty Old filled a missing or empty file.
const StrategyCreate Strategy = "create"

// Digest returns the digest a host keeps of the content it read, for
// [EditRequest].ReadDigest: the lower-case hex SHA-256 of data.
func Digest(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// ApplyEdits applies edits in order to data, the content of the file path (nil or empty for a
// missing or empty file; path is used in messages only), and returns the new content and one
// report per replacement (Section 1, Chunk the 1-based edit, Start and Len its lines in the
// text before that edit). It is pure: the core of [Applier.Edit], with the default options.
//
// Each edit's Old is sought, after "\r\n" in Old and New is read as "\n" (the file's own
// line breaks are kept):
//
//  1. as written, in the text with its line breaks read as "\n": found once, it is replaced;
//     found several times (overlapping places count), the edit is refused ([KindAmbiguous],
//     with the line of every place) unless ReplaceAll is set, which replaces every place
//     (non-overlapping, from the start);
//  2. else as whole lines, on the patch tolerance ladder (trailing whitespace, Unicode
//     punctuation and spaces, leading and trailing whitespace): the first level that matches
//     decides, its match must be unique (or, with ReplaceAll, every non-overlapping place at
//     that level is replaced), an ambiguity never falls through to a looser level, and a
//     line next to the change that matches only loosely while a line nearby is that line as
//     written is refused, as in a patch;
//  3. else, when every line of Old starts with a read tool's line number ("    12\t…" or
//     "    12→…"), the numbers consecutive and New without them, as those lines at the line
//     the first number names; any other Old with such numbers is refused with a message
//     saying that line numbers are not part of the file.
//
// A match at a loose level keeps the file's bytes for every line that Old and New share (a
// line diff of the two says which); the other lines are New's bytes, never re-indented. New
// line breaks take the file's dominant style, a line break the edit keeps keeps its own, and
// a final line break and a UTF-8 byte-order mark are kept (an edit may add a final line
// break to a file without one, never remove one). No similarity threshold
// is used and nothing is guessed: Old not found is an error.
//
// Errors (*Error, Op "edit", Chunk the 1-based edit): KindEmpty (no edits), KindInvalid (Old
// equal to New), KindExists (an empty Old on a file with content), KindNotFound (with the
// closest place and its first differing line as FileLine, or a note on line numbers),
// KindAmbiguous (Candidates holds the lines), KindAlreadyApplied (Old is not there but New
// is, once, and at least 12 bytes long without its outer whitespace, in the text before the
// edit: the edit looks applied already). Nothing is returned
// when one edit fails.
func ApplyEdits(path string, data []byte, edits []Edit) ([]byte, []ChunkReport, error) {
	cfg := defaultConfig()
	return editBytes(&cfg, path, data, edits)
}

// editText is a file as the edits see it: its lines as separated by line breaks, the break
// between line i and line i+1 in terms[i]. A file that ends with a line break has an empty
// last line, so that the text (the lines joined with "\n") is the file with its breaks read
// as "\n".
type editText struct {
	lines []string
	terms []string
	bom   bool
	dom   string
}

func newEditText(data []byte, keepBOM bool) *editText {
	d := parseDoc(data, keepBOM)
	t := &editText{bom: d.bom, dom: d.dominant(), lines: slices.Clone(d.lines), terms: slices.Clone(d.terms)}
	switch n := len(t.terms); {
	case n == 0:
		t.lines = []string{""}
	case t.terms[n-1] == "":
		t.terms = t.terms[:n-1]
	default:
		t.lines = append(t.lines, "")
	}
	return t
}

func (t *editText) text() string { return strings.Join(t.lines, "\n") }

// finalNewline reports whether the text ends with a line break.
func (t *editText) finalNewline() bool { return len(t.lines) > 1 && t.lines[len(t.lines)-1] == "" }

// docLines are the lines as the patch locator sees them (no empty line after a final break).
func (t *editText) docLines() []string {
	if t.lines[len(t.lines)-1] == "" {
		return t.lines[:len(t.lines)-1]
	}
	return t.lines
}

// starts returns the offset in text() of every line.
func (t *editText) starts() []int {
	out := make([]int, len(t.lines))
	off := 0
	for i, l := range t.lines {
		out[i] = off
		off += len(l) + 1
	}
	return out
}

// at returns the line and column of offset off of text().
func at(starts []int, off int) (line, col int) {
	i, found := slices.BinarySearch(starts, off)
	if !found {
		i--
	}
	return i, off - starts[i]
}

// span is one replacement: text()[start:end] becomes repl.
type span struct {
	start, end int
	repl       string
}

// replace applies non-overlapping spans sorted by start, from the last one, so that the
// offsets of the earlier ones stay valid. A replacement keeps the line breaks it spans when it
// has as many; otherwise its breaks take the file's dominant style.
func (t *editText) replace(spans []span) {
	starts := t.starts()
	for i := len(spans) - 1; i >= 0; i-- {
		sp := spans[i]
		la, ca := at(starts, sp.start)
		lb, cb := at(starts, sp.end)
		seg := strings.Split(t.lines[la][:ca]+sp.repl+t.lines[lb][cb:], "\n")
		terms := slices.Clone(t.terms[la:lb])
		if len(terms) != len(seg)-1 {
			terms = make([]string, len(seg)-1)
			for j := range terms {
				terms[j] = t.dom
			}
		}
		t.lines = slices.Replace(t.lines, la, lb+1, seg...)
		t.terms = slices.Replace(t.terms, la, lb, terms...)
	}
}

// bytes renders the text with its line breaks, its BOM, and the final-newline state
// finalNL.
func (t *editText) bytes(finalNL bool) []byte {
	lines, terms := t.lines, t.terms
	n := len(lines)
	switch {
	case finalNL && n > 0 && lines[n-1] != "":
		lines = append(slices.Clone(lines), "")
		terms = append(slices.Clone(terms), t.dom)
	case !finalNL && n > 1 && lines[n-1] == "" && lines[n-2] != "":
		lines, terms = lines[:n-1], terms[:n-2]
	}
	var b strings.Builder
	if t.bom {
		b.WriteString(bom)
	}
	for i, l := range lines {
		b.WriteString(l)
		if i < len(terms) {
			b.WriteString(terms[i])
		}
	}
	return []byte(b.String())
}

// editCtx locates and applies the edits of one call.
type editCtx struct {
	cfg   *config
	path  string
	edits []Edit
	k     int // 1-based edit being applied
}

func (c *editCtx) err(kind Kind, msg string) *Error {
	if len(c.edits) > 1 {
		msg = fmt.Sprintf("edit %d of %d: %s", c.k, len(c.edits), msg)
		switch {
		case c.k == 2:
			msg += " (line numbers are those after edit 1; nothing was written)"
		case c.k > 2:
			msg += fmt.Sprintf(" (line numbers are those after edits 1-%d; nothing was written)", c.k-1)
		}
	}
	return &Error{Op: "edit", Kind: kind, Path: c.path, Chunk: c.k, Msg: msg}
}

// editBytes is ApplyEdits under cfg (its ladder cap and work limit).
func editBytes(cfg *config, path string, data []byte, edits []Edit) ([]byte, []ChunkReport, error) {
	c := &editCtx{cfg: cfg, path: path, edits: edits}
	if len(edits) == 0 {
		return nil, nil, &Error{Op: "edit", Kind: KindEmpty, Path: path, Msg: "No edits were given; give old_string and new_string (or a list of edits)"}
	}
	t := newEditText(data, cfg.eol == EOLCodex)
	finalNL := t.finalNewline()
	var reps []ChunkReport
	for i, e := range edits {
		c.k = i + 1
		old := strings.ReplaceAll(e.Old, "\r\n", "\n")
		nw := strings.ReplaceAll(e.New, "\r\n", "\n")
		if old == nw {
			return nil, nil, c.err(KindInvalid, "old_string and new_string are the same, so the edit changes nothing; put the new text in new_string")
		}
		if old == "" {
			if t.text() != "" {
				return nil, nil, c.err(KindExists, fmt.Sprintf("old_string is empty, which creates a file, but %s already has content; "+
					"to change it, put the text to replace in old_string (to add lines, include the lines next to them in old_string and new_string)", path))
			}
			t = newEditText([]byte(nw), cfg.eol == EOLCodex)
			t.bom = t.bom || strings.HasPrefix(string(data), bom) && cfg.eol != EOLCodex
			finalNL = t.finalNewline()
			reps = append(reps, ChunkReport{Section: 1, Chunk: c.k, Path: path, Strategy: StrategyCreate, Start: 1, Added: len(t.docLines())})
			continue
		}
		r, err := c.one(t, old, nw, e.ReplaceAll)
		if err != nil {
			return nil, nil, err
		}
		reps = append(reps, r...)
	}
	// A final line break is kept; one the edits add at the end of a file without one is
	// theirs to add.
	return t.bytes(finalNL || t.finalNewline()), reps, nil
}

// one applies one edit to t.
func (c *editCtx) one(t *editText, old, nw string, all bool) ([]ChunkReport, error) {
	text := t.text()
	starts := t.starts()
	if t.bom && strings.HasPrefix(old, bom) {
		old = old[len(bom):]
	}
	// 1. As written.
	// Every place counts for uniqueness, overlapping ones too; replace_all takes the
	// non-overlapping ones from the start.
	var hits []int
	for off := 0; off <= len(text); {
		i := strings.Index(text[off:], old)
		if i < 0 {
			break
		}
		if !all || len(hits) == 0 || off+i >= hits[len(hits)-1]+len(old) {
			hits = append(hits, off+i)
		}
		off += i + 1
	}
	if len(hits) > 1 && !all {
		var lines []int // each line once
		for _, h := range hits {
			if l, _ := at(starts, h); len(lines) == 0 || lines[len(lines)-1] != l {
				lines = append(lines, l)
			}
		}
		e := c.err(KindAmbiguous, fmt.Sprintf("old_string matches %d places in %s (%s %s); "+
			"add lines around the change to old_string so that it matches one place, or set replace_all to replace every one",
			len(hits), c.path, place.Plural(len(lines), "line", "lines"), place.CandidateList(lines, len(lines), false)))
		e.Candidates, e.FileLine = place.OneBased(lines), lines[0]+1
		return nil, e
	}
	if len(hits) > 0 {
		spans := make([]span, len(hits))
		reps := make([]ChunkReport, len(hits))
		for i, h := range hits {
			spans[i] = span{h, h + len(old), nw}
			la, _ := at(starts, h)
			lb, _ := at(starts, h+len(old))
			reps[i] = ChunkReport{Section: 1, Chunk: c.k, Path: c.path, Strategy: StrategyExact, Start: la + 1, Len: lb - la + 1,
				Removed: strings.Count(old, "\n") + 1, Added: strings.Count(nw, "\n") + 1}
		}
		t.replace(spans)
		return reps, nil
	}
	// 2. Whole lines on the ladder.
	ol := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	lines := t.docLines()
	s := place.New(&c.cfg.Config, c.path, 1, lines, false)
	r := s.Seek(ol)
	switch {
	case r.Ambiguous && !all:
		count := fmt.Sprint(len(r.Cands))
		if r.Exhausted {
			count = "at least " + count
		}
		e := c.err(KindAmbiguous, fmt.Sprintf("old_string is not in %s as written; compared with %s it matches %s places (lines %s); "+
			"copy old_string from the file as it is, with lines around the change so that it matches one place, or set replace_all to replace every one",
			c.path, r.Level, count, place.CandidateList(r.Cands, len(r.Cands), r.Exhausted)))
		e.Candidates, e.FileLine = place.OneBased(r.Cands), r.Cands[0]+1
		return nil, e
	case r.Ambiguous || r.Pos >= 0:
		places := []int{r.Pos}
		if r.Ambiguous {
			places = places[:0]
			for _, p := range r.Cands {
				if len(places) == 0 || p >= places[len(places)-1]+len(ol) {
					places = append(places, p)
				}
			}
		}
		return c.applyLines(t, s, lines, starts, places, Level(r.Level), Strategy(r.Level.String()), ol, old, nw, nil)
	case r.Exhausted:
		e := c.err(KindNotFound, fmt.Sprintf("old_string is not in %s as written, and the search stopped at the work limit; "+
			"give old_string as the file has it, with lines that occur rarely in the file", c.path))
		return nil, e
	}
	// 3. Read-tool line numbers.
	if reps, handled, err := c.lineNumbered(t, s, lines, starts, ol, old, nw); handled {
		return reps, err
	}
	// Already applied?
	// Only a new text long enough to be telling, and found once: a short one is found by
	// chance.
	if len(strings.TrimSpace(nw)) >= minAppliedLen && place.SignificantLines([]string{nw}) && countAll(text, nw) == 1 {
		if i := strings.Index(text, nw); i >= 0 {
			line, _ := at(starts, i)
			e := c.err(KindAlreadyApplied, fmt.Sprintf("old_string is not in %s, but new_string is, at line %d: the edit looks applied already; "+
				"nothing was written. Read the file to check, and send only the edits that are still needed", c.path, line+1))
			e.FileLine = line + 1
			return nil, e
		}
	}
	return nil, c.notFound(s, lines, ol)
}

// minAppliedLen is the shortest new text (trimmed) whose presence, with the old text
// absent, refuses an edit as applied already.
const minAppliedLen = 12

// countAll counts the places of sub in s, overlapping ones too.
func countAll(s, sub string) int {
	n := 0
	for off := 0; off <= len(s); {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return n
		}
		n++
		off += i + 1
	}
	return n
}

// applyLines replaces the whole-line matches of ol at places (0-based first lines, sorted,
// non-overlapping) found at level l. Lines Old and New share keep the file's text.
func (c *editCtx) applyLines(t *editText, s *place.Locator, lines []string, starts []int, places []int, l Level, st Strategy, ol []string, old, nw string, notes []string) ([]ChunkReport, error) {
	oldNL, newNL := strings.HasSuffix(old, "\n"), strings.HasSuffix(nw, "\n")
	var nl []string
	if nw != "" {
		nl = strings.Split(strings.TrimSuffix(nw, "\n"), "\n")
	}
	body := editBody(ol, nl)
	m := len(ol)
	spans := make([]span, 0, len(places))
	reps := make([]ChunkReport, 0, len(places))
	for _, p := range places {
		if l != LevelExact {
			pair := make([]int, m)
			for i := range pair {
				pair[i] = p + i
			}
			if tw, ok := s.SideTwin(coreLines(body), pair); ok {
				e := c.err(KindAmbiguous, fmt.Sprintf("old_string is not in %s as written; compared with %s it matches at line %d, "+
					"but its line '%s' is paired with file line %d ('%s') while file line %d nearby is that line more exactly, "+
					"so where the change goes is a guess; copy old_string from the file as it is now",
					c.path, l, p+1, place.CutLine(tw.Text), tw.F+1, place.CutLine(lines[tw.F]), tw.G+1))
				e.Candidates, e.FileLine = []int{min(tw.F, tw.G) + 1, max(tw.F, tw.G) + 1}, tw.G+1
				return nil, e
			}
		}
		var out []string
		oi := 0
		for _, bl := range body {
			switch bl.Op {
			case Context:
				out = append(out, lines[p+oi])
				oi++
			case Remove:
				oi++
			case Insert:
				out = append(out, bl.Text)
			}
		}
		repl := strings.Join(out, "\n")
		if newNL {
			repl += "\n"
		}
		start := starts[p]
		end := starts[p+m-1] + len(t.lines[p+m-1])
		if oldNL && p+m < len(t.lines) {
			end = starts[p+m]
		}
		spans = append(spans, span{start, end, repl})
		rep := ChunkReport{Section: 1, Chunk: c.k, Path: c.path, Strategy: st, Start: p + 1, Len: m, Notes: notes}
		rep.Pairing = make([]int, m)
		for i := range rep.Pairing {
			rep.Pairing[i] = p + i + 1
		}
		for _, bl := range body {
			switch bl.Op {
			case Remove:
				rep.Removed++
			case Insert:
				rep.Added++
			}
		}
		reps = append(reps, rep)
	}
	t.replace(spans)
	return reps, nil
}

// editBody is the chunk body that turns the lines of Old into those of New: the lines they
// share are context, as a line diff finds them.
func editBody(ol, nl []string) []Line {
	var b []Line
	i := 0
	add := func(op Op, text string, n int) { b = append(b, Line{Op: op, Text: text, Line: n}) }
	for _, ch := range udiff.Compute(ol, nl) {
		for ; i < ch.A; i++ {
			add(Context, ol[i], i+1)
		}
		for ; i < ch.B; i++ {
			add(Remove, ol[i], i+1)
		}
		for _, n := range ch.New {
			add(Insert, n, 0)
		}
	}
	for ; i < len(ol); i++ {
		add(Context, ol[i], i+1)
	}
	return b
}

// lineNumbered handles an Old whose lines carry read-tool line numbers (see ApplyEdits, step
// 3). handled is false when no line of Old carries one.
func (c *editCtx) lineNumbered(t *editText, s *place.Locator, lines []string, starts []int, ol []string, old, nw string) ([]ChunkReport, bool, error) {
	stripped := make([]string, len(ol))
	var run place.NumberRun
	for i, l := range ol {
		num, text, ok := place.ReadPrefix(l)
		if !ok {
			stripped[i] = l
			continue
		}
		run.Add(num)
		stripped[i] = text
	}
	if run.Prefixed == 0 {
		return nil, false, nil
	}
	first, prefixed, gap := run.First, run.Prefixed, run.Gap
	fail := func(why string) ([]ChunkReport, bool, error) {
		e := c.err(KindNotFound, fmt.Sprintf("old_string is not in %s: %s Line numbers are not part of the file: "+
			"copy each line after the read tool's number and tab (or arrow)", c.path, why))
		return nil, true, e
	}
	newPrefixed := false
	if nw != "" {
		for _, l := range strings.Split(strings.TrimSuffix(nw, "\n"), "\n") {
			if _, _, ok := place.ReadPrefix(l); ok {
				newPrefixed = true
			}
		}
	}
	switch {
	case prefixed < len(ol):
		return fail(fmt.Sprintf("%d of its %d lines start with a line number as a read tool shows it and %d do not.", prefixed, len(ol), len(ol)-prefixed))
	case gap:
		return fail("its lines start with line numbers as a read tool shows them, but the numbers are not consecutive.")
	case newPrefixed:
		return fail("its lines start with line numbers as a read tool shows them, and so do those of new_string, which would be written into the file with their numbers.")
	}
	p := first - 1
	for l := LevelExact; l <= Level(c.cfg.MaxTol); l++ {
		if s.MatchesAt(place.Level(l), stripped, p) {
			sold := strings.Join(stripped, "\n")
			if strings.HasSuffix(old, "\n") {
				sold += "\n"
			}
			note := fmt.Sprintf("%s (matched at %s)", place.LineNumberNote, l)
			reps, err := c.applyLines(t, s, lines, starts, []int{p}, l, StrategyLineNumbers, stripped, sold, nw, []string{note})
			return reps, true, err
		}
	}
	return fail(fmt.Sprintf("its lines start with line numbers as a read tool shows them; the numbers say line %d, but without them the lines are not there.", first))
}

// notFound is the KindNotFound error with the closest place and its first differing line.
func (c *editCtx) notFound(s *place.Locator, lines []string, ol []string) *Error {
	var b strings.Builder
	fmt.Fprintf(&b, "old_string is not in %s (compared as written, then line by line ignoring whitespace at the ends and typographic punctuation).", c.path)
	e := c.err(KindNotFound, "")
	n := len(lines)
	start, ok, exhausted := s.Nearest(ol)
	switch {
	case n == 0:
		b.WriteString(" The file is empty.")
	case exhausted:
		b.WriteString(" The search for the closest place stopped at the work limit.")
	case !ok:
		b.WriteString(" No line of old_string is in the file.")
	default:
		i := 0
		for i < len(ol) && start+i < n && s.LineMatches(c.cfg.MaxTol, ol[i], start+i) {
			i++
		}
		if i == len(ol) {
			i = 0
		}
		q := start + i + 1
		ftext := "<end of file>"
		if q <= n && q >= 1 {
			ftext = lines[q-1]
		}
		fmt.Fprintf(&b, "\nThe closest place starts at line %d; first difference:\n  old_string line %d: %s\n  file line %d: %s",
			max(start+1, 1), i+1, place.CutLine(ol[i]), q, place.CutLine(ftext))
		e.FileLine = q
	}
	b.WriteString("\nRead the file again and copy old_string exactly as it is now (without the read tool's line numbers).")
	if len(c.edits) > 1 {
		e.Msg = c.err(KindNotFound, b.String()).Msg
	} else {
		e.Msg = b.String()
	}
	return e
}

// PlanEdit plans an edit call without writing: containment of the path first (nothing is
// read before), then the edits in order in memory ([ApplyEdits], under the Applier's ladder
// cap and work limit), then the formatter ([WithFormatter]). The plan is committed with
// [Applier.Commit] like a patch's: one [wfs.Tx] that re-checks the file against what was read.
//
// A missing file can be created only by a first edit with an empty Old; its parent
// directories are created.
//
// Errors (*Error, Op "edit"): those of [ApplyEdits]; KindInvalid (no path), KindBlocked (a
// path outside the bases, or a pass-through plan under [PassThrough]), KindMissingFile,
// KindPathConflict (a directory, FIFO, socket or device), KindTooLarge, KindReadOnly,
// KindChanged (ReadDigest set and the file no longer holds that content), KindIO.
func (a *Applier) PlanEdit(ctx context.Context, req EditRequest) (*Plan, error) {
	pl, err := a.planEdit(ctx, req)
	if err != nil {
		if pe, ok := err.(*Error); ok {
			pe.Op = "edit"
		}
		return nil, err
	}
	return pl, nil
}

// Edit plans and commits an edit call (PlanEdit + Commit): nothing is written unless every
// edit applies. Errors: those of [Applier.PlanEdit] and [Applier.Commit].
func (a *Applier) Edit(ctx context.Context, req EditRequest) (*Result, error) {
	pl, err := a.PlanEdit(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := a.Commit(ctx, pl)
	if err != nil {
		if pe, ok := err.(*Error); ok {
			pe.Op = "edit"
		}
		return nil, err
	}
	return res, nil
}

func (a *Applier) planEdit(ctx context.Context, req EditRequest) (*Plan, error) {
	if req.Path == "" {
		return nil, &Error{Kind: KindInvalid, Msg: "file_path is empty; give the path of the file to edit"}
	}
	if len(req.Edits) == 0 {
		return nil, &Error{Kind: KindEmpty, Path: req.Path, Msg: "No edits were given; give old_string and new_string (or a list of edits)"}
	}
	abs := a.abs(req.Path)
	t, err := a.ct.Check(abs)
	if err != nil {
		e := a.containErr(req.Path, err)
		if e.Kind == KindBlocked {
			if a.cfg.outside == PassThrough {
				return &Plan{PassedThrough: true, Outside: []string{req.Path}, owner: a.fam}, nil
			}
			e.Msg = "path outside workspace root: " + req.Path + "; edit only files inside the workspace"
		}
		return nil, e
	}
	recovered, err := a.recoverFirst(ctx)
	if err != nil {
		return nil, err
	}
	paths := map[string]resolved{req.Path: {raw: req.Path, abs: t.Abs, real: t.Real, rel: t.Rel}}
	pl := a.newPlanner(ctx, paths, nil)
	e, err := pl.look(t.Real, t.Abs, req.Path, 1)
	if err != nil {
		return nil, err
	}
	h := &Hunk{Kind: UpdateFile, Path: req.Path}
	switch k, _ := pl.kind(e); k {
	case curOther:
		return nil, pl.notRegular(h, 1)
	case curDir:
		return nil, &Error{Kind: KindPathConflict, Path: req.Path, Msg: fmt.Sprintf("%s is a directory; give the path of a file", req.Path)}
	case curNone:
		if req.Edits[0].Old != "" {
			return nil, &Error{Kind: KindMissingFile, Path: req.Path, Chunk: 1, Msg: fmt.Sprintf(
				"%s does not exist; to create it, give an empty old_string and the whole content as new_string", req.Path)}
		}
		if err := pl.checkParents(t.Real, req.Path, 1); err != nil {
			return nil, err
		}
		pl.markParents(t.Real)
		e.mode, e.inherit = a.cfg.fileMode, false
	case curFile:
		if err := pl.writable(e, h, 1); err != nil {
			return nil, err
		}
		e.inherit = true
	default:
		return nil, &Error{Kind: KindPathConflict, Path: req.Path, Msg: fmt.Sprintf("%s is not a regular file", req.Path)}
	}
	if req.ReadDigest != "" && (!e.exists || Digest(e.data) != req.ReadDigest) {
		return nil, &Error{Kind: KindChanged, Path: req.Path, Msg: fmt.Sprintf(
			"%s changed since it was last read (by the user, a formatter or another tool); nothing was written. Read it again and make the edit against what it holds now", req.Path)}
	}
	out, reps, err := editBytes(&a.cfg, req.Path, e.data, req.Edits)
	if err != nil {
		return nil, err
	}
	if err := pl.canceled(req.Path, 1); err != nil {
		return nil, err
	}
	if n := int64(len(out)); n > a.cfg.maxFileSize {
		return nil, &Error{Kind: KindTooLarge, Path: req.Path, Msg: tooLargeMsg(req.Path, n, a.cfg.maxFileSize)}
	}
	e.exists, e.touched, e.data = true, true, out
	pl.report = reps
	pl.formatEntries(pl.order)
	changes, sum := netChanges(pl.order)
	return &Plan{Changes: changes, Report: pl.report, owner: a.fam, entries: pl.order, sum: sum,
		Leftovers: a.leftovers(pl.order), recovered: recovered}, nil
}

// editPrefix is the class prefix of an edit's error.
func editPrefix(class string) string {
	return strings.Replace(classPrefix(class), "apply_patch", "edit", 1)
}
