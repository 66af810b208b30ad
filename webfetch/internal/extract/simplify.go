package extract

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Limits on the structures whose Markdown grows faster than their HTML.
const (
	// maxPrefixDepth is how many blockquotes and lists may nest in each other: every level
	// prefixes (or indents) every line inside it, so deeper levels become plain blocks.
	maxPrefixDepth = 8
	// maxSpan bounds colspan and rowspan: a spanning cell is repeated in every cell it covers.
	maxSpan = 16
	// maxSpanCells bounds the cells that spans may add in one document; beyond it, spans
	// are dropped.
	maxSpanCells = 4096
)

// simplify rewrites root (a private copy) so that its Markdown is at most proportional to
// its size: blockquotes and lists nested deeper than maxPrefixDepth become divs (their list
// items too), and colspan/rowspan are clamped to maxSpan and dropped once they would add
// more than maxSpanCells cells. Nothing a reader sees is removed.
func simplify(root *html.Node) {
	type item struct {
		n     *html.Node
		depth int
	}
	spanCells := 0
	stack := []item{{root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, depth := it.n, it.depth
		if n.Type == html.ElementNode {
			switch tagAtom(n) {
			case atom.Blockquote, atom.Ul, atom.Ol:
				if depth >= maxPrefixDepth {
					flattenBlock(n)
				} else {
					depth++
				}
			case atom.Td, atom.Th:
				spanCells += clampSpans(n, spanCells)
			}
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, item{c, depth})
		}
	}
}

// flattenBlock turns a blockquote or list into a div, and a list's items into divs.
func flattenBlock(n *html.Node) {
	list := tagAtom(n) != atom.Blockquote
	rename(n, "div", atom.Div)
	if !list {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && tagAtom(c) == atom.Li {
			rename(c, "div", atom.Div)
		}
	}
}

func rename(n *html.Node, name string, a atom.Atom) { n.Data, n.DataAtom = name, a }

// clampSpans limits a cell's colspan and rowspan to maxSpan, or removes them when the
// document's spans already add used cells and this one would pass maxSpanCells. It returns
// the cells the spans add.
func clampSpans(n *html.Node, used int) int {
	col, row := 1, 1
	for i := range n.Attr {
		a := &n.Attr[i]
		if a.Namespace != "" || (a.Key != "colspan" && a.Key != "rowspan") {
			continue
		}
		v, err := strconv.Atoi(a.Val)
		if err != nil || v < 1 {
			v = 1
		}
		v = min(v, maxSpan)
		a.Val = strconv.Itoa(v)
		if a.Key == "colspan" {
			col = v
		} else {
			row = v
		}
	}
	added := col*row - 1
	if added == 0 {
		return 0
	}
	if used+added > maxSpanCells {
		kept := n.Attr[:0]
		for _, a := range n.Attr {
			if a.Namespace != "" || (a.Key != "colspan" && a.Key != "rowspan") {
				kept = append(kept, a)
			}
		}
		n.Attr = kept
		return 0
	}
	return added
}

// maxContextBytes bounds the surrounding text an image's alt text is compared with.
const maxContextBytes = 4096

// quietImages drops the alt text of images whose alt repeats what the reader already has,
// so the Markdown does not say it twice: an image in a <figure> with a caption (the caption
// is the image's text), an image whose alt text equals the page title, and an image whose
// alt text appears in the text of the block around it. Other images keep their alt text.
func quietImages(root *html.Node, title string) {
	title = normText(title)
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || tagAtom(n) != atom.Img {
			return true
		}
		alt := normText(attr(n, "alt"))
		if alt == "" {
			return false
		}
		if alt == title || inTitle(alt, title) || captioned(n) || inContext(n, alt) {
			setAttr(n, "alt", "")
		}
		return false
	})
}

// inTitle reports alt text that is most of the page title ("Name" for "Name_Section_Site").
func inTitle(alt, title string) bool {
	return len(alt)*2 >= len(title) && strings.Contains(title, alt)
}

// captioned reports an image inside a <figure> (within four levels) that has a
// <figcaption> with text.
func captioned(img *html.Node) bool {
	for p, i := img.Parent, 0; p != nil && i < 4; p, i = p.Parent, i+1 {
		if p.Type != html.ElementNode || tagAtom(p) != atom.Figure {
			continue
		}
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && tagAtom(c) == atom.Figcaption && normText(nodeText(c)) != "" {
				return true
			}
		}
	}
	return false
}

// inContext reports alt text found in the text of the nearest block around the image (when
// that text is short enough to compare).
func inContext(img *html.Node, alt string) bool {
	p := img.Parent
	for p != nil && p.Type == html.ElementNode && !isBlock(tagAtom(p)) && tagAtom(p) != atom.Li {
		p = p.Parent
	}
	if p == nil {
		return false
	}
	text := boundedText(p, maxContextBytes)
	return text != "" && strings.Contains(normText(text), alt)
}

// boundedText is the text under n, or "" when it is longer than limit bytes.
func boundedText(n *html.Node, limit int) string {
	var b strings.Builder
	over := false
	walk(n, func(c *html.Node) bool {
		if over || (c != n && skipped(c)) {
			return false
		}
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteByte(' ')
			over = b.Len() > limit
		}
		return true
	})
	if over {
		return ""
	}
	return b.String()
}

// normText is s lower-cased with whitespace runs collapsed.
func normText(s string) string { return strings.ToLower(collapse(s)) }

func setAttr(n *html.Node, key, val string) {
	for i := range n.Attr {
		if n.Attr[i].Namespace == "" && n.Attr[i].Key == key {
			n.Attr[i].Val = val
		}
	}
}
