package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// deepQuotes is the page: about 1.2 MB of blockquotes nested in each other.
func deepQuotes(size int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Quotes</title></head><body>")
	for b.Len() < size {
		b.WriteString("<blockquote>q<br>")
	}
	return b.String()
}

// Issue 23: a 1.2 MB page of nested blockquotes fetched with a 2 s timeout returned after
// 2 min 7 s, with 23.5 M characters of Markdown (19 times the input). Parsing, extraction
// and conversion stop at the call's deadline, and the call returns what the model can use
// or an error that says the page was too complex. The wall-clock bound is generous: the
// machine running the tests may be loaded.
func TestFetchDeadlineBoundsExtraction(t *testing.T) {
	page := deepQuotes(1_200_000)
	s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	})
	f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
	const timeout = 2 * time.Second
	start := time.Now()
	r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/quotes", Timeout: timeout})
	elapsed := time.Since(start)
	if elapsed > timeout+20*time.Second {
		t.Errorf("Fetch returned after %v with a %v timeout", elapsed, timeout)
	}
	switch {
	case err != nil:
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "too complex") {
			t.Errorf("err %v: want a result, or ErrTimeout saying the page was too complex", err)
		}
	case !strings.Contains(r.Content, "q"):
		t.Errorf("content %q", r.Content[:min(200, len(r.Content))])
	}
	t.Logf("returned after %v (err %v)", elapsed, err)
}

// Issue 23: the Markdown of a page is bounded relative to the page, whatever its markup:
// nested quotes and lists (each level prefixes every line), tables with one wide column
// (aligned padding), and cells spanning huge numbers of rows and columns.
func TestMarkdownBoundedByInput(t *testing.T) {
	wide := "<table><tr><th>a</th><th>b</th></tr><tr><td>" + strings.Repeat("w", 20_000) + "</td><td>x</td></tr>" +
		strings.Repeat("<tr><td>1</td><td>2</td></tr>", 3000) + "</table>"
	var lists strings.Builder
	for range 300 {
		lists.WriteString("<ul><li>item<br>line<br>line")
	}
	tests := []struct {
		name string
		page string
	}{
		{name: "nested_blockquotes", page: deepQuotes(100_000)},
		{name: "nested_lists", page: "<html><body>" + strings.Repeat(lists.String(), 4) + "</body></html>"},
		{name: "wide_table_column", page: "<html><body><article>" + wide + "</article></body></html>"},
		{name: "span_bomb", page: "<html><body><table><tr><td colspan=1000000 rowspan=1000000>x</td><td colspan=999999999>y</td></tr>" +
			strings.Repeat("<tr><td rowspan=65534 colspan=1000>z</td></tr>", 50) + "</table></body></html>"},
	}
	base, _ := url.Parse("https://example.com/")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, whole := range []bool{false, true} {
				done := make(chan struct{})
				var ex *extracted
				var err error
				start := time.Now()
				go func() {
					defer close(done)
					ex, err = extractHTML([]byte(tc.page), "text/html", base, whole, defaultMaxHeadings)
				}()
				select {
				case <-done:
				case <-time.After(60 * time.Second):
					t.Fatalf("whole page %v: extraction still running after 60 s", whole)
				}
				if err != nil {
					t.Fatal(err)
				}
				if limit := 4*len(tc.page) + 64<<10; len(ex.markdown) > limit {
					t.Errorf("whole page %v: %d bytes of Markdown from %d bytes of HTML (limit %d)", whole, len(ex.markdown), len(tc.page), limit)
				}
				t.Logf("whole page %v: %d → %d bytes in %v", whole, len(tc.page), len(ex.markdown), time.Since(start))
			}
		})
	}
}
