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
