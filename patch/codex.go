package patch

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// This file is the package's internal model of Codex's own applier (codex-rs/apply-patch):
// its parser, its four-pass seek without uniqueness, the end-of-file rule, the
// trailing-blank retry, pure insertions at the end of the file, replacements applied from last
// to first, first-line-break terminators and an always-present final newline, and sections
// applied one by one. Rewrite uses it to verify that a strict host picks the same windows; the
// tests use it as an oracle. It is deliberately not exported.

// codexChunk is one chunk as Codex sees it.
type codexChunk struct {
	ctx      *string
	old, new []string
	eof      bool
}

// codexHunk is one section as Codex sees it.
type codexHunk struct {
	kind     HunkKind
	path     string
	moveTo   string
	contents string
	chunks   []codexChunk
}

var errCodexNoHunks = errors.New("No files were modified.")

// codexParse parses text with Codex's lenient parser.
func codexParse(text string) ([]codexHunk, error) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	envelope := func(ls []string) bool {
		return len(ls) >= 2 && strings.TrimSpace(ls[0]) == markerBegin && strings.TrimSpace(ls[len(ls)-1]) == markerEnd
	}
	if !envelope(lines) {
		first := lines[0]
		if len(lines) >= 4 && (first == "<<EOF" || first == "<<'EOF'" || first == `<<"EOF"`) &&
			strings.HasSuffix(lines[len(lines)-1], "EOF") {
			lines = lines[1 : len(lines)-1]
		}
		if !envelope(lines) {
			if strings.TrimSpace(lines[0]) != markerBegin {
				return nil, errors.New("Invalid patch: " + msgFirstLine)
			}
			return nil, errors.New("Invalid patch: " + msgLastLine)
		}
	}
	body := lines[1 : len(lines)-1]
	var hunks []codexHunk
	for i := 0; i < len(body); {
		t := strings.TrimSpace(body[i])
		switch {
		case strings.HasPrefix(t, "*** Add File: "):
			h := codexHunk{kind: AddFile, path: t[len("*** Add File: "):]}
			i++
			var b strings.Builder
			for i < len(body) && strings.HasPrefix(body[i], "+") {
				b.WriteString(body[i][1:] + "\n")
				i++
			}
			h.contents = b.String()
			hunks = append(hunks, h)
		case strings.HasPrefix(t, "*** Delete File: "):
			hunks = append(hunks, codexHunk{kind: DeleteFile, path: t[len("*** Delete File: "):]})
			i++
		case strings.HasPrefix(t, "*** Update File: "):
			h := codexHunk{kind: UpdateFile, path: t[len("*** Update File: "):]}
			i++
			if i < len(body) && strings.HasPrefix(body[i], "*** Move to: ") {
				h.moveTo = body[i][len("*** Move to: "):]
				i++
			}
			for i < len(body) {
				if strings.TrimSpace(body[i]) == "" {
					i++
					continue
				}
				if strings.HasPrefix(body[i], "*") {
					break
				}
				c, n, err := codexChunkParse(body[i:], len(h.chunks) == 0)
				if err != nil {
					return nil, err
				}
				h.chunks = append(h.chunks, c)
				i += n
			}
			if len(h.chunks) == 0 {
				return nil, fmt.Errorf("Update file hunk for path '%s' is empty", h.path)
			}
			hunks = append(hunks, h)
		default:
			return nil, fmt.Errorf("'%s' is not a valid hunk header", t)
		}
	}
	return hunks, nil
}

