package extract

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// newConverter builds the Markdown converter: base, CommonMark (ATX headings, "-" bullets,
// fenced code), GFM tables and strikethrough. A converter is cheap and not shared, so
// concurrent calls never contend.
func newConverter(ctx context.Context) *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		// No "<!--THE END-->" between adjacent lists: it reads as words to a model.
		commonmark.NewCommonmarkPlugin(commonmark.WithHorizontalRule("---"), commonmark.WithListEndComment(false)),
		// Minimal padding: aligned columns repeat a wide cell's width in every row.
		table.NewTablePlugin(table.WithSkipEmptyRows(true), table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal)),
		strikethrough.NewStrikethroughPlugin(),
	))
	conv.Register.Renderer(stopAt(ctx), priorityFirst)
	conv.Register.RendererFor("img", converter.TagTypeInline, renderDataImage, converter.PriorityEarly)
	for _, tag := range []string{"script", "style", "noscript", "template", "meta", "link", "head"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityEarly)
	}
	// A table that cannot be a Markdown table (a cell holds a list, paragraphs or line
	// breaks) is written row by row; its cells are blocks, so their texts stay apart.
	for _, tag := range []string{"td", "th"} {
		conv.Register.TagType(tag, converter.TagTypeBlock, converter.PriorityEarly)
	}
	return conv
}

// renderDataImage writes images whose source is a data: URL as "[image: alt]" (nothing when
// the alt text is empty); other images go to the CommonMark renderer.
func renderDataImage(_ converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	src := strings.TrimSpace(attr(n, "src"))
	if !strings.HasPrefix(strings.ToLower(src), "data:") {
		return converter.RenderTryNext
	}
	alt := collapse(attr(n, "alt"))
	if alt != "" {
		w.WriteString("[image: " + strings.NewReplacer("[", "(", "]", ")").Replace(alt) + "]")
	}
	return converter.RenderSuccess
}

// MarkdownOptions are Markdown's parameters; zero values mean none.
type MarkdownOptions struct {
	Base  *url.URL // links and images are made absolute against it
	Limit int      // the largest result, in bytes
	Title string   // the page's title
}

// Errors of Markdown.
var (
	// ErrStopped: the context ended during the conversion.
	ErrStopped = errors.New("extract: conversion stopped at the deadline")
	// ErrTooLarge: the Markdown would be larger than the limit.
	ErrTooLarge = errors.New("extract: Markdown larger than the limit")
)

// priorityFirst runs the deadline check before every other renderer.
const priorityFirst = converter.PriorityEarly - 50

// stopAt is a renderer that, once ctx has ended, renders every remaining element as nothing,
// so the conversion finishes at once. It looks at ctx every 64 elements.
func stopAt(ctx context.Context) converter.HandleRenderFunc {
	seen, stopped := 0, false
	return func(converter.Context, converter.Writer, *html.Node) converter.RenderStatus {
		if !stopped {
			if seen++; seen%64 == 0 && ctx.Err() != nil {
				stopped = true
			}
		}
		if stopped {
			return converter.RenderSuccess
		}
		return converter.RenderTryNext
	}
}

// Markdown converts n to Markdown with links and images made absolute against base.
// Permalink anchors are dropped first, and structures whose Markdown grows faster than
// their HTML are simplified (quotes and lists nested more than 8 deep become plain blocks,
// table spans are clamped); afterwards, outside code fences, blank-line runs are collapsed
// and the result is trimmed.
//
// Images keep their alt text unless it repeats what the reader has: in a captioned figure,
// equal to the page title, or found in the text around the image.
//
// When ctx ends during the conversion, Markdown returns ErrStopped (and what it converted);
// when the result is longer than o.Limit bytes (o.Limit > 0), it returns ErrTooLarge.
func Markdown(ctx context.Context, n *html.Node, o MarkdownOptions) (string, error) {
	if n == nil {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", ErrStopped
	}
	c := clone(n)
	dropPermalinks(c)
	simplify(c)
	quietImages(c, o.Title)
	conv := newConverter(ctx)
	var opts []converter.ConvertOptionFunc
	if o.Base != nil {
		opts = append(opts, converter.WithDomain(o.Base.String()))
	}
	out, err := conv.ConvertNode(c, opts...)
	if err != nil {
		return "", err
	}
	if ctx.Err() != nil {
		return PostClean(string(out)), ErrStopped
	}
	if o.Limit > 0 && len(out) > o.Limit {
		return "", ErrTooLarge
	}
	return PostClean(string(out)), nil
}

// dropPermalinks removes permalink anchors: links whose text is one of ¶ # § 🔗, or whose
// title is "Permanent link"/"Permalink" and whose target is a fragment.
func dropPermalinks(root *html.Node) {
	var doomed []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && tagAtom(n) == atom.A && isPermalink(n) {
			doomed = append(doomed, n)
			return false
		}
		return true
	})
	for _, n := range doomed {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

func isPermalink(n *html.Node) bool {
	switch strings.TrimSpace(nodeText(n)) {
	case "¶", "#", "§", "🔗":
		return true
	}
	title := strings.ToLower(strings.TrimSpace(attr(n, "title")))
	href := strings.TrimSpace(attr(n, "href"))
	return (title == "permanent link" || title == "permalink") && strings.HasPrefix(href, "#")
}

var headingDebris = regexp.MustCompile(`^(#{1,6}) \[['"]`)

// PostClean tidies Markdown outside code fences: heading debris such as "## ['Foo'" is
// repaired, trailing spaces are removed, blank-line runs become one blank line, and the
// result is trimmed. Lines inside fences are kept byte for byte.
func PostClean(md string) string {
	lines := strings.Split(md, "\n")
	var fence string
	out := lines[:0]
	for _, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			out = append(out, line)
			continue
		}
		if f := fenceOpen(trimmed); f != "" {
			fence = f
			out = append(out, line)
			continue
		}
		line = strings.TrimRight(line, " \t")
		if m := headingDebris.FindStringSubmatch(line); m != nil {
			line = m[1] + " " + strings.TrimRight(line[len(m[0]):], `'"]`)
		}
		out = append(out, line)
	}
	// Collapse blank-line runs only outside fences: split again by fence blocks.
	return strings.TrimSpace(collapseOutsideFences(out))
}

func fenceOpen(s string) string {
	for _, ch := range []byte{'`', '~'} {
		n := 0
		for n < len(s) && s[n] == ch {
			n++
		}
		if n >= 3 {
			return s[:n]
		}
	}
	return ""
}

func collapseOutsideFences(lines []string) string {
	var b strings.Builder
	var fence string
	blank := 0
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		inFence := fence != ""
		if inFence {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
		} else if f := fenceOpen(trimmed); f != "" {
			fence = f
		}
		if !inFence && line == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	return b.String()
}
