package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Text renders n as structured plain text: script, style, noscript and template are skipped;
// <br> is a line break; <pre> is kept verbatim between blank lines; block elements are
// separated by blank lines; list items start on their own line with "- "; whitespace runs
// collapse to one space; there is never more than one blank line in a row; the result is
// trimmed. Images contribute nothing.
func Text(n *html.Node) string {
	if n == nil {
		return ""
	}
	w := &textWriter{}
	w.node(n)
	return strings.TrimSpace(w.b.String())
}

type textWriter struct {
	b       strings.Builder
	pending int  // newlines owed before the next text
	space   bool // a collapsed space is owed before the next text
	bol     bool // the builder ends at the beginning of a line
}

func (w *textWriter) brk(n int) {
	if n > w.pending {
		w.pending = n
	}
	w.space = false
}

func (w *textWriter) flush() {
	if w.b.Len() == 0 {
		w.pending = 0
		w.space = false
		w.bol = true
		return
	}
	if w.pending > 0 {
		for range min(w.pending, 2) {
			w.b.WriteByte('\n')
		}
		w.pending = 0
		w.space = false
		w.bol = true
		return
	}
	if w.space && !w.bol {
		w.b.WriteByte(' ')
	}
	w.space = false
}

func (w *textWriter) text(s string) {
	if s == "" {
		return
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	start := true
	for field := range strings.FieldsSeq(s) {
		if !start || unicode.IsSpace(first) {
			w.space = true
		}
		start = false
		w.flush()
		w.b.WriteString(field)
		w.bol = false
	}
	if unicode.IsSpace(last) {
		w.space = true
	}
}

func (w *textWriter) raw(s string) {
	w.flush()
	w.b.WriteString(s)
	w.bol = strings.HasSuffix(s, "\n")
}

func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	// The extractor renames elements without updating DataAtom, so names are compared.
	a := tagAtom(n)
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Img:
		return
	case atom.Br:
		w.brk(1)
		// A <br> directly after a <br> makes a blank line.
		if w.b.Len() > 0 && w.pending == 1 && w.bol {
			w.brk(2)
		}
		w.flushLine()
		return
	case atom.Pre:
		w.brk(2)
		w.raw(strings.Trim(rawText(n), "\n"))
		w.brk(2)
		return
	case atom.Li:
		w.brk(1)
		w.raw("- ")
		w.bol = true
		w.children(n)
		w.brk(1)
		return
	}
	if isBlock(a) {
		w.brk(2)
		w.children(n)
		w.brk(2)
		return
	}
	// The extractor's copy may lose the MathML namespace; these names exist only in MathML.
	if mathToken[n.Data] {
		// MathML token elements are separate symbols: "<mi>A</mi><mi>H</mi>" is "A H".
		w.space = true
		w.children(n)
		w.space = true
		return
	}
	w.children(n)
}

var mathToken = map[string]bool{"mi": true, "mn": true, "mo": true, "ms": true, "mtext": true}

// flushLine writes the owed line break of a <br> at once so consecutive <br>s count.
func (w *textWriter) flushLine() {
	if w.b.Len() == 0 {
		w.pending = 0
		return
	}
	n := w.pending
	w.pending = 0
	w.space = false
	for range n {
		w.b.WriteByte('\n')
	}
	w.bol = true
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.Article, atom.Aside, atom.Blockquote, atom.Div, atom.Dl, atom.Dt, atom.Dd,
		atom.Figure, atom.Figcaption, atom.Footer, atom.Form, atom.H1, atom.H2, atom.H3,
		atom.H4, atom.H5, atom.H6, atom.Header, atom.Hr, atom.Main, atom.Nav,
		atom.Ol, atom.Ul, atom.P, atom.Section, atom.Table, atom.Tbody, atom.Thead, atom.Tr,
		atom.Td, atom.Th, atom.Body, atom.Html:
		return true
	}
	return false
}

// rawText is the text under n exactly as written, with <br> as a newline.
func rawText(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c != n && skipped(c) {
			return false
		}
		switch {
		case c.Type == html.TextNode:
			b.WriteString(c.Data)
		case c.Type == html.ElementNode && tagAtom(c) == atom.Br:
			b.WriteByte('\n')
		}
		return true
	})
	return b.String()
}