func codexChunkParse(ls []string, first bool) (codexChunk, int, error) {
	var c codexChunk
	i := 0
	// Codex reads the "@@" line with its trailing whitespace removed: "@@ A " seeks "A" and
	// "@@ " is a bare "@@" (leading spaces of the context stay).
	head := rustTrimEnd(ls[0])
	switch {
	case head == "@@":
		i = 1
	case strings.HasPrefix(head, "@@ "):
		ctx := head[3:]
		c.ctx = &ctx
		i = 1
	case !first:
		return c, 0, fmt.Errorf("Expected update hunk to start with a @@ context marker, got: '%s'", ls[0])
	}
	start := i
	for ; i < len(ls); i++ {
		l := ls[i]
		if l == markerEOF {
			if i == start {
				return c, 0, errors.New(msgNoLines)
			}
			c.eof = true
			i++
			break
		}
		if l == "" {
			c.old, c.new = append(c.old, ""), append(c.new, "")
			continue
		}
		switch l[0] {
		case ' ':
			c.old, c.new = append(c.old, l[1:]), append(c.new, l[1:])
			continue
		case '+':
			c.new = append(c.new, l[1:])
			continue
		case '-':
			c.old = append(c.old, l[1:])
			continue
		}
		if i == start {
			return c, 0, fmt.Errorf("Unexpected line found in update hunk: '%s'", l)
		}
		break
	}
	if i == start {
		return c, 0, errors.New(msgNoLines)
	}
	return c, i, nil
}

// codexMap is Codex's own punctuation map (no U+2026).
func codexMap(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008',
			'\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, s)
}

