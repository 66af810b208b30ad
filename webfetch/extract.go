package webfetch

import (
	"bytes"
	"net/url"
	"strings"

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
	dec           decoded
}

// extractHTML decodes and parses an HTML body once, then produces the renderings from the
// main content (or from the sanitised <body> when wholePage is set or nothing was found).
func extractHTML(body []byte, contentType string, base *url.URL, wholePage bool, maxHeadings int) (*extracted, error) {
	return extractDecoded(decodeBody(body, contentType, true, false), base, wholePage, maxHeadings)
}

func extractDecoded(dec decoded, base *url.URL, wholePage bool, maxHeadings int) (*extracted, error) {
	doc, err := extract.Parse(strings.NewReader(dec.text))
	if err != nil {
		return nil, err
	}
	ex := &extracted{dec: dec, canonical: extract.Canonical(doc, base)}
	var art extract.Article
	ok := false
	if !wholePage {
		art, ok = extract.MainContent(doc, base)
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
	ex.markdown, err = extract.Markdown(ex.node, base)
	if err != nil {
		return nil, err
	}
	ex.text = extract.Text(ex.node)
	ex.headings = extract.Headings(ex.node, maxHeadings)
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
