package patch

import "strings"

// Format renders p as canonical patch text: "*** Begin Patch", each hunk, "*** End Patch",
// lines joined by "\n" with one final "\n". An Add hunk is its header and one "+" line per
// content line (none for empty contents). An Update hunk is its header, an optional
// "*** Move to: <path>", then per chunk one "@@ <anchor>" line per anchor (or a single bare
// "@@"), the body lines with their prefix (an empty context line is written as a single
// space) and "*** End of File" when the chunk is pinned to the end.
//
// A rendered line whose last byte is "\r" gets one more "\r", because [Parse] drops one "\r"
// from every line (so CRLF patches work); this keeps such text intact.
//
// For every p that passes [Patch.Validate], Parse(Format(p)) returns a patch [Equal] to p.
// Format does not check p: an invalid patch renders as best it can (unknown hunk kinds are
// skipped) and may not parse back.
func Format(p *Patch) string {
	var b strings.Builder
	if p != nil {
		b.Grow(formatSize(p))
	}
	b.WriteString(markerBegin)
	b.WriteByte('\n')
	if p != nil {
		for i := range p.Hunks {
			formatHunk(&b, &p.Hunks[i])
		}
	}
	b.WriteString(markerEnd)
	b.WriteByte('\n')
	return b.String()
}

func formatHunk(b *strings.Builder, h *Hunk) {
	switch h.Kind {
	case AddFile:
		formatLine(b, markerAdd+" ", h.Path)
		rest := h.Contents
		for rest != "" {
			line, tail, _ := strings.Cut(rest, "\n")
			formatLine(b, "+", line)
			rest = tail
		}
	case DeleteFile:
		formatLine(b, markerDelete+" ", h.Path)
	case UpdateFile:
		formatLine(b, markerUpdate+" ", h.Path)
		if h.MoveTo != "" {
			formatLine(b, markerMove+" ", h.MoveTo)
		}
		for _, c := range h.Chunks {
			if len(c.Anchors) == 0 {
				b.WriteString(markerChunk + "\n")
			}
			for _, a := range c.Anchors {
				formatLine(b, markerChunk+" ", a)
			}
			for _, l := range c.Lines {
				b.WriteByte(byte(l.Op))
				formatLine(b, "", l.Text)
			}
			if c.EOF {
				b.WriteString(markerEOF + "\n")
			}
		}
	}
}

// formatLine writes prefix+text and a line break, doubling a final "\r" (see Format).
func formatLine(b *strings.Builder, prefix, text string) {
	b.WriteString(prefix)
	b.WriteString(text)
	if strings.HasSuffix(text, "\r") {
		b.WriteByte('\r')
	}
	b.WriteByte('\n')
}

// formatSize estimates the length of Format(p) so the builder allocates once.
func formatSize(p *Patch) int {
	n := len(markerBegin) + len(markerEnd) + 2
	for i := range p.Hunks {
		h := &p.Hunks[i]
		n += len(markerUpdate) + len(h.Path) + len(markerMove) + len(h.MoveTo) + 4
		n += len(h.Contents) + strings.Count(h.Contents, "\n")
		for _, c := range h.Chunks {
			n += 3 + len(markerEOF) + 1
			for _, a := range c.Anchors {
				n += len(a) + 4
			}
			for _, l := range c.Lines {
				n += len(l.Text) + 3
			}
		}
	}
	return n
}
