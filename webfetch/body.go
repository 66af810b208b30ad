package webfetch

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harnesskit/harnesskit/webfetch/internal/extract"
)

// stored is what the cache keeps for one fetch: metadata and the renderings.
type stored struct {
	finalURL, canonical        string
	status                     int
	contentType, charset       string
	etag, lastModified         string
	contentLength              int64
	filename                   string
	headings                   []string
	title, lang, byline        string
	siteName, published        string
	source                     SourceKind
	usedLLMS, extractedMain    bool
	redirects                  []Hop
	upgraded                   bool
	llmsProbeError             string
	llmsTruncated              bool
	truncated                  bool
	wordCount                  int
	quality                    []QualitySignal
	decodedCharset, decodeWarn string
	decodeFallback             bool
	html, markdown, text       string // non-HTML sources: markdown == text, html == ""
	binary                     *BinaryInfo
	binBytes                   []byte
	noStore                    bool

	// per call, never cached
	cacheHit, cacheRevalidated bool
	upstreamStatus             int
}

func (st *stored) clone() *stored {
	c := *st
	if st.binary != nil {
		b := *st.binary
		c.binary = &b
	}
	c.cacheHit, c.cacheRevalidated, c.upstreamStatus = false, false, 0
	return &c
}

// readBody classifies the response body and reads it within the limits.
func (f *Fetcher) readBody(ctx context.Context, c *call, resp *http.Response, hops []Hop) (*stored, error) {
	defer resp.Body.Close()
	final := resp.Request.URL
	ct := resp.Header.Get("Content-Type")
	st := &stored{
		finalURL:      final.String(),
		status:        resp.StatusCode,
		contentType:   ct,
		charset:       contentTypeCharset(ct),
		etag:          resp.Header.Get("ETag"),
		lastModified:  resp.Header.Get("Last-Modified"),
		contentLength: resp.ContentLength,
		redirects:     hops,
		noStore:       hasNoStore(resp.Header.Get("Cache-Control")),
	}
	body := io.Reader(resp.Body)
	if fn := progressFor(f.cfg.progress, progressFrom(ctx)); fn != nil {
		body = &progressReader{r: body, url: st.finalURL, total: resp.ContentLength, fn: fn}
	}
	prefix := make([]byte, sniffWindow)
	n, err := io.ReadFull(body, prefix)
	prefix = prefix[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, readErr(ctx, final, err)
	}
	complete := n < sniffWindow
	cls := classify(ct, prefix)
	if enc := strings.TrimSpace(resp.Header.Get("Content-Encoding")); enc != "" && !strings.EqualFold(enc, "identity") {
		// net/http removes the header after decoding the gzip it asked for; any encoding
		// still named is compressed bytes, never text.
		cls = class{media: cls.media, binary: true, kind: BinaryOther}
	}
	if cls.binary {
		return f.readBinary(ctx, c, st, final, resp, body, prefix, complete, cls.kind)
	}
	limit := f.cfg.limits.MaxTextBytes
	raw := prefix
	if !complete {
		var buf bytes.Buffer
		buf.Write(prefix)
		if _, err := io.Copy(&buf, io.LimitReader(body, limit+1-int64(len(prefix)))); err != nil {
			return nil, readErr(ctx, final, err)
		}
		raw = buf.Bytes()
	}
	if int64(len(raw)) > limit {
		raw = raw[:limit]
		st.truncated = true
	}
	if err := ctx.Err(); err != nil {
		return nil, readErr(ctx, final, err)
	}
	if cls.html {
		dec := decodeBody(raw, ct, true, st.truncated)
		dec.text = scrubControls(dec.text)
		ex, err := extractDecoded(ctx, dec, final, c.req.WholePage, f.cfg.limits.MaxHeadings)
		if err != nil {
			return nil, newErr(ErrTransport, final.String(), "Parsing %s failed: %v", final, err)
		}
		st.source = SourceHTML
		st.html, st.markdown, st.text = ex.html, ex.markdown, ex.text
		st.title, st.lang, st.byline, st.siteName, st.published = ex.title, ex.lang, ex.byline, ex.siteName, ex.published
		st.canonical, st.headings, st.extractedMain = ex.canonical, ex.headings, ex.extractedMain
		st.setDecode(dec)
		st.finishText(len(raw))
		if ex.complex {
			st.quality = append(st.quality, SignalComplexMarkup)
		}
		// A result the deadline cut would come out better with more time: not cached.
		st.noStore = st.noStore || ex.stopped
		return st, nil
	}
	dec := decodeBody(raw, ct, false, st.truncated)
	dec.text = scrubControls(dec.text)
	txt := collapseBlank(dec.text)
	st.source = SourceText
	st.markdown, st.text = txt, txt
	if isMarkdown(cls.media, final) {
		st.headings = extract.MarkdownHeadings(txt, f.cfg.limits.MaxHeadings)
	}
	st.setDecode(dec)
	st.finishText(len(raw))
	return st, nil
}

func (st *stored) setDecode(d decoded) {
	st.decodedCharset, st.decodeFallback, st.decodeWarn = d.charset, d.fallback, d.warning
}

// finishText computes the word count and the quality signals.
func (st *stored) finishText(rawLen int) {
	st.wordCount = countWords(st.text)
	st.quality = []QualitySignal{}
	if st.wordCount > 0 && st.wordCount < 60 {
		st.quality = append(st.quality, SignalVeryShort)
	}
	lower := strings.ToLower(st.text + "\n" + st.markdown)
	for _, p := range paywallPhrases {
		if strings.Contains(lower, p) {
			st.quality = append(st.quality, SignalPaywall)
			break
		}
	}
	if st.source == SourceHTML && !st.extractedMain && st.wordCount < 1200 {
		if t := len(st.text); t == 0 || rawLen/max(t, 1) >= 10 {
			st.quality = append(st.quality, SignalBoilerplate)
		}
	}
}

