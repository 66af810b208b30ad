package patch

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// Marker texts of the patch format.
const (
	markerBegin     = "*** Begin Patch"
	markerEnd       = "*** End Patch"
	markerAdd       = "*** Add File:"
	markerDelete    = "*** Delete File:"
	markerUpdate    = "*** Update File:"
	markerMove      = "*** Move to:"
	markerEOF       = "*** End of File"
	markerChunk     = "@@"
	markerHunkStart = "*** "
)

// Parse error messages (Codex's texts, plus two of ours).
const (
	msgFirstLine = "The first line of the patch must be '*** Begin Patch'"
	msgLastLine  = "The last line of the patch must be '*** End Patch'"
	msgNoLines   = "Update hunk does not contain any lines"
	msgAddBlank  = "Unexpected blank line in Add File body; write an empty added line as '+'"
	msgNULPath   = "path contains a NUL byte"
)

// Parse reads a patch in the Codex apply_patch format:
//
//	*** Begin Patch
//	*** Add File: <path>        followed by "+" lines
//	*** Delete File: <path>
//	*** Update File: <path>     optionally followed by "*** Move to: <path>", then chunks:
//	@@ [anchor]                 one or more (stacked anchors narrow the location)
//	 context / -removed / +added
//	*** End of File             optional: the chunk is pinned to the end of the file
//	*** End Patch
//
// Parse is strict about the body and lenient about the envelope, like Codex's own parser:
// CRLF line breaks, a byte-order mark, blank lines around the patch, whitespace around the
// Begin/End markers and hunk headers, blank lines between sections and chunks, a shell heredoc
// wrapper (`<<'EOF'` … `EOF`, also `cat <<X` and `apply_patch <<X`), a first chunk without
// "@@", "@@anchor" without a space and stacked "@@" lines are all accepted. "@@ " followed by
// whitespace only means no anchor. Inside a chunk a line starting with a space is always a
// context line, even when it looks like a marker; a zero-length line is an empty context line.
//
// Parse is pure and total: it returns a *Patch, or an [*Error] of kind [KindInvalid] whose
// Line is the 1-based number of the offending line in text as given (before any unwrapping)
// and whose message is Codex's ("Invalid patch: …" for the envelope, "Invalid patch hunk on
// line <n>: …" for the body). A patch with no sections parses; applying it fails with
// [KindEmpty]. Every returned patch passes [Patch.Validate], and [Format] renders it back to
// text that parses to an [Equal] patch.
func Parse(text string) (*Patch, error) {
	lines := splitPatchLines(text)
	lo, hi, err := patchEnvelope(lines)
	if err != nil {
		return nil, err
	}
	ps := patchParser{lines: lines, i: lo, end: hi}
	if err := ps.parseHunks(); err != nil {
		return nil, err
	}
	return &Patch{Hunks: ps.hunks}, nil
}

// splitPatchLines splits text on "\n", drops one trailing "\r" from every line and a leading
// U+FEFF from the first line. Indexes into the result are 0-based source line numbers.
func splitPatchLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "\r") {
			lines[i] = l[:len(l)-1]
		}
	}
	lines[0] = strings.TrimPrefix(lines[0], "\uFEFF")
	return lines
}

// isPatchSpace is the package's whitespace: unicode.IsSpace plus U+FEFF.
func isPatchSpace(r rune) bool { return r == '\uFEFF' || unicode.IsSpace(r) }

// trimPatchSpace removes leading and trailing whitespace (isPatchSpace).
func trimPatchSpace(s string) string { return strings.TrimFunc(s, isPatchSpace) }

// blankPatchLine reports whether s is empty or whitespace only.
func blankPatchLine(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != ' ' && c != '\t' && c != '\v' && c != '\f' && c != '\r' && c != '\n' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isPatchSpace(r) {
			return false
		}
		i += n
	}
	return true
}

// trimBlankLines narrows [lo, hi) to drop leading and trailing blank lines.
func trimBlankLines(lines []string, lo, hi int) (int, int) {
	for lo < hi && blankPatchLine(lines[lo]) {
		lo++
	}
	for hi > lo && blankPatchLine(lines[hi-1]) {
		hi--
	}
	return lo, hi
}

// patchEnvelope finds the body of the patch: it returns [lo, hi) with the Begin and End
// markers excluded, after blank-line trimming and heredoc unwrapping.
func patchEnvelope(lines []string) (lo, hi int, err error) {
	lo, hi = trimBlankLines(lines, 0, len(lines))
	if hasEnvelope(lines, lo, hi) {
		return lo + 1, hi - 1, nil
	}
	if hi-lo >= 4 {
		if delim, ok := heredocOpener(lines[lo]); ok && trimPatchSpace(lines[hi-1]) == delim {
			lo, hi = trimBlankLines(lines, lo+1, hi-1)
			if hasEnvelope(lines, lo, hi) {
				return lo + 1, hi - 1, nil
			}
		}
	}
	if lo >= hi || trimPatchSpace(lines[lo]) != markerBegin {
		n := lo + 1
		if lo >= len(lines) {
			n = len(lines)
		}
		e := envelopeError(n, msgFirstLine)
		if isUnifiedDiff(lines[lo:hi]) {
			e.Msg += ". This text is a unified diff (---/+++ file headers and @@ -a,b +c,d @@ chunks); " +
				"this tool takes the apply_patch format instead: '*** Begin Patch', then '*** Update File: <path>' " +
				"with '@@' chunks of ' ', '-' and '+' lines, then '*** End Patch'"
		}
		return 0, 0, e
	}
	return 0, 0, envelopeError(hi, msgLastLine)
}

