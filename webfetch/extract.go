package webfetch

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/harnesskit/harnesskit/webfetch/internal/extract"
	"golang.org/x/net/html"
)

// extracted is what one HTML document yields: the three renderings and the metadata.
type extracted struct {
	node          *html.Node // article node, or the sanitised body
	html          string
	markdown      string
	text          string
	title         string
	lang          string
	byline        string
	siteName      string
	published     string
	canonical     string
	headings      []string
	extractedMain bool
	complex       bool // main content skipped for size, or Markdown replaced by the text
	stopped       bool // the deadline cut the extraction: do not cache
	dec           decoded
}

// extractHTML decodes and parses an HTML body once, then produces the renderings from the
// main content (or from the sanitised <body> when wholePage is set or nothing was found).
func extractHTML(body []byte, contentType string, base *url.URL, wholePage bool, maxHeadings int) (*extracted, error) {
	return extractDecoded(context.Background(), decodeBody(body, contentType, true, false), base, wholePage, maxHeadings)
}

// extractRate is a conservative rate of main-content extraction, in elements per second: a
// document with more elements than the time left allows at this rate is rendered whole
// instead (the extractor cannot be interrupted).
const extractRate = 10_000

// elementBudget is how many elements main-content extraction may take on before ctx's
// deadline: 0 means no limit, negative means no time is left.
func elementBudget(ctx context.Context) int {
	if ctx.Err() != nil {
		return -1
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	return max(int(time.Until(dl).Seconds()*extractRate), -1)
}

// extractDecoded parses once and renders. It keeps within ctx's deadline as far as the
// libraries allow: main-content extraction is skipped when the document has more elements
// than the time left allows, and the Markdown conversion stops at the deadline; either way,
// and when the Markdown would be more than four times the document, the Markdown rendering
// is the structured text and the result is marked complex (and, when the deadline cut it,
// not to be cached).
func extractDecoded(ctx context.Context, dec decoded, base *url.URL, wholePage bool, maxHeadings int) (*extracted, error) {
	doc, err := extract.Parse(strings.NewReader(dec.text))
	if err != nil {
		return nil, err
	}
	ex := &extracted{dec: dec, canonical: extract.Canonical(doc, base)}
	var art extract.Article
	ok := false
	if !wholePage {
		budget := elementBudget(ctx)
		if budget < 0 || budget > 0 && extract.CountElements(doc, budget+1) > budget {
			ex.complex, ex.stopped = true, budget < 0
			art.Title = extract.DocumentTitle(doc)
		} else {
			art, ok = extract.MainContent(doc, base, budget)
		}
	}
	if ok {
		ex.node = art.Node
		ex.extractedMain = true
		ex.title = art.Title
		ex.lang, ex.byline, ex.siteName, ex.published = art.Lang, art.Byline, art.SiteName, art.PublishedTime
	} else {
		ex.node = extract.Body(doc)
		ex.title = strings.Join(strings.Fields(extract.DocumentTitle(doc)), " ")
		if art.Title != "" {
			ex.title = art.Title
		}
		ex.byline, ex.siteName, ex.published = art.Byline, art.SiteName, art.PublishedTime
	}
	if ex.lang == "" {
		ex.lang = extract.Lang(doc)
	}
	var buf bytes.Buffer
	if err := html.Render(&buf, ex.node); err != nil {
		return nil, err
	}
	ex.html = buf.String()
	ex.text = extract.Text(ex.node)
	ex.headings = extract.Headings(ex.node, maxHeadings)
	ex.markdown, err = extract.Markdown(ctx, ex.node, extract.MarkdownOptions{Base: base, Limit: 4*len(dec.text) + 64<<10, Title: ex.title})
	switch {
	case errors.Is(err, extract.ErrStopped):
		ex.markdown, ex.complex, ex.stopped = ex.text, true, true
	case errors.Is(err, extract.ErrTooLarge):
		ex.markdown, ex.complex = ex.text, true
	case err != nil:
		return nil, err
	}
	return ex, nil
}

// Extraction is the main content of a local HTML document, as [Extract] returns it.
type Extraction struct {
	Title          string   `json:"title"`
	Byline         string   `json:"byline"`
	Lang           string   `json:"lang"`
	SiteName       string   `json:"site_name,omitempty"`
	PublishedTime  string   `json:"published_time,omitempty"`
	CanonicalURL   string   `json:"canonical_url,omitempty"`
	Headings       []string `json:"headings"`
	ExtractedMain  bool     `json:"extracted_main"`
	Markdown       string   `json:"markdown"`
	Text           string   `json:"text"`
	HTML           string   `json:"html"`
	WordCount      int      `json:"word_count"`
	DecodedCharset string   `json:"decoded_charset"`
	DecodeFallback bool     `json:"decode_fallback,omitempty"`
	DecodeWarning  string   `json:"decode_warning,omitempty"`
}

// Extract runs the Fetcher's extraction on an HTML document that is already at hand: decode
// (contentType may carry a charset; "" means sniff), parse, main content (or the sanitised
// body when wholePage is set or nothing was found), Markdown with links made absolute against
// base, structured text, and metadata. It does no I/O. The only error is an invalid base URL
// (ErrInvalidURL).
func Extract(body []byte, contentType, base string, wholePage bool) (*Extraction, error) {
	u, err := url.Parse(base)
	if err != nil || !u.IsAbs() {
		return nil, newErr(ErrInvalidURL, base, "Invalid base URL %q: use an absolute URL such as https://example.com/page", base)
	}
	if contentType == "" {
		contentType = "text/html"
	}
	ex, err := extractHTML(body, contentType, u, wholePage, DefaultMaxHeadings)
	if err != nil {
		return nil, newErr(ErrInvalidRequest, base, "Parsing the document failed: %v", err)
	}
	out := &Extraction{
		Title: ex.title, Byline: ex.byline, Lang: ex.lang, SiteName: ex.siteName, PublishedTime: ex.published,
		CanonicalURL: ex.canonical, Headings: ex.headings, ExtractedMain: ex.extractedMain,
		Markdown: ex.markdown, Text: ex.text, HTML: ex.html, WordCount: countWords(ex.text),
		DecodedCharset: ex.dec.charset, DecodeFallback: ex.dec.fallback, DecodeWarning: ex.dec.warning,
	}
	if out.Headings == nil {
		out.Headings = []string{}
	}
	return out, nil
}
