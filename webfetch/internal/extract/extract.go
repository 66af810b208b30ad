// Package extract is the seam between webfetch and the libraries that find a page's main
// content and turn HTML into Markdown. Everything webfetch knows about those libraries is in
// this package, so either can be replaced without touching the public API.
//
// Inputs are parsed *html.Node trees of already decoded (UTF-8) documents. Nothing here does
// I/O, logs, or keeps state between calls.
package extract

import (
	"log/slog"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Article is the main content of a page and the metadata found with it.
type Article struct {
	Node          *html.Node
	Title         string
	Lang          string
	Byline        string
	SiteName      string
	PublishedTime string
}

// discard is the logger handed to the extraction library: it must never print.
var discard = slog.New(slog.DiscardHandler)

// MainContent runs main-content extraction on a copy of doc with base as the page URL. It
// reports false when the extractor found nothing, the article text is blank, or the document
// has more than maxElems elements (maxElems > 0), which bounds the extractor's time.
// Metadata (title, language, byline, site name, published time) is returned even when the
// article is blank.
func MainContent(doc *html.Node, base *url.URL, maxElems int) (Article, bool) {
	capMetadata(doc)
	p := readability.NewParser()
	p.Logger = discard
	p.MaxElemsToParse = maxElems
	p.ClassesToPreserve = append(p.ClassesToPreserve, codeLanguageClasses(doc)...)
	a, err := p.ParseDocument(doc, base)
	if err != nil {
		return Article{Title: collapse(DocumentTitle(doc))}, false
	}
	art := Article{
		Node:          a.Node,
		Title:         collapse(a.Title()),
		Lang:          strings.TrimSpace(a.Language()),
		Byline:        collapse(a.Byline()),
		SiteName:      collapse(a.SiteName()),
		PublishedTime: strings.TrimSpace(publishedRaw(a)),
	}
	if art.Title == "" {
		art.Title = collapse(DocumentTitle(doc))
	}
	if a.Node == nil || strings.TrimSpace(Text(a.Node)) == "" {
		art.Node = nil
		return art, false
	}
	return art, true
}

// maxMetaBytes bounds the <title> text and <meta> contents the extractor sees: it compares
// the title with every heading, so a 4 MiB title made extraction take seconds.
const maxMetaBytes = 2048

// capMetadata cuts doc's <title> text and <meta> content attributes to maxMetaBytes (on a
// character boundary). Titles that long are never shown whole anyway.
func capMetadata(doc *html.Node) {
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch tagAtom(n) {
		case atom.Title:
			left := maxMetaBytes
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					c.Data = cutBytes(c.Data, left)
					left -= len(c.Data)
				}
			}
			return false
		case atom.Meta:
			for i := range n.Attr {
				if n.Attr[i].Key == "content" {
					n.Attr[i].Val = cutBytes(n.Attr[i].Val, maxMetaBytes)
				}
			}
		case atom.Body:
			return false
		}
		return true
	})
}

// cutBytes returns s cut to at most n bytes on a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// codeLanguageClasses lists the language-x / lang-x classes of <pre> and <code> elements, so
// the extractor keeps them and the Markdown fences can name the language.
func codeLanguageClasses(doc *html.Node) []string {
	var out []string
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Pre || n.DataAtom == atom.Code) {
			for _, c := range strings.Fields(attr(n, "class")) {
				if strings.HasPrefix(c, "language-") || strings.HasPrefix(c, "lang-") {
					out = append(out, c)
				}
			}
		}
		return true
	})
	return out
}

func publishedRaw(a readability.Article) string {
	t, err := a.PublishedTime()
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05Z07:00")
}

// CountElements counts the element nodes under n, stopping at limit.
func CountElements(n *html.Node, limit int) int {
	count := 0
	walk(n, func(c *html.Node) bool {
		if count >= limit {
			return false
		}
		if c.Type == html.ElementNode {
			count++
		}
		return true
	})
	return count
}

// DocumentTitle returns the text of the document's first <title> element.
func DocumentTitle(doc *html.Node) string {
	var title string
	walk(doc, func(n *html.Node) bool {
		if title != "" {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			title = nodeText(n)
			return false
		}
		return n.Type != html.ElementNode || n.DataAtom != atom.Body
	})
	return title
}

// Lang returns the lang attribute of the <html> element, if any.
func Lang(doc *html.Node) string {
	var lang string
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Html {
			lang = strings.TrimSpace(attr(n, "lang"))
			return false
		}
		return true
	})
	return lang
}

// Canonical returns the href of the first <link rel=canonical>, resolved against base; only
// http and https results are returned.
func Canonical(doc *html.Node, base *url.URL) string {
	var out string
	walk(doc, func(n *html.Node) bool {
		if out != "" {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Link {
			for _, rel := range strings.Fields(strings.ToLower(attr(n, "rel"))) {
				if rel != "canonical" {
					continue
				}
				href := strings.TrimSpace(attr(n, "href"))
				if href == "" {
					continue
				}
				u, err := base.Parse(href)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
					continue
				}
				u.Fragment = ""
				out = u.String()
			}
		}
		return true
	})
	return out
}

// Body returns a sanitised copy of the document's <body>: script, style, noscript, template
// and comment nodes are removed. It never returns nil; an empty <body> is returned for a
// document without one.
func Body(doc *html.Node) *html.Node {
	var body *html.Node
	walk(doc, func(n *html.Node) bool {
		if body != nil {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			body = n
			return false
		}
		return true
	})
	if body == nil {
		return &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	}
	c := clone(body)
	sanitise(c)
	return c
}

func sanitise(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.CommentNode, skipped(c):
			n.RemoveChild(c)
		case c.Type == html.ElementNode:
			sanitise(c)
		}
		c = next
	}
}

// clone deep-copies n without parent or siblings. It is iterative so deep documents cannot
// exhaust the stack.
func clone(n *html.Node) *html.Node {
	type pair struct{ src, dst *html.Node }
	root := shallow(n)
	stack := []pair{{n, root}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for c := p.src.FirstChild; c != nil; c = c.NextSibling {
			d := shallow(c)
			p.dst.AppendChild(d)
			if c.FirstChild != nil {
				stack = append(stack, pair{c, d})
			}
		}
	}
	return root
}

func shallow(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace}
	if len(n.Attr) > 0 {
		c.Attr = append([]html.Attribute(nil), n.Attr...)
	}
	return c
}

// skipped reports elements whose content is never text for a reader.
func skipped(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch tagAtom(n) {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head:
		return true
	}
	return false
}

// tagAtom is the atom of an element's current name. The extraction library renames elements
// (div to p, font to span) without updating DataAtom, so DataAtom alone cannot be trusted.
func tagAtom(n *html.Node) atom.Atom {
	if n.DataAtom != 0 && n.DataAtom.String() == n.Data {
		return n.DataAtom
	}
	return atom.Lookup([]byte(n.Data))
}

// walk visits n and its descendants in document order without recursion; visit returns false
// to skip a node's children.
func walk(n *html.Node, visit func(*html.Node) bool) {
	stack := []*html.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !visit(c) {
			continue
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// nodeText concatenates the text nodes under n (script and style skipped).
func nodeText(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if skipped(c) && c != n {
			return false
		}
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.String()
}

// collapse trims s and turns every whitespace run into one space.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// GoldText is the measuring walker: every text node followed by one space, skipping script,
// style, noscript, template and head. Quality tests use it on both the gold article and ours.
func GoldText(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if skipped(c) {
			return false
		}
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteByte(' ')
		}
		return true
	})
	return b.String()
}