// unifiedDiffChunk matches a unified-diff chunk header.
var unifiedDiffChunk = regexp.MustCompile(`^@@ -\d+(,\d+)? \+\d+(,\d+)? @@`)

// isUnifiedDiff reports whether lines look like a unified diff (git diff or diff -u output): a
// "--- " line directly followed by a "+++ " line, and a chunk header after them.
func isUnifiedDiff(lines []string) bool {
	for i := 0; i+2 < len(lines) && i < 50; i++ {
		if strings.HasPrefix(lines[i], "--- ") && strings.HasPrefix(lines[i+1], "+++ ") {
			for _, l := range lines[i+2:] {
				if unifiedDiffChunk.MatchString(l) {
					return true
				}
			}
			return false
		}
	}
	return false
}

func hasEnvelope(lines []string, lo, hi int) bool {
	return hi-lo >= 2 && trimPatchSpace(lines[lo]) == markerBegin && trimPatchSpace(lines[hi-1]) == markerEnd
}

func envelopeError(line int, msg string) *Error {
	return &Error{Kind: KindInvalid, Line: line, Msg: "Invalid patch: " + msg}
}

// heredocOpener recognises a heredoc first line: optional "cat", "apply_patch" or
// "applypatch" and whitespace, then "<<" or "<<-", optional spaces, and a delimiter word
// [A-Za-z_][A-Za-z0-9_]* bare or inside a matching pair of quotes. It returns the word.
func heredocOpener(line string) (string, bool) {
	s := trimPatchSpace(line)
	for _, cmd := range [...]string{"cat", "apply_patch", "applypatch"} {
		if rest, ok := strings.CutPrefix(s, cmd); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			s = strings.TrimLeft(rest, " \t")
			break
		}
	}
	s, ok := strings.CutPrefix(s, "<<")
	if !ok {
		return "", false
	}
	s = strings.TrimPrefix(s, "-")
	s = strings.TrimLeft(s, " \t")
	return heredocWord(s)
}

// heredocWord accepts exactly a delimiter word, bare or in matching quotes, and returns it.
func heredocWord(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	if q := s[0]; q == '\'' || q == '"' {
		if len(s) < 3 || s[len(s)-1] != q {
			return "", false
		}
		s = s[1 : len(s)-1]
	}
	if !isDelimiterWord(s) {
		return "", false
	}
	return s, true
}

func isDelimiterWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// patchParser walks the body lines [i, end) of a patch.
type patchParser struct {
	lines []string
	i     int
	end   int
	hunks []Hunk
	path  string // path of the hunk being read, for errors
	chunk int    // 1-based index of the chunk being read, 0 outside chunks
}

// hunkError reports msg at 0-based line lineIdx, naming the section (and chunk) being read.
func (ps *patchParser) hunkError(lineIdx int, msg string) *Error {
	n := lineIdx + 1
	return &Error{Kind: KindInvalid, Path: ps.path, Line: n, Section: len(ps.hunks) + 1, Chunk: ps.chunk,
		Msg: "Invalid patch hunk on line " + strconv.Itoa(n) + ": " + msg}
}

// parseHunks reads hunk after hunk; blank lines where a header is expected are skipped.
func (ps *patchParser) parseHunks() *Error {
	for ps.i < ps.end {
		line := ps.lines[ps.i]
		if blankPatchLine(line) {
			ps.i++
			continue
		}
		ps.path, ps.chunk = "", 0
		kind, path, err := ps.parseHeader(ps.i)
		if err != nil {
			return err
		}
		ps.path = path
		h := Hunk{Kind: kind, Path: path, Line: ps.i + 1}
		ps.i++
		switch kind {
		case AddFile:
			if err := ps.parseAddBody(&h); err != nil {
				return err
			}
		case UpdateFile:
			if err := ps.parseUpdateBody(&h); err != nil {
				return err
			}
		}
		ps.hunks = append(ps.hunks, h)
	}
	return nil
}

// parseHeader recognises a hunk header at line idx.
func (ps *patchParser) parseHeader(idx int) (HunkKind, string, *Error) {
	t := trimPatchSpace(ps.lines[idx])
	for _, m := range [...]struct {
		marker string
		kind   HunkKind
	}{{markerAdd, AddFile}, {markerDelete, DeleteFile}, {markerUpdate, UpdateFile}} {
		if rest, ok := strings.CutPrefix(t, m.marker); ok {
			path := trimPatchSpace(rest)
			if path == "" {
				break
			}
			if strings.IndexByte(path, 0) >= 0 {
				return 0, "", ps.hunkError(idx, msgNULPath)
			}
			return m.kind, path, nil
		}
	}
	return 0, "", ps.hunkError(idx, badHeaderMessage(t))
}

