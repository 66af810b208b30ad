package webfetch

import (
	"bytes"
	"compress/flate"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"unicode"
)

// TestAttackControlBytesNeverRendered holds bodies whose first sniff window looks like text
// but which carry binary bytes or terminal escape sequences further on. Whatever the type
// and format, the text handed to the model has no control characters other than tab,
// newline, carriage return and form feed: no NUL, no ESC sequence, no C1 control.
func TestAttackControlBytesNeverRendered(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 8192)
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	head := strings.Repeat("hello world ", 300) // longer than the sniff window
	escapes := "\x1b[31mRED\x1b]0;pwned\x07 \x00nul \u009b2J done"
	cases := []struct {
		name string
		ct   string // "-" means no Content-Type
		body string
	}{
		{name: "text_plain_binary_tail", ct: "text/plain", body: head + string(junk)},
		{name: "json_binary_tail", ct: "application/json", body: head + string(junk)},
		{name: "untyped_binary_tail", ct: "-", body: head + string(junk)},
		{name: "html_binary_tail", ct: "text/html", body: "<html><body><p>" + head + string(junk) + "</p>"},
		{name: "text_plain_terminal_escapes", ct: "text/plain; charset=utf-8", body: "log line one\n" + escapes + "\n"},
		{name: "markdown_terminal_escapes", ct: "text/markdown", body: "# Title\n\n" + escapes + "\n"},
		{name: "html_terminal_escapes", ct: "text/html; charset=utf-8", body: article("Esc", escapes)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.ct == "-" {
					w.Header()["Content-Type"] = nil
				} else {
					w.Header().Set("Content-Type", tc.ct)
				}
				_, _ = w.Write([]byte(tc.body))
			})
			f, _, _ := testFetcher(t)
			for _, format := range []Format{FormatMarkdown, FormatText, FormatHTML} {
				r := fetch(t, f, Request{URL: s.URL + "/doc", LLMS: LLMSNever, Format: format})
				out := Render(r)
				if i := strings.IndexFunc(out, func(r rune) bool {
					return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' && r != '\f'
				}); i >= 0 {
					t.Errorf("%s: control character %U at byte %d of the rendering (kind %s)", format, []rune(out[i:])[0], i, r.Kind)
				}
			}
		})
	}
}

// TestAttackUndecodedContentEncoding: a text-typed body in a Content-Encoding the client did
// not ask for and cannot decode (deflate, br, zstd, or a chain) is compressed bytes, not text:
// it is reported as binary and none of it reaches the content.
func TestAttackUndecodedContentEncoding(t *testing.T) {
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.BestCompression)
	_, _ = zw.Write(bytes.Repeat([]byte("plain words of text "), 500))
	_ = zw.Close()
	for _, enc := range []string{"deflate", "br", "zstd", "gzip, br", "x-custom"} {
		t.Run(enc, func(t *testing.T) {
			s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Header().Set("Content-Encoding", enc)
				_, _ = w.Write(b.Bytes())
			})
			f, _, _ := testFetcher(t)
			r := fetch(t, f, Request{URL: s.URL + "/doc", LLMS: LLMSNever})
			if r.Kind != KindBinary {
				t.Errorf("kind %s, want binary; content starts %q", r.Kind, r.Content[:min(40, len(r.Content))])
			}
		})
	}
	t.Run("identity", func(t *testing.T) {
		s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Content-Encoding", "Identity")
			_, _ = w.Write([]byte("plain words"))
		})
		f, _, _ := testFetcher(t)
		if r := fetch(t, f, Request{URL: s.URL + "/doc", LLMS: LLMSNever}); r.Kind != KindContent || !strings.Contains(r.Content, "plain words") {
			t.Errorf("identity: kind %s content %q", r.Kind, r.Content)
		}
	})
}

// TestAttackLLMSCandidateBinary: an llms.txt candidate that is binary (a PNG, NUL bytes, an
// undecoded Content-Encoding) or carries terminal escapes never reaches the model as text.
func TestAttackLLMSCandidateBinary(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00\x01\x02", 100)
	cases := []struct {
		name, ct, enc, body string
	}{
		{name: "png_as_text_plain", ct: "text/plain", body: png},
		{name: "nul_bytes_untyped", ct: "application/octet-stream", body: "# Docs\n\x00\x00\x00" + strings.Repeat("\x00\xff", 200)},
		{name: "undecoded_brotli", ct: "text/plain", enc: "br", body: "\x1b\x4f\x00\xf8\x25\x00\xa2\x9a\x99"},
		{name: "terminal_escapes", ct: "text/markdown", body: "# Docs\n\n\x1b]0;pwned\x07text \x1b[2J more text\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/" {
					plainHandler("root page "+words(30))(w, r)
					return
				}
				w.Header().Set("Content-Type", tc.ct)
				if tc.enc != "" {
					w.Header().Set("Content-Encoding", tc.enc)
				}
				_, _ = w.Write([]byte(tc.body))
			})
			f, _, _ := testFetcher(t)
			r := fetch(t, f, Request{URL: s.URL + "/", LLMS: LLMSAlways})
			out := Render(r)
			if i := strings.IndexFunc(out, func(r rune) bool {
				return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' && r != '\f'
			}); i >= 0 {
				t.Errorf("control character %U in the rendering (kind %s)", []rune(out[i:])[0], r.Kind)
			}
			if strings.Contains(out, "PNG") || strings.Contains(out, "\uFFFD\uFFFD\uFFFD") {
				t.Errorf("binary bytes rendered as text (kind %s): %q", r.Kind, out[:min(200, len(out))])
			}
		})
	}
}
