package place

import (
	"fmt"
	"slices"
	"strings"
)

// Models copy lines from a read tool that shows each line after its number: "    12\tfoo"
// (cat -n, this project's read tool) or "    12→foo" (Claude Code's). Such a prefix is not part
// of the file. A chunk whose context and removed lines all carry one, numbered as the file's own
// consecutive lines where the chunk then matches, has the prefixes removed and is applied; any
// other chunk with such prefixes that matches nowhere is refused with a message saying so.

// ReadPrefix splits a line of the read tools' form: optional spaces, a line number, then a tab
// or "→" (or nothing, for an empty line whose tab was lost). ok is false for other lines.
func ReadPrefix(s string) (num int, text string, ok bool) {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i < 9 {
		j++
	}
	if j == i || (j < len(s) && s[j] >= '0' && s[j] <= '9') {
		return 0, "", false
	}
	for _, c := range s[i:j] {
		num = 10*num + int(c-'0')
	}
	rest := s[j:]
	switch {
	case rest == "":
		return num, "", num > 0
	case rest[0] == '\t':
		return num, rest[1:], num > 0
	case strings.HasPrefix(rest, "→"):
		return num, rest[len("→"):], num > 0
	}
	return 0, "", false
}

// NumberRun follows the read-tool numbers of the lines of one chunk or old string, in order.
type NumberRun struct {
	First    int  // the first number
	Prefixed int  // how many lines carried a number
	Gap      bool // the numbers were not consecutive
	next     int  // the number the next prefixed line should carry
}

// Add follows the next line that carries a number.
func (r *NumberRun) Add(num int) {
	r.Prefixed++
	switch {
	case r.First == 0:
		r.First = num
	case num != r.next:
		r.Gap = true
	}
	r.next = num + 1
}

// LineNumberNote is the report note of a chunk whose read-tool prefixes were removed.
const LineNumberNote = "line numbers copied from the read tool removed from the context and removed lines"

// lineNumbered handles a chunk that matched nowhere and whose old lines carry read-tool line
// numbers. handled is false when no old line carries one (the caller goes on with the
// rescues). Otherwise the chunk is applied with the prefixes removed when every context and
// removed line has one, the numbers are consecutive, no added line has one, and the stripped
// lines match at a ladder level exactly at the line the first number names (unique there, or
// that line among the candidates: the numbers choose it); else a KindNotFound error says that
// line numbers are not part of the file.
func (s *Locator) lineNumbered(k int, ch Chunk, body chunkBody, cursor int, uniqueExact bool, rep *ChunkReport) (p placement, handled bool, err error) {
	var (
		stripped      = chunkBody{lines: make([]Line, len(body.lines))}
		run           NumberRun
		plain         int
		addedPrefixed *Line
	)
	for i, l := range body.lines {
		stripped.lines[i] = l
		num, text, ok := ReadPrefix(l.Text)
		if l.Op == Insert {
			if ok && addedPrefixed == nil {
				addedPrefixed = &body.lines[i]
			}
			continue
		}
		if !ok {
			plain++
			continue
		}
		run.Add(num)
		stripped.lines[i].Text = text
	}
	if run.Prefixed == 0 {
		return placement{}, false, nil
	}
	first, prefixed, gap := run.First, run.Prefixed, run.Gap
	old, oldLines := body.old()
	fail := func(why string) (placement, bool, error) {
		e := s.newErr(KindNotFound, k, oldLines[0], fmt.Sprintf(
			"Failed to find expected lines in %s:\n%s\n%s Line numbers are not part of the file: "+
				"copy each line after the read tool's number and tab (or arrow), and use a ' ', '-' or '+' prefix only.",
			s.path, joinLines(old), why))
		return placement{}, true, e
	}
	switch {
	case s.cfg.Codex:
		return fail("The lines start with line numbers as a read tool shows them.")
	case plain > 0:
		return fail(fmt.Sprintf("%d of the chunk's %d context and removed lines start with a line number as a read tool shows it and %d do not.",
			prefixed, prefixed+plain, plain))
	case gap:
		return fail("The lines start with line numbers as a read tool shows them, but the numbers are not consecutive.")
	case addedPrefixed != nil:
		return fail(fmt.Sprintf("The added line at patch line %d starts with a line number as a read tool shows it; "+
			"it would be written into the file with its number.", addedPrefixed.Line))
	}
	sold, _ := stripped.old()
	r := s.seek(sold, cursor, ch.EOF, uniqueExact)
	at := first - 1
	switch {
	case r.pos == at:
	case r.ambiguous && slices.Contains(r.cands, at):
	default:
		where := "match nowhere in the file"
		switch {
		case r.pos >= 0:
			where = fmt.Sprintf("are at line %d", r.pos+1)
		case r.ambiguous:
			where = fmt.Sprintf("match at lines %s", CandidateList(r.cands, len(r.cands), r.exhausted))
		}
		return fail(fmt.Sprintf("The lines start with line numbers as a read tool shows them; the numbers say line %d, but without them the lines %s.",
			first, where))
	}
	if q, ok := s.overlapping(at, at+len(sold)); ok {
		return placement{}, true, s.overlapErr(k, oldLines[0], at, at+len(sold), q)
	}
	p = s.finish(stripped, at, StrategyLineNumbers, k, rep)
	rep.Notes = append(rep.Notes, fmt.Sprintf("%s (matched at %s)", LineNumberNote, r.level))
	return p, true, nil
}