func badHeaderMessage(t string) string {
	return "'" + place.CutLine(t) + "' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
}

// parseAddBody reads the "+" lines of an Add hunk.
func (ps *patchParser) parseAddBody(h *Hunk) *Error {
	start := ps.i
	size := 0
	for ps.i < ps.end && strings.HasPrefix(ps.lines[ps.i], "+") {
		size += len(ps.lines[ps.i])
		ps.i++
	}
	if ps.i > start {
		var b strings.Builder
		b.Grow(size)
		for _, l := range ps.lines[start:ps.i] {
			b.WriteString(l[1:])
			b.WriteByte('\n')
		}
		h.Contents = b.String()
	}
	if ps.i < ps.end && blankPatchLine(ps.lines[ps.i]) {
		j := ps.i
		for j < ps.end && blankPatchLine(ps.lines[j]) {
			j++
		}
		if j < ps.end && strings.HasPrefix(ps.lines[j], "+") {
			return ps.hunkError(ps.i, msgAddBlank)
		}
	}
	return nil
}

// parseUpdateBody reads the optional move line and the chunks of an Update hunk.
func (ps *patchParser) parseUpdateBody(h *Hunk) *Error {
	header := ps.i - 1
	if ps.i < ps.end {
		if rest, ok := strings.CutPrefix(trimPatchSpace(ps.lines[ps.i]), markerMove); ok {
			if to := trimPatchSpace(rest); to != "" {
				if strings.IndexByte(to, 0) >= 0 {
					return ps.hunkError(ps.i, msgNULPath)
				}
				h.MoveTo = to
				ps.i++
			}
		}
	}
	for ps.i < ps.end {
		line := ps.lines[ps.i]
		switch {
		case blankPatchLine(line): // (a)
			ps.i++
			continue
		case strings.HasPrefix(line, markerChunk): // (b)
		case len(h.Chunks) == 0 && (line[0] == ' ' || line[0] == '+' || line[0] == '-'): // (c)
		case strings.HasPrefix(trimPatchSpace(line), markerHunkStart): // (d)
			return ps.endUpdate(h, header)
		default: // (e)
			return ps.hunkError(ps.i, "Expected update hunk to start with a @@ context marker, got: '"+place.CutLine(line)+"'")
		}
		ps.chunk = len(h.Chunks) + 1
		c, err := ps.parseChunk()
		if err != nil {
			return err
		}
		ps.chunk = 0
		h.Chunks = append(h.Chunks, c)
	}
	return ps.endUpdate(h, header)
}

func (ps *patchParser) endUpdate(h *Hunk, header int) *Error {
	if len(h.Chunks) == 0 {
		return ps.hunkError(header, "Update file hunk for path '"+h.Path+"' is empty")
	}
	return nil
}

// parseChunk reads one chunk: its "@@" header lines and its body.
func (ps *patchParser) parseChunk() (Chunk, *Error) {
	c := Chunk{Line: ps.i + 1}
	for ps.i < ps.end && strings.HasPrefix(ps.lines[ps.i], markerChunk) {
		if a := ps.lines[ps.i][len(markerChunk):]; !blankPatchLine(a) {
			if a[0] == ' ' {
				a = a[1:]
			}
			c.Anchors = append(c.Anchors, a)
		}
		ps.i++
	}
	start := ps.i
	n := 0
	for ps.i < ps.end && isBodyLine(ps.lines[ps.i]) {
		n++
		ps.i++
	}
	if n == 0 {
		// Nothing usable after the header: say why at the line that stopped us (the End
		// Patch line when the body ran out).
		if ps.i < ps.end {
			l := ps.lines[ps.i]
			if !isEOFMarker(l) && !strings.HasPrefix(trimPatchSpace(l), markerHunkStart) {
				return c, ps.hunkError(ps.i, "Unexpected line found in update hunk: '"+place.CutLine(l)+"'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)")
			}
		}
		return c, ps.hunkError(ps.i, msgNoLines)
	}
	c.Lines = make([]Line, n)
	for k, l := range ps.lines[start:ps.i] {
		op, text := Context, ""
		if l != "" {
			op, text = Op(l[0]), l[1:]
		}
		c.Lines[k] = Line{Op: op, Text: text, Line: start + k + 1}
	}
	if ps.i < ps.end && isEOFMarker(ps.lines[ps.i]) {
		c.EOF = true
		ps.i++
	}
	return c, nil
}

// isBodyLine reports whether l is a chunk body line: empty, or starting with ' ', '+' or '-'.
func isBodyLine(l string) bool {
	return l == "" || l[0] == ' ' || l[0] == '+' || l[0] == '-'
}

// isEOFMarker reports whether l is "*** End of File", trailing whitespace allowed.
func isEOFMarker(l string) bool {
	return strings.HasPrefix(l, markerEOF) && blankPatchLine(l[len(markerEOF):])
}
