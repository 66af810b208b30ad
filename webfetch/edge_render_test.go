package webfetch

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/webfetch/internal/extract"
)

func TestEdgeExtraction(t *testing.T) {
	base, _ := url.Parse("http://host/page")
	longText := strings.Repeat("Plenty of words in this article paragraph to make it the main content. ", 8)
	tests := []struct {
		name        string
		html        string
		whole       bool
		format      Format
		contains    []string
		notContains []string
		headings    []string
	}{
		{name: "E122_whole_page_html_sanitised", whole: true, format: FormatHTML,
			html:        `<html><head><title>T</title><style>.x{}</style><script>evil()</script></head><body><p>Body text</p><script>more()</script><style>p{}</style></body></html>`,
			contains:    []string{"<body>", "Body text"},
			notContains: []string{"<head>", "<script", "<style", "evil", "more()"}},
		{name: "E123_image_alt_kept", html: `<html><body><article><p>` + longText + `</p><p><img alt="Diagram" src="/d.png"></p><p>` + longText + `</p><p><img alt="x" src="data:image/png;base64,AAAA"></p></article></body></html>`,
			contains: []string{"![Diagram](http://host/d.png)", "[image: x]"}, notContains: []string{"data:image"}},
		{name: "E124_headings_from_article", html: `<html><body><nav><h2>Menu</h2><a href="/">Home</a></nav><article><h2>Install</h2><p>` + longText + `</p><p>` + longText + `</p></article></body></html>`,
			headings: []string{"Install"}},
		{name: "E125_permalink_glyph_removed_fsharp_kept", html: `<html><body><article><h2>Install <a href="#install" title="Permanent link">¶</a></h2><p>` + longText + `</p><h3>F#</h3><p>` + longText + `</p></article></body></html>`,
			headings: []string{"Install", "F#"}, notContains: []string{"¶", "Permanent link"}},
		{name: "E126_code_language_kept", html: `<html><body><article><p>` + longText + `</p><pre><code class="language-go">func main() {}</code></pre><p>` + longText + `</p></article></body></html>`,
			contains: []string{"```go\nfunc main() {}\n```"}},
		{name: "E128_paywall_phrase", html: `<html><body><article><p>` + longText + ` Subscribe to continue reading.</p></article></body></html>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := extractHTML([]byte(tc.html), "text/html", base, tc.whole, DefaultMaxHeadings)
			if err != nil {
				t.Fatal(err)
			}
			out := ex.markdown
			if tc.format == FormatHTML {
				out = ex.html
			}
			for _, c := range tc.contains {
				if !strings.Contains(out, c) {
					t.Errorf("output lacks %q:\n%s", c, out)
				}
			}
			for _, c := range tc.notContains {
				if strings.Contains(out, c) {
					t.Errorf("output contains %q:\n%s", c, out)
				}
			}
			if tc.headings != nil && strings.Join(ex.headings, "|") != strings.Join(tc.headings, "|") {
				t.Errorf("headings %q, want %q", ex.headings, tc.headings)
			}
			if tc.name == "E128_paywall_phrase" {
				st := &stored{source: SourceHTML, text: ex.text, markdown: ex.markdown, extractedMain: ex.extractedMain}
				st.finishText(len(tc.html))
				if !hasSignal(st.quality, SignalPaywall) {
					t.Errorf("signals %v", st.quality)
				}
			}
		})
	}
	t.Run("E129_boilerplate_ratio", func(t *testing.T) {
		page := "<html><body><div>" + strings.Repeat(`<div class="x"><span style="color:red"></span></div>`, 6000) + "<p>" + words(300) + "</p></div></body></html>"
		ex, err := extractHTML([]byte(page), "text/html", base, true, DefaultMaxHeadings)
		if err != nil {
			t.Fatal(err)
		}
		st := &stored{source: SourceHTML, text: ex.text, markdown: ex.markdown}
		st.finishText(len(page))
		if !hasSignal(st.quality, SignalBoilerplate) {
			t.Errorf("signals %v (raw %d, text %d)", st.quality, len(page), len(ex.text))
		}
	})
	t.Run("E22_markdown_source_headings", func(t *testing.T) {
		md := "# Intro\n\n## Details ###\n\n### C#\n\nplain line\n\n```\n# Fenced\n```\n"
		got := extract.MarkdownHeadings(md, 12)
		if strings.Join(got, "|") != "Intro|Details|C#" {
			t.Errorf("headings %q", got)
		}
	})
	for _, tc := range []struct{ name, html string }{
		{name: "E24_css_libraries_cannot_parse", html: `<html><head><style>@media (min-width: 1px) { a:has(> b):nth-child(2n+1 of .x) { color: red } }</style></head><body><div class=":::[[["><p id="a:b">Hello</p><p>World</p></div></body></html>`},
		{name: "E25_malformed_css_and_markup", html: `<html><head><style>}}}{{{ a { color: </style></head><body><div><p>Hello<div></span></td><p>World<table><tr><td>x</body>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var exs [2]*extracted
			out := captureStd(t, func() {
				for i, whole := range []bool{false, true} {
					ex, err := extractHTML([]byte(tc.html), "text/html", base, whole, DefaultMaxHeadings)
					if err != nil {
						t.Error(err)
						return
					}
					exs[i] = ex
				}
			})
			if out != "" {
				t.Errorf("wrote to stdout/stderr: %q", out)
			}
			for _, ex := range exs {
				if ex == nil || !strings.Contains(ex.text, "Hello") || !strings.Contains(ex.text, "World") {
					t.Errorf("text lacks Hello/World: %+v", ex)
				}
			}
		})
	}
}

func hasSignal(list []QualitySignal, s QualitySignal) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// captureStd runs fn with stdout and stderr redirected and returns what was written.
func captureStd(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	fn()
	os.Stdout, os.Stderr = oldOut, oldErr
	w.Close()
	return <-done
}

func TestEdgeRender(t *testing.T) {
	base := func() *Result {
		return &Result{Kind: KindContent, Format: FormatMarkdown, IncludeMetadata: true, RequestedURL: "https://x.org/", FinalURL: "https://x.org/", StatusCode: 200, ContentLength: -1, Source: SourceText, Redirects: []Hop{}, Quality: []QualitySignal{}, Content: "body"}
	}
	t.Run("E23_comment_after_xml_declaration", func(t *testing.T) {
		r := base()
		r.Format = FormatHTML
		r.Content = `<?xml version="1.0"?><svg/>`
		out := Render(r)
		if !strings.HasPrefix(out, "<?xml version=\"1.0\"?>\n<!--\n---") && !strings.HasPrefix(out, "<?xml version=\"1.0\"?>\n<!--\nrequested_url") {
			t.Errorf("render:\n%s", out)
		}
		if !strings.HasSuffix(out, "-->\n<svg/>\n") {
			t.Errorf("content not intact:\n%s", out)
		}
	})
	t.Run("E64_source_content_separator", func(t *testing.T) {
		r := base()
		r.Content = "---\ntitle: x\n---\nbody"
		if out := Render(r); !strings.Contains(out, "---\n\nSource content:\n\n---\ntitle: x") {
			t.Errorf("render:\n%s", out)
		}
	})
	t.Run("E130_title_escaped_one_line", func(t *testing.T) {
		r := base()
		r.Title = "line one\nsaid \"hi\" -->"
		out := Render(r)
		var got string
		for line := range strings.SplitSeq(out, "\n") {
			if v, ok := strings.CutPrefix(line, "title: "); ok {
				if err := json.Unmarshal([]byte(v), &got); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got != r.Title {
			t.Errorf("title round trip %q", got)
		}
		r.Format = FormatHTML
		out = Render(r)
		if !strings.Contains(out, `-\u002d>`) || strings.Count(out, "-->") != 1 {
			t.Errorf("html render closes the comment early:\n%s", out)
		}
	})
	t.Run("E131_no_html_escapes", func(t *testing.T) {
		r := base()
		r.Title = "<b>&"
		if out := Render(r); !strings.Contains(out, `title: "<b>&"`) {
			t.Errorf("render:\n%s", out)
		}
	})
	t.Run("E132_without_metadata", func(t *testing.T) {
		r := base()
		r.IncludeMetadata = false
		if out := Render(r); out != "body\n" {
			t.Errorf("render %q", out)
		}
	})
	t.Run("E65_html_format_plain_text_escaped", func(t *testing.T) {
		s := newTLSSite(t, serve(ptr("text/plain"), []byte("a < b & c")))
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		r := fetch(t, f, Request{URL: s.URL + "/", Format: FormatHTML, OmitMetadata: true})
		if r.Content != "<pre>a &lt; b &amp; c</pre>" {
			t.Errorf("content %q", r.Content)
		}
	})
}

// TestDeepNesting: the HTML parser refuses more than 512 open elements; such documents are
// flattened and still yield their text (N−1, N, N+1 around the parser's limit, and 10,000).
func TestDeepNesting(t *testing.T) {
	base, _ := url.Parse("http://host/page")
	tests := []struct {
		name  string
		depth int
	}{
		{name: "below_parser_limit", depth: 509},
		{name: "at_parser_limit", depth: 510},
		{name: "above_parser_limit", depth: 511},
		{name: "nested_10000", depth: 10000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := strings.Repeat("<div>", tc.depth) + "<p>deep text here</p>" + strings.Repeat("</div>", tc.depth)
			ex, err := extractHTML([]byte(page), "text/html", base, false, DefaultMaxHeadings)
			if err != nil {
				t.Fatalf("depth %d: %v", tc.depth, err)
			}
			if !strings.Contains(ex.text, "deep text here") || !strings.Contains(ex.markdown, "deep text here") {
				t.Errorf("depth %d: text %q", tc.depth, ex.text)
			}
		})
	}
}

// TestLoggerGetsDiagnostics: rejected llms.txt candidates are logged at Debug level on the
// injected logger, and nothing is printed.
func TestLoggerGetsDiagnostics(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var out string
	out = captureStd(t, func() {
		f, _ := docsSite(t, routes(map[string]http.HandlerFunc{"/llms-full.txt": redirectTo("/login", http.StatusFound), "/login": plainHandler("log in"), "/": htmlGuide}), WithLogger(logger))
		fetch(t, f, Request{URL: "https://docs.example.com/"})
	})
	if out != "" || !strings.Contains(buf.String(), "level=DEBUG") || !strings.Contains(buf.String(), "resolved to non-llms path") {
		t.Errorf("stdout/stderr %q, log %q", out, buf.String())
	}
}
