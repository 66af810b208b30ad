package webfetch

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	plainMarker = "[..content truncated..]"
	cutTail     = 2000 // code points searched for a line break at the end of a window
)

// present turns a stored outcome into the call's result: binary line, summarizer answer, or
// a window of the selected rendering.
func (f *Fetcher) present(ctx context.Context, c *call, st *stored) (*Result, error) {
	r := &Result{
		Kind:               KindContent,
		Format:             c.format,
		IncludeMetadata:    !c.req.OmitMetadata,
		RequestedURL:       c.req.URL,
		FinalURL:           st.finalURL,
		CanonicalURL:       st.canonical,
		StatusCode:         st.status,
		UpstreamStatus:     st.upstreamStatus,
		SourceContentType:  st.contentType,
		Charset:            st.charset,
		ETag:               st.etag,
		LastModified:       st.lastModified,
		ContentLength:      st.contentLength,
		Filename:           st.filename,
		Lang:               st.lang,
		Byline:             st.byline,
		SiteName:           st.siteName,
		PublishedTime:      st.published,
		Headings:           st.headings,
		Source:             st.source,
		UsedLLMS:           st.usedLLMS,
		ExtractedMain:      st.extractedMain,
		Redirects:          st.redirects,
		UpgradedToHTTPS:    st.upgraded,
		LLMSProbeError:     st.llmsProbeError,
		LLMSProbeTruncated: st.llmsTruncated,
		CacheHit:           st.cacheHit,
		CacheRevalidated:   st.cacheRevalidated,
		BodyTruncated:      st.truncated,
		WordCount:          st.wordCount,
		Quality:            st.quality,
		DecodedCharset:     st.decodedCharset,
		DecodeFallback:     st.decodeFallback,
		DecodeWarning:      st.decodeWarn,
	}
	if r.Redirects == nil {
		r.Redirects = []Hop{}
	}
	capFields(r)
	maxOut := f.cfg.limits.MaxOutputChars
	if st.binary != nil {
		if st.cacheHit {
			if err := f.reuseSaved(ctx, st); err != nil {
				return nil, err
			}
		}
		b := *st.binary
		r.Kind, r.Binary, r.Title = KindBinary, &b, st.filename
		kind := strings.ToUpper(string(b.Kind))
		var line string
		switch {
		case b.MetadataOnly:
			line = kind + " content omitted because it exceeds the download limit."
		case b.Saved:
			line = kind + " content saved to " + b.SavedPath
		default:
			line = kind + " content detected but not saved. Re-run with save_binary=true to persist it."
		}
		r.Content = messageContent(c.format, line)
		boundMessage(r, maxOut)
		return r, nil
	}
	r.Title = elide(st.title, maxNameChars)
	if r.Title == "" {
		r.Title = elide(st.finalURL, maxURLChars)
	}
	sel := st.markdown
	switch {
	case c.format == FormatText:
		sel = st.text
	case c.format == FormatHTML && st.source == SourceHTML:
		sel = st.html
	case c.format == FormatHTML:
		sel = st.text
	}
	total := utf8.RuneCountInString(sel)
	r.TotalChars, r.Offset = total, c.req.Offset
	if c.req.Offset > total {
		return nil, newErr(ErrInvalidRequest, c.req.URL, "Invalid offset %d: the content has %d characters", c.req.Offset, total)
	}
	if f.summarize(ctx, c, st, r) {
		boundMessage(r, maxOut)
		return r, nil
	}
	// Every rendered character counts against the window: the metadata takes at most half
	// of it, the content the rest (less room for the paging marker).
	limit := -1
	if maxOut >= 0 {
		boundMetadata(r, maxOut/2)
		limit = contentBudget(r, maxOut, total)
	}
	var win string
	var end int
	if c.format == FormatHTML && st.source != SourceHTML {
		win, end = escapedWindow(sel, c.req.Offset, limit)
	} else {
		win, end = window(sel, c.req.Offset, limit)
	}
	switch {
	case end < total:
		r.OutputTruncated, r.NextOffset = true, end
		win += pagingMarker(c.format, c.req.Offset, end, total)
	case st.truncated:
		win += marker(c.format, plainMarker)
	}
	r.Content = win
	return r, nil
}

func marker(format Format, msg string) string {
	if format == FormatHTML {
		return "\n<!-- " + msg + " -->"
	}
	return "\n\n" + msg
}

