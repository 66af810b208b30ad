package webfetch

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"unicode/utf8"
)

// MinOutputChars is the smallest output window [Limits.MaxOutputChars] accepts (other than
// -1, unlimited): room for the metadata block cut to its bare keys and some content.
const MinOutputChars = 1000

// Caps on single metadata values, in code points, applied whatever the window: a value from
// the network (a title, a header) never takes more than this in a rendering.
const (
	maxURLChars   = DefaultMaxURLLength
	maxNameChars  = 500  // title, byline, site name
	maxShortChars = 256  // header values, language, charsets, model names
	maxNoteChars  = 1024 // probe and summarizer errors, which quote a URL
)

// elision ends a value that was cut.
const elision = "…"

// elide returns s cut to at most n code points, the last of them "…" when anything was cut.
func elide(s string, n int) string {
	if n < 0 || len(s) <= n || byteIndex(s, n) == len(s) {
		return s
	}
	if n == 0 {
		return ""
	}
	return s[:byteIndex(s, n-1)] + elision
}

// metaField is one elidable value of a result's metadata and its own cap.
type metaField struct {
	p   *string
	cap int
}

// metaFields lists every string of r's metadata block. Lists are copied first, so cutting
// them never changes what the cache holds.
func metaFields(r *Result) []metaField {
	if r.Headings != nil {
		r.Headings = slices.Clone(r.Headings)
	}
	if r.Redirects != nil {
		r.Redirects = slices.Clone(r.Redirects)
	}
	fs := []metaField{
		{&r.RequestedURL, maxURLChars}, {&r.FinalURL, maxURLChars}, {&r.CanonicalURL, maxURLChars},
		{&r.SourceContentType, maxShortChars}, {&r.Charset, maxShortChars}, {&r.ETag, maxShortChars},
		{&r.LastModified, maxShortChars}, {&r.Filename, maxShortChars}, {&r.Title, maxNameChars},
		{&r.Lang, maxShortChars}, {&r.Byline, maxNameChars}, {&r.SiteName, maxNameChars},
		{&r.PublishedTime, maxShortChars}, {&r.LLMSProbeError, maxNoteChars}, {&r.DecodedCharset, maxShortChars},
		{&r.DecodeWarning, maxShortChars}, {&r.SummaryError, maxNoteChars},
	}
	for i := range r.Headings {
		fs = append(fs, metaField{&r.Headings[i], maxNameChars})
	}
	for i := range r.Redirects {
		fs = append(fs, metaField{&r.Redirects[i].From, maxURLChars}, metaField{&r.Redirects[i].To, maxURLChars})
	}
	if r.Blocked != nil {
		b := *r.Blocked
		r.Blocked = &b
		fs = append(fs, metaField{&r.Blocked.RedirectURL, maxURLChars})
	}
	if r.Summary != nil {
		s := *r.Summary
		r.Summary = &s
		fs = append(fs, metaField{&r.Summary.Model, maxShortChars})
	}
	return fs
}

// capFields applies each metadata value's own cap.
func capFields(r *Result) {
	for _, f := range metaFields(r) {
		*f.p = elide(*f.p, f.cap)
	}
}

// blockChars is the number of code points Render writes besides the content: the metadata
// block with its delimiters (or nothing without metadata), the "Source content:" line a
// content starting with "---" gets, and the final newline.
func blockChars(r *Result) int {
	n := 1
	if !r.IncludeMetadata {
		return n
	}
	n += utf8.RuneCountInString(frontmatter(r, r.Format == FormatHTML))
	if r.Format == FormatHTML {
		// "<!--\n" + block + "-->\n", possibly moved after an XML declaration (one more "\n").
		return n + 10
	}
	return n + len("---\n---\n\n") + len("Source content:\n\n")
}

// boundMetadata cuts r's metadata values, longest first, until the block takes at most
// budget code points; when cutting every value to nothing is not enough, the heading list
// is dropped, then the middle of the redirect chain. The smallest block (bare keys) always
// fits a window of MinOutputChars.
func boundMetadata(r *Result, budget int) {
	if blockChars(r) <= budget {
		return
	}
	fields := metaFields(r)
	orig := make([]string, len(fields))
	longest := 0
	for i, f := range fields {
		orig[i] = *f.p
		longest = max(longest, utf8.RuneCountInString(orig[i]))
	}
	fits := func(c int) bool {
		for i, f := range fields {
			*f.p = elide(orig[i], c)
		}
		return blockChars(r) <= budget
	}
	// The largest per-value cap that fits (binary search: the block only grows with it).
	lo, hi := 0, longest
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if fits(lo) {
		return
	}
	if len(r.Headings) > 0 {
		r.Headings = []string{}
		boundMetadata(r, budget)
		return
	}
	if len(r.Redirects) > 2 {
		r.Redirects = []Hop{r.Redirects[0], r.Redirects[len(r.Redirects)-1]}
		boundMetadata(r, budget)
	}
}

// contentBudget is how many code points of content fit in the window once r's metadata
// (already bounded) is written, keeping room for a paging marker of up to total characters.
// It is at least 1, so paging always moves on.
func contentBudget(r *Result, window, total int) int {
	// Measure with the largest numbers the block can show.
	saved := *r
	r.TotalChars, r.NextOffset, r.OutputTruncated = total, total, true
	n := blockChars(r)
	*r = saved
	n += utf8.RuneCountInString(pagingMarker(r.Format, total, total, total))
	return max(window-n, 1)
}

func pagingMarker(format Format, offset, end, total int) string {
	return marker(format, fmt.Sprintf("[..content truncated: showing characters %d-%d of %d; re-run webfetch with offset=%d to read more..]", offset, end, total, end))
}

// escapedWindow is window for content that is HTML-escaped inside <pre>: the window is
// counted in code points of the unescaped text, and is shrunk until its escaped form, with
// the <pre> tags, fits limit.
func escapedWindow(s string, offset, limit int) (string, int) {
	n := limit - len("<pre></pre>")
	for {
		win, end := window(s, offset, max(n, 1))
		esc := "<pre>" + html.EscapeString(win) + "</pre>"
		size := utf8.RuneCountInString(esc)
		if size <= limit || n <= 1 {
			return esc, end
		}
		// Escaping grows text at most five times; shrink in proportion and try again.
		n = max(1, min(n-1, n*limit/size))
	}
}

// boundMessage cuts a message, a summarizer answer or a binary notice, so that the whole
// rendering fits the window. A cut message ends with "…".
func boundMessage(r *Result, window int) {
	if window < 0 {
		return
	}
	boundMetadata(r, window/2)
	budget := max(window-blockChars(r), 1)
	if r.Format == FormatHTML {
		if strings.HasPrefix(r.Content, "<pre>") && strings.HasSuffix(r.Content, "</pre>") && utf8.RuneCountInString(r.Content) > budget {
			// Cut the text, not the markup.
			text := html.UnescapeString(strings.TrimSuffix(strings.TrimPrefix(r.Content, "<pre>"), "</pre>"))
			for n := budget; n > 0; n = n * 9 / 10 {
				c := "<pre>" + html.EscapeString(elide(text, n)) + "</pre>"
				if utf8.RuneCountInString(c) <= budget {
					r.Content = c
					return
				}
			}
			r.Content = ""
		}
		return
	}
	r.Content = elide(r.Content, budget)
}
