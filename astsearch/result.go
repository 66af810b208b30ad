package astsearch

import (
	"bytes"
	"unicode/utf8"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// Match is one match, field for field what `ast-grep run --json` prints for it.
type Match struct {
	Text               string         `json:"text"`
	Range              Range          `json:"range"`
	File               string         `json:"file"`
	Lines              string         `json:"lines"`
	CharCount          CharCount      `json:"charCount"`
	Replacement        *string        `json:"replacement,omitempty"`
	ReplacementOffsets *ByteOffset    `json:"replacementOffsets,omitempty"`
	Language           string         `json:"language"`
	MetaVariables      *MetaVariables `json:"metaVariables,omitempty"`
}

// Range locates a match or a capture. Lines and columns are 0-based; columns count Unicode
// code points.
type Range struct {
	ByteOffset ByteOffset `json:"byteOffset"`
	Start      Position   `json:"start"`
	End        Position   `json:"end"`
}

// ByteOffset is a UTF-8 byte range, end exclusive.
type ByteOffset struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Position is a 0-based line and a 0-based column in code points.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// CharCount counts the characters of Lines before and after the match.
type CharCount struct {
	Leading  int `json:"leading"`
	Trailing int `json:"trailing"`
}

// MetaVariables holds a match's captures; it is nil when the pattern has no named
// metavariables.
type MetaVariables struct {
	Single      map[string]Capture   `json:"single"`
	Multi       map[string][]Capture `json:"multi"`
	Transformed map[string]string    `json:"transformed"`
}

// Capture is one captured node.
type Capture struct {
	Text  string `json:"text"`
	Range Range  `json:"range"`
}

// rangeOf builds a Range for node i; columns are converted to code points.
func rangeOf(t *match.Tree, start, end uint32, srow, scol, erow, ecol uint32) Range {
	return Range{
		ByteOffset: ByteOffset{Start: int(start), End: int(end)},
		Start:      Position{Line: int(srow), Column: charCol(t.Src, start, scol)},
		End:        Position{Line: int(erow), Column: charCol(t.Src, end, ecol)},
	}
}

// charCol converts a byte column at byte offset off into a code-point column.
func charCol(src []byte, off, byteCol uint32) int {
	if byteCol > off {
		byteCol = off
	}
	return utf8.RuneCount(src[off-byteCol : off])
}

func nodeRange(t *match.Tree, i int32) Range {
	n := &t.Nodes[i]
	return rangeOf(t, n.Start, n.End, n.StartRow, n.StartCol, n.EndRow, n.EndCol)
}

// lineStart returns the offset of the start of the line holding off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd returns the offset of the '\n' ending the line holding off (or len(src)).
func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(src)
}

// nodeText is node i's text as a slice of text, the tree's source as a string: captures
// share the file's one copy instead of each copying its bytes.
func nodeText(t *match.Tree, text string, i int32) string {
	n := &t.Nodes[i]
	return text[n.Start:n.End]
}

// buildMatch turns a found match into a Match with context lines around it.
// text is the tree's source as a string ("" to make it): the match's strings, captures
// included, are slices of it, so many matches on one long line share one copy.
func buildMatch(t *match.Tree, lang Lang, p *match.Pattern, f match.Found, context int, text string) Match {
	n := &t.Nodes[f.Node]
	src := t.Src
	if text == "" {
		text = string(src)
	}
	m := Match{
		Text:     text[n.Start:n.End],
		Range:    nodeRange(t, f.Node),
		Language: lang.DisplayName(),
	}
	ls, le := lineStart(src, int(n.Start)), lineEnd(src, int(n.End))
	for range max(context, 0) {
		if ls == 0 {
			break
		}
		ls = lineStart(src, ls-1)
	}
	for range max(context, 0) {
		if le >= len(src) {
			break
		}
		le = lineEnd(src, le+1)
	}
	m.Lines = text[ls:le]
	m.CharCount = CharCount{
		Leading:  utf8.RuneCount(src[ls:n.Start]),
		Trailing: utf8.RuneCount(src[n.End:le]),
	}
	if len(p.Vars) > 0 {
		mv := &MetaVariables{Single: map[string]Capture{}, Multi: map[string][]Capture{}, Transformed: map[string]string{}}
		for name, i := range f.Single {
			mv.Single[name] = Capture{Text: nodeText(t, text, i), Range: nodeRange(t, i)}
		}
		for name, is := range f.Multi {
			cs := make([]Capture, 0, len(is))
			for _, i := range is {
				cs = append(cs, Capture{Text: nodeText(t, text, i), Range: nodeRange(t, i)})
			}
			mv.Multi[name] = cs
		}
		m.MetaVariables = mv
	}
	return m
}