// messageContent formats a message: as is for text and markdown, escaped in <pre> for html.
func messageContent(format Format, msg string) string {
	if format == FormatHTML {
		return "<pre>" + html.EscapeString(msg) + "</pre>"
	}
	return msg
}

// window returns the part of s from code point offset holding at most limit code points
// (-1 = unlimited), and the code point where it ends. A window that stops early is cut at the
// last line break within its final 2,000 code points, else at its last whitespace, else at
// the limit.
func window(s string, offset, limit int) (string, int) {
	start := byteIndex(s, offset)
	rest := s[start:]
	if limit < 0 || len(rest) <= limit {
		// No more bytes than the limit means no more code points either.
		return rest, offset + utf8.RuneCountInString(rest)
	}
	endIdx := byteIndex(rest, limit)
	if endIdx == len(rest) {
		return rest, offset + utf8.RuneCountInString(rest)
	}
	win := rest[:endIdx]
	tail := 0
	if limit > cutTail {
		tail = byteIndex(win, limit-cutTail)
	}
	cut := len(win)
	if i := strings.LastIndexByte(win[tail:], '\n'); i >= 0 {
		cut = tail + i + 1
	} else if i := strings.LastIndexFunc(win[tail:], unicode.IsSpace); i >= 0 {
		_, size := utf8.DecodeRuneInString(win[tail+i:])
		cut = tail + i + size
	}
	win = win[:cut]
	return win, offset + utf8.RuneCountInString(win)
}

// byteIndex returns the byte index of code point n in s (len(s) when s is shorter).
func byteIndex(s string, n int) int {
	if n <= 0 {
		return 0
	}
	i := 0
	for pos := range s {
		if i == n {
			return pos
		}
		i++
	}
	return len(s)
}

// Render returns the text shown to the model: the frontmatter block (unless the request
// omitted metadata) and the result's content, ending with a newline. It depends only on r.
// For a result from [Fetcher.Fetch], the rendering has at most [Limits.MaxOutputChars] code
// points.
func Render(r *Result) string {
	if r == nil {
		return ""
	}
	out := render(r)
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}

func render(r *Result) string {
	if !r.IncludeMetadata {
		return r.Content
	}
	html := r.Format == FormatHTML
	block := frontmatter(r, html)
	if html {
		content := r.Content
		if strings.HasPrefix(content, "<?xml") {
			if end := strings.Index(content, "?>"); end >= 0 {
				decl := content[:end+2]
				return decl + "\n<!--\n" + block + "-->\n" + strings.TrimPrefix(content[end+2:], "\n")
			}
		}
		return "<!--\n" + block + "-->\n" + content
	}
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString(block)
	b.WriteString("---\n\n")
	first, _, _ := strings.Cut(r.Content, "\n")
	if first == "---" {
		b.WriteString("Source content:\n\n")
	}
	b.WriteString(r.Content)
	return b.String()
}

// fm accumulates frontmatter lines.
type fm struct {
	b    strings.Builder
	html bool
}

func (w *fm) enc(v any) string {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	s := strings.TrimSuffix(buf.String(), "\n")
	if w.html {
		s = strings.ReplaceAll(s, "--", `-\u002d`)
	}
	return escapeLineBreaks(s)
}

