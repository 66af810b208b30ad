package astsearch

import (
	"bytes"
	"sort"
	"strings"

	"github.com/harnesskit/harnesskit/internal/udiff"
)

// splitLines splits s into lines that keep their '\n'.
func splitLines(s []byte) []string {
	var out []string
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, string(s))
			break
		}
		out = append(out, string(s[:i+1]))
		s = s[i+1:]
	}
	return out
}

// lineIndex is a text's lines and where each starts (starts[len(lines)] is the text's
// length), so that the line of an offset is a binary search rather than a count from the
// start: a rewrite of every line of a 30,000-line file took 0.3 s counting.
type lineIndex struct {
	lines  []string
	starts []int
}

func newLineIndex(src []byte) lineIndex {
	lines := splitLines(src)
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	return lineIndex{lines, starts}
}

// line returns the number of '\n' before offset off: the 0-based line of off.
func (x lineIndex) line(off int) int {
	// The lines ending at or before off; a last line without '\n' ends no line.
	n := sort.Search(len(x.lines), func(i int) bool { return x.starts[i+1] > off })
	if n == len(x.lines) && n > 0 && !strings.HasSuffix(x.lines[n-1], "\n") {
		n--
	}
	return n
}

// unifiedDiff builds the diff of applying edits (sorted, disjoint) to old, from the edit
// list alone: each edit is widened to whole lines and edits sharing a line are merged. The
// text, headers included, is written by the module's one diff writer (internal/udiff); no
// edits give "".
func unifiedDiff(name string, old, new []byte, edits []Edit) string {
	idx := newLineIndex(old)
	lineOf := idx.line
	type span struct{ a, b int } // line range
	var spans []span
	var groups [][]Edit
	for _, e := range edits {
		a := lineOf(e.Start)
		end := e.End
		b := lineOf(end)
		if end > e.Start && old[end-1] == '\n' {
			b = lineOf(end - 1)
		}
		b++ // exclusive
		if n := len(spans); n > 0 && a < spans[n-1].b {
			spans[n-1].b = max(spans[n-1].b, b)
			groups[n-1] = append(groups[n-1], e)
			continue
		}
		spans = append(spans, span{a: a, b: b})
		groups = append(groups, []Edit{e})
	}
	oldLines, starts := idx.lines, idx.starts
	changes := make([]udiff.Change, 0, len(spans))
	for i, sp := range spans {
		if sp.b > len(oldLines) {
			sp.b = len(oldLines)
		}
		lo, hi := starts[sp.a], starts[sp.b]
		var nb []byte
		pos := lo
		for _, e := range groups[i] {
			nb = append(nb, old[pos:e.Start]...)
			nb = append(nb, e.Replacement...)
			pos = e.End
		}
		if pos < hi {
			nb = append(nb, old[pos:hi]...)
		}
		changes = append(changes, udiff.Change{A: sp.a, B: sp.b, New: splitLines(nb)})
	}
	return udiff.Write(name, oldLines, changes)
}
