package webfetch

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// hostilePage generates an HTML page with the shapes that have made extraction slow or its
// output large: huge attributes, deep nesting of several kinds, long titles and headings,
// tables with spans, images with long alt text, and plain text runs.
func hostilePage(t *rapid.T) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>")
	b.WriteString(strings.Repeat(rapid.SampledFrom([]string{"T", "é", "漢", "\u0085", "-->"}).Draw(t, "titlechar"), rapid.IntRange(0, 300_000).Draw(t, "titlelen")))
	b.WriteString("</title></head><body><article>")
	for i := range rapid.IntRange(1, 12).Draw(t, "parts") {
		switch rapid.IntRange(0, 7).Draw(t, "part") {
		case 0: // deep nesting
			tag := rapid.SampledFrom([]string{"blockquote", "div", "ul><li", "ol><li", "table><tr><td", "span", "b"}).Draw(t, "tag")
			n := rapid.IntRange(1, 3000).Draw(t, "depth")
			b.WriteString(strings.Repeat("<"+tag+">x<br>", n))
		case 1: // a huge attribute
			b.WriteString(`<p class="` + strings.Repeat("c", rapid.IntRange(0, 200_000).Draw(t, "attr")) + `">attribute</p>`)
		case 2: // a long heading
			b.WriteString("<h2>" + strings.Repeat("heading ", rapid.IntRange(1, 20_000).Draw(t, "heading")) + "</h2>")
		case 3: // a table with spans
			b.WriteString(`<table><tr><td colspan="` + strconv.Itoa(rapid.IntRange(0, 1<<30).Draw(t, "colspan")) + `" rowspan="` +
				strconv.Itoa(rapid.IntRange(0, 1<<30).Draw(t, "rowspan")) + `">cell</td><td><p>block</p><ul><li>cell list</li></ul></td></tr></table>`)
		case 4: // images with long alt text
			for range rapid.IntRange(1, 50).Draw(t, "images") {
				b.WriteString(`<figure><img src="/i.png" alt="` + strings.Repeat("alt ", rapid.IntRange(0, 2000).Draw(t, "alt")) + `"><figcaption>cap</figcaption></figure>`)
			}
		case 5: // prose
			b.WriteString(strings.Repeat("<p>Some words of the article, enough to be kept as its content.</p>", rapid.IntRange(1, 2000).Draw(t, "prose")))
		case 6: // unclosed and stray tags
			b.WriteString(strings.Repeat("<p><b><i></table></div><li>", rapid.IntRange(1, 3000).Draw(t, "stray")))
		case 7: // a wide cell in a long table
			b.WriteString("<table><tr><th>a</th><th>b</th></tr><tr><td>" + strings.Repeat("w", rapid.IntRange(0, 50_000).Draw(t, "wide")) + "</td><td>x</td></tr>" +
				strings.Repeat("<tr><td>1</td><td>2</td></tr>", rapid.IntRange(0, 3000).Draw(t, "rows")) + "</table>")
		}
		_ = i
	}
	b.WriteString("</article></body></html>")
	return b.String()
}

// TestPropertyBoundedOutputAndDeadline (issue 23): for any page — huge attributes, deep
// nesting, long titles and header values — the rendering has at most MaxOutputChars code
// points and the call returns within its deadline plus a bound that covers one step the
// libraries cannot interrupt (the HTML parser). The bound is generous so a loaded machine
// does not fail it; without the deadline checks such pages took minutes.
func TestPropertyBoundedOutputAndDeadline(t *testing.T) {
	var mu sync.Mutex
	var page, etag, ctype string
	s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		p, e, c := page, etag, ctype
		mu.Unlock()
		w.Header()["Etag"] = []string{e}
		w.Header()["Content-Type"] = []string{c}
		_, _ = w.Write([]byte(p))
	})
	const slack = 8 * time.Second
	rapid.Check(t, func(t *rapid.T) {
		p := hostilePage(t)
		e := `"` + strings.Repeat(rapid.SampledFrom([]string{"e", "\u0085", "\u2028", "é"}).Draw(t, "etagchar"), rapid.IntRange(0, 200_000).Draw(t, "etaglen")) + `"`
		c := "text/html; charset=utf-8; x=" + strings.Repeat("p", rapid.IntRange(0, 50_000).Draw(t, "ctype"))
		mu.Lock()
		page, etag, ctype = p, e, c
		mu.Unlock()
		window := rapid.IntRange(MinOutputChars, 20_000).Draw(t, "window")
		timeout := time.Duration(rapid.IntRange(50, 2000).Draw(t, "timeout_ms")) * time.Millisecond
		f, err := New(AllowLoopbackForTests(), WithHTTPClient(s.Client()), WithoutCache(), WithLimits(Limits{MaxOutputChars: window}))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		req := Request{URL: s.URL + "/page", Timeout: timeout, LLMS: LLMSNever,
			Format:       rapid.SampledFrom([]Format{FormatMarkdown, FormatText, FormatHTML}).Draw(t, "format"),
			WholePage:    rapid.Bool().Draw(t, "whole"),
			OmitMetadata: rapid.Bool().Draw(t, "omit")}
		start := time.Now()
		r, err := f.Fetch(context.Background(), req)
		if took := time.Since(start); took > timeout+slack {
			t.Fatalf("%d-byte page: returned after %v with a %v timeout", len(p), took, timeout)
		}
		if err != nil {
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err %v", err)
			}
			return
		}
		out := Render(r)
		if n := utf8.RuneCountInString(out); n > window {
			t.Fatalf("rendering of %d characters, window %d", n, window)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("rendering is not valid UTF-8")
		}
	})
}
