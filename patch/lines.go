package patch

import "strings"

// This file splits a file into lines and keeps what makes its bytes faithful: each line's own
// terminator, the final-newline state and a UTF-8 byte-order mark.

const bom = "\ufeff"

// doc is a file split into lines. lines[i] is the content of line i without its terminator;
// terms[i] is that line's terminator ("\n", "\r\n", "\r", or "" for a last line without one).
type doc struct {
	bom   bool // a leading UTF-8 BOM was removed (default mode only)
	lines []string
	terms []string
	// firstBreak is the style of the file's first line break ("" when it has none).
	firstBreak string
}

// parseDoc splits data into lines (a leading BOM removed and remembered; line breaks \n,
// \r\n, or lone \r in a file without \n). With keepBOM the BOM stays content of line 0
// (Codex mode).
func parseDoc(data []byte, keepBOM bool) *doc {
	d := &doc{}
	s := string(data)
	if !keepBOM && strings.HasPrefix(s, bom) {
		d.bom = true
		s = s[len(bom):]
	}
	if s == "" {
		return d
	}
	oldMac := strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\r') >= 0
	n := strings.Count(s, "\n")
	if oldMac {
		n = strings.Count(s, "\r")
	}
	d.lines = make([]string, 0, n+1)
	d.terms = make([]string, 0, n+1)
	for s != "" {
		var i int
		if oldMac {
			i = strings.IndexByte(s, '\r')
		} else {
			i = strings.IndexByte(s, '\n')
		}
		if i < 0 {
			d.lines = append(d.lines, s)
			d.terms = append(d.terms, "")
			break
		}
		line, term := s[:i], s[i:i+1]
		if !oldMac && strings.HasSuffix(line, "\r") {
			line, term = line[:len(line)-1], "\r\n"
		}
		d.lines = append(d.lines, line)
		d.terms = append(d.terms, term)
		if d.firstBreak == "" {
			d.firstBreak = term
		}
		s = s[i+1:]
	}
	return d
}

// finalNewline reports whether the file ends with a line break (an empty file counts as
// terminated).
func (d *doc) finalNewline() bool {
	return len(d.terms) == 0 || d.terms[len(d.terms)-1] != ""
}

// dominant returns the most frequent terminator; a tie goes to the first line break's style and
// a file without line breaks gets "\n".
func (d *doc) dominant() string {
	var lf, crlf, cr int
	for _, t := range d.terms {
		switch t {
		case "\n":
			lf++
		case "\r\n":
			crlf++
		case "\r":
			cr++
		}
	}
	best, bestN := "", 0
	for _, c := range []struct {
		t string
		n int
	}{{"\n", lf}, {"\r\n", crlf}, {"\r", cr}} {
		if c.n > bestN || (c.n == bestN && c.n > 0 && c.t == d.firstBreak) {
			best, bestN = c.t, c.n
		}
	}
	if best == "" {
		return "\n"
	}
	return best
}

// insertTerm returns the terminator given to inserted lines in mode m.
func (d *doc) insertTerm(m EOLMode) string {
	if m == EOLCodex {
		if d.firstBreak == "" {
			return "\n"
		}
		return d.firstBreak
	}
	return d.dominant()
}