var paywallPhrases = []string{"subscribe to continue", "subscription required", "sign in to continue",
	"log in to continue", "create an account to continue", "members only", "premium content", "paywall"}

// countWords counts whitespace-separated tokens, except that each Han, Hiragana, Katakana or
// Hangul character is one word.
func countWords(s string) int {
	n := 0
	inWord := false
	for _, r := range s {
		switch {
		case r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			n++
			inWord = false
		case unicode.IsSpace(r):
			inWord = false
		default:
			if !inWord {
				n++
				inWord = true
			}
		}
	}
	return n
}

var blankRuns = regexp.MustCompile(`\n[ \t]*(?:\n[ \t]*)+\n`)

// collapseBlank normalises line endings, turns runs of blank lines into one, and trims.
func collapseBlank(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = blankRuns.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

func hasNoStore(cc string) bool {
	for d := range strings.SplitSeq(strings.ToLower(cc), ",") {
		if strings.TrimSpace(d) == "no-store" {
			return true
		}
	}
	return false
}

func isMarkdown(media string, u *url.URL) bool {
	return media == "text/markdown" || media == "text/x-markdown" || strings.HasSuffix(u.Path, ".md")
}

func readErr(ctx context.Context, u *url.URL, err error) error {
	if ctx.Err() != nil {
		return &Error{Err: ErrTransport, URL: u.String(), Msg: "Reading " + wire(u) + " was interrupted: " + ctx.Err().Error(), Cause: ctx.Err()}
	}
	return &Error{Err: ErrTransport, URL: u.String(), Msg: "Reading " + wire(u) + " failed: " + err.Error(), Cause: err}
}

type progressReader struct {
	r     io.Reader
	url   string
	read  int64
	total int64
	fn    ProgressFunc
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.read += int64(n)
		p.fn(p.url, p.read, p.total)
	}
	return n, err
}

// classification of a body.
type class struct {
	media  string
	html   bool
	binary bool
	kind   BinaryKind
}

var textTypes = []string{"application/json", "application/xml", "application/javascript",
	"application/x-yaml", "application/yaml", "application/toml", "application/x-ndjson", "image/svg+xml"}

// classify decides between HTML, other text and binary from the header and the first bytes.
func classify(ct string, prefix []byte) class {
	media := ""
	if ct != "" {
		if m, _, err := mime.ParseMediaType(ct); err == nil {
			media = strings.ToLower(m)
		} else {
			media = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
		}
	}
	cl := class{media: media}
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		cl.html = true
		return cl
	case media == "text/plain":
		cl.html = looksHTML(prefix)
		return cl
	case strings.HasPrefix(media, "text/") || slices.Contains(textTypes, media) ||
		strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml"):
		return cl
	}
	// Everything else is sniffed; only text-looking bodies are decoded.
	if looksHTML(prefix) {
		cl.html = true
		return cl
	}
	if looksText(prefix, ct) {
		return cl
	}
	cl.binary = true
	cl.kind = binaryKind(media, prefix)
	return cl
}

func binaryKind(media string, prefix []byte) BinaryKind {
	if media == "" || media == "application/octet-stream" {
		media = http.DetectContentType(prefix)
	}
	switch {
	case strings.HasPrefix(media, "image/"):
		return BinaryImage
	case strings.HasPrefix(media, "audio/"):
		return BinaryAudio
	case strings.HasPrefix(media, "video/"):
		return BinaryVideo
	case strings.HasPrefix(media, "application/pdf"):
		return BinaryPDF
	}
	return BinaryOther
}

var htmlStarts = []string{"<!doctype html", "<html", "<head", "<body"}

// looksHTML: after whitespace and a BOM, the body starts with an HTML document tag.
func looksHTML(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF})
	b = bytes.TrimLeft(b, " \t\r\n\f")
	head := strings.ToLower(string(b[:min(len(b), 16)]))
	for _, s := range htmlStarts {
		if strings.HasPrefix(head, s) {
			return true
		}
	}
	return false
}

// looksText: no NUL, no binary signature, and the bytes decode into at least 85 % printable
// characters with under 2 % control characters (other than tab, newline, carriage return and
// form feed). Empty bodies are text.
func looksText(b []byte, ct string) bool {
	if len(b) == 0 {
		return true
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	sig := http.DetectContentType(b)
	if !strings.HasPrefix(sig, "text/") {
		return false
	}
	// A cut at the sniff window may split a character.
	s := decodeBody(b, ct, false, true).text
	total, printable, control := 0, 0, 0
	for _, r := range s {
		total++
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\f':
			printable++
		case r == utf8.RuneError:
		case unicode.IsControl(r):
			control++
		case unicode.IsPrint(r) || unicode.IsSpace(r):
			printable++
		}
	}
	if total == 0 {
		return true
	}
	return float64(printable) >= 0.85*float64(total) && float64(control) < 0.02*float64(total)
}

// scrubControls replaces every control character other than tab, newline, carriage return
// and form feed with U+FFFD, so binary bytes after the sniff window and terminal escape
// sequences never reach the model or a terminal.
func scrubControls(s string) string {
	keep := func(r rune) bool {
		return !unicode.IsControl(r) || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	}
	if strings.IndexFunc(s, func(r rune) bool { return !keep(r) }) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if keep(r) {
			return r
		}
		return utf8.RuneError
	}, s)
}