// rustTrim trims like Rust's str::trim (Unicode White_Space; U+FEFF is not whitespace).
func rustTrim(s string) string    { return strings.TrimFunc(s, unicode.IsSpace) }
func rustTrimEnd(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// codexSeek is Codex's seek_sequence: four passes, first hit wins, no uniqueness; with eof
// only the last position, when it is at or below start.
func codexSeek(lines, pat []string, start int, eof bool) int {
	if len(pat) == 0 {
		return start
	}
	if len(pat) > len(lines) {
		return -1
	}
	from := start
	if eof {
		// Only the last position is tried, and only when it is not above the cursor.
		from = len(lines) - len(pat)
		if from < start {
			return -1
		}
	}
	passes := []func(string) string{
		func(s string) string { return s },
		rustTrimEnd,
		rustTrim,
		func(s string) string { return codexMap(rustTrim(s)) },
	}
	for _, norm := range passes {
		for p := from; p <= len(lines)-len(pat); p++ {
			ok := true
			for i := range pat {
				if norm(lines[p+i]) != norm(pat[i]) {
					ok = false
					break
				}
			}
			if ok {
				return p
			}
		}
	}
	return -1
}

// codexReplacement is one located chunk: old lines [start, start+oldLen) become new.
type codexReplacement struct {
	start, oldLen int
	old, new      []string
}

// codexLocate computes Codex's replacements for one Update section over lines.
func codexLocate(lines []string, chunks []codexChunk, path string) ([]codexReplacement, error) {
	var reps []codexReplacement
	cursor := 0
	for _, c := range chunks {
		if c.ctx != nil {
			i := codexSeek(lines, []string{*c.ctx}, cursor, false)
			if i < 0 {
				return nil, fmt.Errorf("Failed to find context '%s' in %s", *c.ctx, path)
			}
			cursor = i + 1
		}
		if len(c.old) == 0 {
			reps = append(reps, codexReplacement{start: len(lines), new: c.new})
			continue
		}
		old, nw := c.old, c.new
		p := codexSeek(lines, old, cursor, c.eof)
		if p < 0 && old[len(old)-1] == "" {
			old = old[:len(old)-1]
			if len(nw) > 0 && nw[len(nw)-1] == "" {
				nw = nw[:len(nw)-1]
			}
			p = codexSeek(lines, old, cursor, c.eof)
		}
		if p < 0 {
			return nil, fmt.Errorf("Failed to find expected lines in %s:\n%s", path, strings.Join(c.old, "\n"))
		}
		reps = append(reps, codexReplacement{start: p, oldLen: len(old), old: old, new: nw})
		cursor = p + len(old)
	}
	return reps, nil
}

// codexApplyText applies one Update section to content the way Codex does.
func codexApplyText(content []byte, chunks []codexChunk, path string) ([]byte, error) {
	s := string(content)
	parts := strings.Split(s, "\n")
	if len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	firstBreak := "\n"
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		firstBreak = "\r\n"
	}
	lines := make([]string, len(parts))
	terms := make([]string, len(parts))
	for i, p := range parts {
		switch {
		case i == len(parts)-1 && !strings.HasSuffix(s, "\n"):
			// the final line break Codex adds takes the first line break's style
			lines[i], terms[i] = p, firstBreak
		case strings.HasSuffix(p, "\r"):
			lines[i], terms[i] = p[:len(p)-1], "\r\n"
		default:
			lines[i], terms[i] = p, "\n"
		}
	}
	reps, err := codexLocate(lines, chunks, path)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].start < reps[j].start })
	disjoint := true
	for i := 1; i < len(reps); i++ {
		if reps[i].start < reps[i-1].start+reps[i-1].oldLen {
			disjoint = false
		}
	}
	var outL, outT []string
	pos := 0
	for i := len(reps) - 1; i >= 0; i-- {
		r := reps[i]
		if disjoint {
			// Applying disjoint replacements from last to first equals one forward pass.
			r = reps[len(reps)-1-i]
		}
		// Lines shared by old and new at the window's edges keep the file's bytes.
		pre := 0
		for pre < len(r.old) && pre < len(r.new) && r.old[pre] == r.new[pre] {
			pre++
		}
		suf := 0
		for suf < len(r.old)-pre && suf < len(r.new)-pre && r.old[len(r.old)-1-suf] == r.new[len(r.new)-1-suf] {
			suf++
		}
		nl := make([]string, 0, len(r.new))
		nt := make([]string, 0, len(r.new))
		for j, t := range r.new {
			switch {
			case j < pre:
				nl, nt = append(nl, lines[r.start+j]), append(nt, terms[r.start+j])
			case j >= len(r.new)-suf:
				k := r.start + r.oldLen - (len(r.new) - j)
				nl, nt = append(nl, lines[k]), append(nt, terms[k])
			default:
				nl, nt = append(nl, t), append(nt, firstBreak)
			}
		}
		if disjoint {
			outL = append(append(outL, lines[pos:r.start]...), nl...)
			outT = append(append(outT, terms[pos:r.start]...), nt...)
			pos = r.start + r.oldLen
			continue
		}
		lines = slices.Concat(lines[:r.start], nl, lines[r.start+r.oldLen:])
		terms = slices.Concat(terms[:r.start], nt, terms[r.start+r.oldLen:])
	}
	if disjoint {
		lines = append(outL, lines[pos:]...)
		terms = append(outT, terms[pos:]...)
	}
	var b strings.Builder
	for i := range lines {
		b.WriteString(lines[i])
		b.WriteString(terms[i])
	}
	return []byte(b.String()), nil
}

// codexTree is the model's file system: slash paths relative to the working directory.
type codexTree map[string][]byte

// codexApply applies text to tree in place, section by section, as Codex does: earlier
// sections stay applied when a later one fails.
func codexApply(tree codexTree, text string) error {
	hunks, err := codexParse(text)
	if err != nil {
		return err
	}
	if len(hunks) == 0 {
		return errCodexNoHunks
	}
	for _, h := range hunks {
		switch h.kind {
		case AddFile:
			tree[h.path] = []byte(h.contents)
		case DeleteFile:
			if _, ok := tree[h.path]; !ok {
				return fmt.Errorf("Failed to delete file %s", h.path)
			}
			delete(tree, h.path)
		case UpdateFile:
			content, ok := tree[h.path]
			if !ok {
				return fmt.Errorf("Failed to read file to update %s", h.path)
			}
			out, err := codexApplyText(content, h.chunks, h.path)
			if err != nil {
				return err
			}
			if h.moveTo != "" {
				tree[h.moveTo] = out
				delete(tree, h.path)
			} else {
				tree[h.path] = out
			}
		}
	}
	return nil
}
