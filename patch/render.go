package patch

import "github.com/harnesskit/harnesskit/patch/internal/place"

// render applies sorted, non-overlapping placements to d and returns the new bytes.
func render(d *doc, ps []place.Placement, m EOLMode) []byte {
	term := d.insertTerm(m)
	outL := make([]string, 0, len(d.lines)+8)
	outT := make([]string, 0, len(d.lines)+8)
	pos := 0
	copyTo := func(end int) {
		outL = append(outL, d.lines[pos:end]...)
		outT = append(outT, d.terms[pos:end]...)
		pos = end
	}
	for _, p := range ps {
		copyTo(p.Start)
		pos = place.Walk(pos, p.Edits, func(i int) {
			outL, outT = append(outL, d.lines[i]), append(outT, d.terms[i])
		}, func(text string) {
			outL, outT = append(outL, text), append(outT, term)
		})
	}
	copyTo(len(d.lines))
	// Two lines are never joined: an unterminated line that is no longer last gets one.
	for i := 0; i+1 < len(outT); i++ {
		if outT[i] == "" {
			outT[i] = term
		}
	}
	if n := len(outT); n > 0 {
		switch {
		case m == EOLCodex || d.finalNewline():
			if outT[n-1] == "" {
				outT[n-1] = term
			}
		case outL[n-1] == "":
			// An empty last line cannot exist without a terminator: keeping the line the
			// patch asked for wins over keeping the missing final newline.
			if outT[n-1] == "" {
				outT[n-1] = term
			}
		default:
			outT[n-1] = ""
		}
	}
	size := 0
	if d.bom {
		size += len(bom)
	}
	for i := range outL {
		size += len(outL[i]) + len(outT[i])
	}
	b := make([]byte, 0, size)
	if d.bom {
		b = append(b, bom...)
	}
	for i := range outL {
		b = append(append(b, outL[i]...), outT[i]...)
	}
	return b
}
