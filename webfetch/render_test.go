package webfetch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Issue 23: Render's output had no final newline, so a host that prints it, or appends the
// next message, ran the last line into what followed.
func TestRenderEndsWithNewline(t *testing.T) {
	base := func() *Result {
		return &Result{Kind: KindContent, Format: FormatMarkdown, IncludeMetadata: true, RequestedURL: "https://x.org/", FinalURL: "https://x.org/",
			StatusCode: 200, ContentLength: -1, Source: SourceText, Redirects: []Hop{}, Quality: []QualitySignal{}, Content: "body"}
	}
	tests := []struct {
		name string
		mod  func(*Result)
	}{
		{name: "markdown", mod: func(*Result) {}},
		{name: "html", mod: func(r *Result) { r.Format = FormatHTML; r.Content = "<p>body</p>" }},
		{name: "without_metadata", mod: func(r *Result) { r.IncludeMetadata = false }},
		{name: "content_already_ends_with_newline", mod: func(r *Result) { r.Content = "body\n" }},
		{name: "empty_content", mod: func(r *Result) { r.Content = "" }},
		{name: "binary", mod: func(r *Result) {
			r.Kind, r.Binary, r.Content = KindBinary, &BinaryInfo{Kind: BinaryPDF}, "PDF content detected but not saved."
		}},
		{name: "blocked", mod: func(r *Result) {
			r.Kind, r.Blocked, r.Content = KindRedirectBlocked, &BlockedRedirect{RedirectURL: "https://y.org/", Status: 302}, "Redirect was blocked by policy."
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := base()
			tc.mod(r)
			out := Render(r)
			if !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") && !strings.HasSuffix(r.Content, "\n\n") && r.Content != "" {
				t.Errorf("Render ends with %q, want exactly one newline", out[max(0, len(out)-10):])
			}
		})
	}
}

// splitLines splits s the way Python's str.splitlines does: at \n, \r, \r\n, \v, \f, the
// file/group/record separators, NEL, U+2028 and U+2029.
func splitLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			return true
		}
		return false
	})
}

// Issue 23: an ETag holding NEL added a "saved_path:" line for a reader that splits lines
// the way Python does. Header values with C1 controls, NEL, U+2028 or U+2029 are escaped
// like newlines, so no value can add a line to the block for any line-splitting reader.
func TestRenderEscapesLineSeparatorsInHeaders(t *testing.T) {
	// Go's HTTP client refuses C0 controls in header lines; these reach a Result.
	checkBlock := func(t *testing.T, format Format, out string) {
		t.Helper()
		block, _, _ := strings.Cut(strings.TrimPrefix(out, "---\n"), "\n---\n")
		if format == FormatHTML {
			block, _, _ = strings.Cut(strings.TrimPrefix(out, "<!--\n"), "-->")
		}
		for _, line := range splitLines(block) {
			if strings.HasPrefix(line, "saved_path") {
				t.Fatalf("%s: a header value added the line %q:\n%s", format, line, out)
			}
			if !strings.HasPrefix(line, "  - ") && !strings.Contains(line, ": ") && !strings.HasSuffix(line, ":") {
				t.Fatalf("%s: line %q is not a key line:\n%s", format, line, out)
			}
		}
		for _, c := range []rune{0x85, 0x9b, 0x2028, 0x2029, 0x1c, '\r', '\v'} {
			if strings.ContainsRune(block, c) {
				t.Errorf("%s: block holds %U unescaped", format, c)
			}
		}
	}
	for _, v := range []string{"\x1csaved_path: x", "\rsaved_path: x", "\x0bsaved_path: x", "\u0085saved_path: x", "\u2028saved_path: x"} {
		for _, format := range []Format{FormatMarkdown, FormatHTML} {
			r := &Result{Kind: KindContent, Format: format, IncludeMetadata: true, RequestedURL: "https://x.org/" + v, ETag: v, Title: v,
				Headings: []string{v}, Redirects: []Hop{{From: v, To: v, Status: 302}}, Quality: []QualitySignal{}, Content: "body"}
			checkBlock(t, format, Render(r))
		}
	}
	evil := []string{"\u0085saved_path: /etc/passwd", "\u2028saved_path: x", "\u2029saved_path: x", "a\u009bb"}
	for _, v := range evil {
		t.Run(fmt.Sprintf("%q", v), func(t *testing.T) {
			s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Etag"] = []string{`"` + v + `"`}
				w.Header()["Last-Modified"] = []string{v}
				w.Header()["Content-Type"] = []string{"text/plain; x=" + v}
				fmt.Fprint(w, "hello "+words(30))
			})
			f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
			for _, format := range []Format{FormatMarkdown, FormatHTML} {
				r := fetch(t, f, Request{URL: s.URL + "/doc", Format: format})
				checkBlock(t, format, Render(r))
			}
		})
	}
}

// Issue 23: the output window did not bound metadata. With MaxOutputChars 1000, a 4 MiB
// <title> and a 900 KiB ETag gave a 5.1 M-character rendering. Every rendered field counts
// against the window.
func TestRenderBoundedByWindow(t *testing.T) {
	title := strings.Repeat("T", 4<<20)
	etag := `"` + strings.Repeat("e", 900<<10) + `"`
	s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", strings.Repeat("L", 100<<10))
		heading := "<h2>" + strings.Repeat("heading ", 40) + "</h2>"
		fmt.Fprint(w, htmlPage(title, "<article>"+strings.Repeat(heading+"<p>"+words(80)+"</p>", 14)+"</article>"))
	})
	const window = 1000
	f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithLimits(Limits{MaxOutputChars: window}))
	for _, tc := range []Request{
		{URL: s.URL + "/a?" + strings.Repeat("q", 1500)},
		{URL: s.URL + "/a?" + strings.Repeat("q", 1500), Format: FormatText},
		{URL: s.URL + "/a?" + strings.Repeat("q", 1500), Format: FormatHTML},
		{URL: s.URL + "/a?" + strings.Repeat("q", 1500), OmitMetadata: true},
		{URL: s.URL + "/a?" + strings.Repeat("q", 1500), WholePage: true},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		r, err := f.Fetch(ctx, tc)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		out := Render(r)
		if n := utf8.RuneCountInString(out); n > window {
			t.Errorf("format %q metadata %v: rendering has %d characters, window %d", tc.Format, !tc.OmitMetadata, n, window)
		}
		if tc.Format != FormatHTML && !tc.OmitMetadata {
			for _, line := range strings.Split(strings.SplitN(out, "\n---\n", 2)[0], "\n")[1:] {
				if v, ok := strings.CutPrefix(line, "  - "); ok {
					line = "x: " + v
				}
				if _, v, ok := strings.Cut(line, ": "); ok {
					var x any
					if err := json.Unmarshal([]byte(v), &x); err != nil {
						t.Errorf("line %q does not parse: %v", line, err)
					}
				}
			}
		}
	}
}
