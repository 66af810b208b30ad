package extract

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxHeadingLen is the longest heading kept, in characters.
const maxHeadingLen = 200

// Headings returns the text of the h1–h3 elements under n, in document order, at most max of
// them. Whitespace is collapsed and trailing permalink glyphs (¶ # §) are removed, except that
// headings that are exactly "C#" or "F#" are kept as they are.
func Headings(n *html.Node, max int) []string {
	if n == nil || max <= 0 {
		return nil
	}
	var out []string
	walk(n, func(c *html.Node) bool {
		if len(out) >= max {
			return false
		}
		if c.Type != html.ElementNode {
			return true
		}
		if skipped(c) {
			return false
		}
		switch tagAtom(c) {
		case atom.H1, atom.H2, atom.H3:
			if h := CleanHeading(nodeText(c)); h != "" {
				out = append(out, h)
			}
			return false
		}
		return true
	})
	return out
}

// CleanHeading collapses whitespace, strips trailing ¶ # § glyphs (keeping "C#" and "F#"),
// and cuts the heading to 200 characters.
func CleanHeading(s string) string {
	s = collapse(s)
	if s == "C#" || s == "F#" {
		return s
	}
	for {
		t := strings.TrimRight(s, "¶#§ \t")
		if strings.HasSuffix(s, "C#") || strings.HasSuffix(s, "F#") {
			// "Learning C#" keeps its language name.
			if p := len(s) - 2; p == 0 || s[p-1] == ' ' {
				t = s
			}
		}
		if t == s {
			break
		}
		s = t
	}
	if utf8.RuneCountInString(s) > maxHeadingLen {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:maxHeadingLen]))
	}
	return s
}

// MarkdownHeadings returns the ATX headings of levels 1–3 in a Markdown text, outside code
// fences, with closing '#' runs removed, at most max of them.
func MarkdownHeadings(md string, max int) []string {
	var out []string
	var fence string
	for line := range strings.SplitSeq(md, "\n") {
		if len(out) >= max {
			break
		}
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(trimmed); f != "" {
			fence = f
			continue
		}
		if len(line)-len(trimmed) > 3 {
			continue
		}
		level := 0
		for level < len(trimmed) && trimmed[level] == '#' {
			level++
		}
		if level < 1 || level > 3 || (level < len(trimmed) && trimmed[level] != ' ' && trimmed[level] != '\t') {
			continue
		}
		text := strings.TrimSpace(trimmed[level:])
		if text != "C#" && text != "F#" {
			// A closing sequence is a run of '#' preceded by a space.
			if t := strings.TrimRight(text, "#"); t != text && (t == "" || strings.HasSuffix(t, " ")) {
				text = strings.TrimSpace(t)
			}
		}
		if h := CleanHeading(text); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// MarkdownTitle returns the text of the first level-1 ATX heading of a Markdown text, outside fences.
func MarkdownTitle(md string) string {
	var fence string
	for line := range strings.SplitSeq(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(trimmed); f != "" {
			fence = f
			continue
		}
		if strings.HasPrefix(trimmed, "# ") {
			return CleanHeading(strings.TrimRight(strings.TrimSpace(trimmed[2:]), "# "))
		}
	}
	return ""
}