// escapeLineBreaks writes the C1 control characters (NEL among them) that JSON leaves as
// they are as \u escapes, so no value can start a line for a reader that splits at them
// (JSON already escapes C0 controls, U+2028 and U+2029).
func escapeLineBreaks(s string) string {
	if !strings.ContainsFunc(s, isC1) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isC1(r) {
			const hex = "0123456789abcdef"
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

func (w *fm) str(key, v string) {
	if v != "" {
		w.b.WriteString(key + ": " + w.enc(v) + "\n")
	}
}

func (w *fm) val(key string, v any) { w.b.WriteString(key + ": " + w.enc(v) + "\n") }

func (w *fm) num(key string, v int64, show bool) {
	if show {
		w.val(key, v)
	}
}

func (w *fm) flag(key string, v bool) {
	if v {
		w.val(key, true)
	}
}

func (w *fm) list(key string, vals []string) {
	if len(vals) == 0 {
		w.b.WriteString(key + ": []\n")
		return
	}
	w.b.WriteString(key + ":\n")
	for _, v := range vals {
		w.b.WriteString("  - " + w.enc(v) + "\n")
	}
}

func hops(h []Hop) []string {
	out := make([]string, len(h))
	for i, x := range h {
		out[i] = x.String()
	}
	return out
}

func frontmatter(r *Result, html bool) string {
	w := &fm{html: html}
	w.str("requested_url", r.RequestedURL)
	switch r.Kind {
	case KindRedirectBlocked:
		if r.Blocked != nil {
			w.str("redirect_url", r.Blocked.RedirectURL)
		}
		w.num("status_code", int64(r.StatusCode), r.StatusCode != 0)
		w.list("redirect_chain", hops(r.Redirects))
		w.val("upgraded_to_https", r.UpgradedToHTTPS)
		return w.b.String()
	case KindLLMSUnavailable:
		w.val("used_llms_txt", false)
		w.str("llms_probe_error", r.LLMSProbeError)
		w.val("prefer_llms_txt", "always")
		return w.b.String()
	}
	w.str("final_url", r.FinalURL)
	w.str("canonical_url", r.CanonicalURL)
	w.num("status_code", int64(r.StatusCode), r.StatusCode != 0)
	w.str("source_content_type", r.SourceContentType)
	w.str("charset", r.Charset)
	w.str("etag", r.ETag)
	w.str("last_modified", r.LastModified)
	w.num("content_length", r.ContentLength, r.ContentLength >= 0)
	w.str("filename", r.Filename)
	if r.Kind == KindBinary && r.Binary != nil {
		b := r.Binary
		w.str("binary_kind", string(b.Kind))
		w.list("redirect_chain", hops(r.Redirects))
		w.val("upgraded_to_https", r.UpgradedToHTTPS)
		if !b.MetadataOnly && !b.Saved {
			w.val("truncated", r.BodyTruncated)
			w.val("save_binary", false)
			w.val("cache_hit", r.CacheHit)
			return w.b.String()
		}
		w.str("llms_probe_error", r.LLMSProbeError)
		w.flag("cache_revalidated", r.CacheRevalidated)
		w.val("cache_hit", r.CacheHit)
		w.num("upstream_status_code", int64(r.UpstreamStatus), r.CacheRevalidated)
		w.val("truncated", r.BodyTruncated)
		w.num("download_limit_bytes", b.DownloadLimit, b.DownloadLimit > 0)
		if b.MetadataOnly {
			w.val("binary_metadata_only", true)
		} else {
			w.str("saved_path", b.SavedPath)
		}
		return w.b.String()
	}
	if r.Source == SourceHTML || r.Headings != nil {
		w.list("headings", r.Headings)
	}
	w.str("title", r.Title)
	w.str("lang", r.Lang)
	w.str("byline", r.Byline)
	w.str("site_name", r.SiteName)
	w.str("published_time", r.PublishedTime)
	w.str("source_kind", string(r.Source))
	w.val("used_llms_txt", r.UsedLLMS)
	w.val("extracted_main", r.ExtractedMain)
	w.list("redirect_chain", hops(r.Redirects))
	w.val("upgraded_to_https", r.UpgradedToHTTPS)
	w.str("llms_probe_error", r.LLMSProbeError)
	w.flag("llms_probe_truncated", r.LLMSProbeTruncated)
	w.flag("cache_revalidated", r.CacheRevalidated)
	w.val("cache_hit", r.CacheHit)
	w.num("upstream_status_code", int64(r.UpstreamStatus), r.CacheRevalidated)
	w.val("truncated", r.BodyTruncated)
	w.val("word_count", r.WordCount)
	q := make([]string, len(r.Quality))
	for i, s := range r.Quality {
		q[i] = string(s)
	}
	w.list("quality_signals", q)
	w.str("decoded_charset", r.DecodedCharset)
	w.flag("decode_fallback", r.DecodeFallback)
	w.str("decode_warning", r.DecodeWarning)
	if r.Kind == KindContent {
		w.val("total_chars", r.TotalChars)
		w.num("offset", int64(r.Offset), r.Offset > 0)
		w.flag("output_truncated", r.OutputTruncated)
		w.num("next_offset", int64(r.NextOffset), r.OutputTruncated)
	}
	switch {
	case r.Summary != nil:
		w.val("secondary_model_input_truncated", r.Summary.InputTruncated)
		w.val("secondary_model_input_chars", r.Summary.InputChars)
		w.val("secondary_model_source_chars", r.Summary.SourceChars)
		w.str("secondary_model", r.Summary.Model)
	case r.SkipReason != "":
		w.str("secondary_model_skipped_reason", string(r.SkipReason))
		w.str("secondary_model_error", r.SummaryError)
	}
	return w.b.String()
}
