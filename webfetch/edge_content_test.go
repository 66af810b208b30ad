package webfetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// serve answers every request with the given content type (nil = no header) and body.
func serve(ct *string, body []byte, extra ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ct == nil {
			w.Header()["Content-Type"] = nil
		} else {
			w.Header().Set("Content-Type", *ct)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			w.Header().Set(extra[i], extra[i+1])
		}
		w.Write(body)
	}
}

func ptr(s string) *string { return &s }

func mustEncode(t *testing.T, enc interface{ Bytes([]byte) ([]byte, error) }, s string) []byte {
	t.Helper()
	b, err := enc.Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEdgeContentTypes(t *testing.T) {
	japaneseText := "日本語のテキストです。これは正しく表示されるべき文章です。"
	chinese := strings.Repeat("这是一个关于中文编码的测试页面，内容应该被正确地解码为简体中文文本，而不是乱码。", 8)
	tests := []struct {
		name        string
		ct          *string
		body        func(t *testing.T) []byte
		req         Request
		kind        Kind
		source      SourceKind
		contains    string
		charset     string
		fallback    bool
		warning     string
		binaryKind  BinaryKind
		notContains string
	}{
		{name: "E49_octet_stream_html", ct: ptr("application/octet-stream"), body: lit("<!DOCTYPE html><html><body><p>Hello World</p></body></html>"), kind: KindContent, source: SourceHTML, contains: "Hello World"},
		{name: "E50_text_plain_html", ct: ptr("text/plain"), body: lit("  <!doctype html><html><body><p>Hello World</p></body></html>"), kind: KindContent, source: SourceHTML, contains: "Hello World", notContains: "<p>"},
		{name: "E51_no_type_nul_bytes", ct: nil, body: lit("abc\x00\x01\x02def"), kind: KindBinary, binaryKind: BinaryOther, contains: "BINARY content detected but not saved. Re-run with save_binary=true to persist it."},
		{name: "E107_shift_jis_header", ct: ptr("text/html; charset=Shift_JIS"), body: func(t *testing.T) []byte {
			return mustEncode(t, japanese.ShiftJIS.NewEncoder(), "<html><body><p>"+japaneseText+"</p></body></html>")
		}, kind: KindContent, contains: japaneseText, charset: "shift_jis"},
		{name: "E108_meta_gbk", ct: ptr("text/html"), body: func(t *testing.T) []byte {
			return mustEncode(t, simplifiedchinese.GBK.NewEncoder(), `<html><head><meta charset="gbk"><title>t</title></head><body><p>`+chinese+`</p></body></html>`)
		}, kind: KindContent, contains: chinese[:30], charset: "gbk"},
		{name: "E108_meta_shift_jis", ct: ptr("text/html"), body: func(t *testing.T) []byte {
			return mustEncode(t, japanese.ShiftJIS.NewEncoder(), `<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body><p>`+japaneseText+`</p></body></html>`)
		}, kind: KindContent, contains: japaneseText, charset: "shift_jis"},
		{name: "E109_meta_after_1024_bytes_utf8", ct: ptr("text/html"), body: lit("<html><head><!--" + strings.Repeat(" ", 1100) + `--><meta charset="gbk"></head><body><p>héllo wörld</p></body></html>`), kind: KindContent, contains: "héllo wörld", charset: "utf-8"},
		{name: "E110_undeclared_windows_1252", ct: ptr("text/plain"), body: lit("caf\xe9 au lait, caf\xe9 cr\xe8me et cr\xe8me br\xfbl\xe9e pour le d\xe9jeuner"), kind: KindContent, contains: "café au lait", charset: "windows-1252", fallback: true, warning: "Guessed charset without declaration: windows-1252"},
		{name: "E111_undeclared_gbk", ct: ptr("text/plain"), body: func(t *testing.T) []byte {
			return mustEncode(t, simplifiedchinese.GBK.NewEncoder(), chinese)
		}, kind: KindContent, contains: chinese[:30], fallback: true, warning: "Guessed charset without declaration: gb18030"},
		{name: "E112_unknown_charset", ct: ptr("text/plain; charset=x-unknown-thing"), body: lit("plain text"), kind: KindContent, contains: "plain text", charset: "utf-8", warning: "Unsupported charset decoder: x-unknown-thing"},
		{name: "E113_bom_wins", ct: ptr("text/plain; charset=ISO-8859-1"), body: lit("\xef\xbb\xbfna\xc3\xafve"), kind: KindContent, contains: "naïve", charset: "utf-8"},
		{name: "E115_svg_is_text", ct: ptr("image/svg+xml"), body: lit(`<svg xmlns="http://www.w3.org/2000/svg"><text>label</text></svg>`), kind: KindContent, source: SourceText, contains: "<text>label</text>"},
		{name: "E116_gzip_is_binary", ct: ptr("application/gzip"), body: lit("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xfe"), kind: KindBinary, binaryKind: BinaryOther},
		{name: "E116_docx_is_binary", ct: ptr("application/vnd.openxmlformats-officedocument.wordprocessingml.document"), body: lit("PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00"), kind: KindBinary, binaryKind: BinaryOther, notContains: "PK"},
		{name: "E117_json_blank_runs_collapsed", ct: ptr("application/json"), body: lit("{\n\n\n\n\"a\": 1\n}"), kind: KindContent, source: SourceText, contains: "{\n\n\"a\": 1\n}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTLSSite(t, serve(tc.ct, tc.body(t)))
			f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
			req := tc.req
			req.URL = s.URL + "/x"
			r := fetch(t, f, req)
			if r.Kind != tc.kind {
				t.Fatalf("kind %v, want %v; content %q", r.Kind, tc.kind, r.Content)
			}
			if tc.source != "" && r.Source != tc.source {
				t.Errorf("source %q, want %q", r.Source, tc.source)
			}
			if !strings.Contains(r.Content, tc.contains) {
				t.Errorf("content %q does not contain %q", r.Content, tc.contains)
			}
			if tc.notContains != "" && strings.Contains(r.Content, tc.notContains) {
				t.Errorf("content %q contains %q", r.Content, tc.notContains)
			}
			if tc.charset != "" && r.DecodedCharset != tc.charset {
				t.Errorf("decoded_charset %q, want %q", r.DecodedCharset, tc.charset)
			}
			if r.DecodeFallback != tc.fallback || r.DecodeWarning != tc.warning {
				t.Errorf("fallback %v warning %q, want %v %q", r.DecodeFallback, r.DecodeWarning, tc.fallback, tc.warning)
			}
			if tc.binaryKind != "" && (r.Binary == nil || r.Binary.Kind != tc.binaryKind) {
				t.Errorf("binary %+v, want kind %q", r.Binary, tc.binaryKind)
			}
			if !utf8.ValidString(Render(r)) {
				t.Error("render is not valid UTF-8")
			}
		})
	}
}

func lit(s string) func(*testing.T) []byte { return func(*testing.T) []byte { return []byte(s) } }

func TestEdgeBinaries(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 3<<20-8)...)
	t.Run("E52_not_saved_not_downloaded", func(t *testing.T) {
		s := newTLSSite(t, serve(ptr("image/png"), png, "Content-Length", strconv.Itoa(len(png))))
		var maxRead atomic.Int64
		dir := privateDir(t)
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithBinaryDir(dir), WithProgress(func(_ string, read, _ int64) { maxRead.Store(read) }))
		r := fetch(t, f, Request{URL: s.URL + "/pic.png"})
		if r.Kind != KindBinary || r.Content != "IMAGE content detected but not saved. Re-run with save_binary=true to persist it." {
			t.Fatalf("kind %v content %q", r.Kind, r.Content)
		}
		if r.ContentLength != 3<<20 || !strings.Contains(Render(r), "content_length: 3145728") || !strings.Contains(Render(r), "save_binary: false") {
			t.Errorf("render:\n%s", Render(r))
		}
		if maxRead.Load() > sniffWindow {
			t.Errorf("read %d bytes, want at most the sniff window %d", maxRead.Load(), sniffWindow)
		}
		assertEmptyDir(t, dir)
	})
	t.Run("E53_saved", func(t *testing.T) {
		s := newTLSSite(t, serve(ptr("image/png"), png))
		dir := privateDir(t)
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithBinaryDir(dir))
		r := fetch(t, f, Request{URL: s.URL + "/pic.png", SaveBinary: true})
		want := filepath.Join(dir, "pic.png")
		if r.Content != "IMAGE content saved to "+want || r.Binary.SavedPath != want {
			t.Fatalf("content %q", r.Content)
		}
		if fi, err := os.Stat(want); err != nil || fi.Size() != int64(len(png)) {
			t.Errorf("saved file: %v", err)
		}
		if !strings.Contains(Render(r), "saved_path: ") {
			t.Errorf("render lacks saved_path:\n%s", Render(r))
		}
	})
	t.Run("E54_stream_past_limit", func(t *testing.T) {
		s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("%PDF-1.4\n"))
			for range 30 {
				w.Write(bytes.Repeat([]byte("x"), 10000))
				w.(http.Flusher).Flush()
			}
		})
		dir := privateDir(t)
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithBinaryDir(dir), WithLimits(Limits{MaxBinaryBytes: 100_000}))
		r := fetch(t, f, Request{URL: s.URL + "/big.pdf", SaveBinary: true})
		if r.Content != "PDF content omitted because it exceeds the download limit." || !r.BodyTruncated || !r.Binary.MetadataOnly {
			t.Fatalf("content %q truncated %v binary %+v", r.Content, r.BodyTruncated, r.Binary)
		}
		if out := Render(r); !strings.Contains(out, "binary_metadata_only: true") || !strings.Contains(out, "download_limit_bytes: 100000") {
			t.Errorf("render:\n%s", out)
		}
		assertEmptyDir(t, dir)
	})
	names := []struct {
		name, disposition, path, want string
	}{
		{name: "E55_rfc5987_filename", disposition: "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", path: "/dl", want: "résumé.pdf"},
		{name: "E56_device_name", path: "/con.txt", want: "_con.txt"},
		{name: "E56_traversal_in_disposition", disposition: `attachment; filename="../../etc/passwd"`, path: "/dl", want: "_.._etc_passwd"},
	}
	for _, tc := range names {
		t.Run(tc.name, func(t *testing.T) {
			s := newTLSSite(t, serve(ptr("application/pdf"), []byte("%PDF-1.4 body"), "Content-Disposition", tc.disposition))
			dir := privateDir(t)
			f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithBinaryDir(dir))
			r := fetch(t, f, Request{URL: s.URL + tc.path, SaveBinary: true})
			if r.Binary == nil || r.Binary.SavedPath != filepath.Join(dir, tc.want) {
				t.Fatalf("binary %+v, want %s in %s", r.Binary, tc.want, dir)
			}
		})
	}
	t.Run("E57_collision_suffix", func(t *testing.T) {
		s := newTLSSite(t, serve(ptr("application/pdf"), []byte("%PDF-1.4 body")))
		dir := privateDir(t)
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithBinaryDir(dir))
		a := fetch(t, f, Request{URL: s.URL + "/a/name.pdf", SaveBinary: true})
		b := fetch(t, f, Request{URL: s.URL + "/b/name.pdf", SaveBinary: true})
		if filepath.Base(a.Binary.SavedPath) != "name.pdf" || filepath.Base(b.Binary.SavedPath) != "name-1.pdf" {
			t.Errorf("paths %q %q", a.Binary.SavedPath, b.Binary.SavedPath)
		}
	})
	t.Run("E136_prompt_with_binary_skips_summarizer", func(t *testing.T) {
		s := newTLSSite(t, serve(ptr("image/png"), png[:4096]))
		sum := &fakeSummarizer{answer: "x"}
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithSummarizer(sum))
		r := fetch(t, f, Request{URL: s.URL + "/p.png", Prompt: "describe"})
		if r.Kind != KindBinary || sum.calls.Load() != 0 {
			t.Errorf("kind %v summarizer calls %d", r.Kind, sum.calls.Load())
		}
	})
}

func TestEdgeLimitsAndWindows(t *testing.T) {
	t.Run("E63_text_over_limit", func(t *testing.T) {
		// The default limit is 10 MiB; 64 KiB exercises the same code and keeps -race fast.
		body := strings.Repeat("line of text\n", (64<<10)/13+2000)
		s := newTLSSite(t, serve(ptr("text/plain"), []byte(body)))
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithLimits(Limits{MaxTextBytes: 64 << 10, MaxOutputChars: -1}))
		r := fetch(t, f, Request{URL: s.URL + "/big.txt"})
		if !r.BodyTruncated || !strings.HasSuffix(r.Content, "\n\n[..content truncated..]") || r.OutputTruncated {
			t.Errorf("truncated %v output_truncated %v tail %q", r.BodyTruncated, r.OutputTruncated, r.Content[len(r.Content)-40:])
		}
		g, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithLimits(Limits{MaxTextBytes: 64 << 10, MaxOutputChars: 20_000}))
		r = fetch(t, g, Request{URL: s.URL + "/big.txt"})
		if !r.BodyTruncated || !r.OutputTruncated || !strings.Contains(r.Content, "[..content truncated: showing characters 0-") {
			t.Errorf("truncated %v output_truncated %v", r.BodyTruncated, r.OutputTruncated)
		}
	})
	t.Run("E114_cut_inside_utf8_sequence", func(t *testing.T) {
		body := strings.Repeat("a", 99) + "€€€"
		s := newTLSSite(t, serve(ptr("text/plain; charset=utf-8"), []byte(body)))
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithLimits(Limits{MaxTextBytes: 101}))
		r := fetch(t, f, Request{URL: s.URL + "/t", Format: FormatText, OmitMetadata: true})
		content := strings.TrimSuffix(r.Content, "\n\n[..content truncated..]")
		if !utf8.ValidString(content) || strings.HasSuffix(content, "\uFFFD") || content != strings.Repeat("a", 99) {
			t.Errorf("content %q", content)
		}
	})
	t.Run("E118_gzip_bomb_stops_at_limit", func(t *testing.T) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range 8 {
			zw.Write(chunk)
		}
		zw.Close()
		s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
		})
		var maxRead atomic.Int64
		limit := int64(64 << 10)
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithLimits(Limits{MaxTextBytes: limit}),
			WithProgress(func(_ string, read, _ int64) { maxRead.Store(read) }))
		r := fetch(t, f, Request{URL: s.URL + "/bomb"})
		if !r.BodyTruncated || maxRead.Load() > limit+1 {
			t.Errorf("truncated %v read %d, want ≤ %d", r.BodyTruncated, maxRead.Load(), limit+1)
		}
	})
	t.Run("E119_paging_from_cache", func(t *testing.T) {
		var body strings.Builder
		for i := 0; body.Len() < 250_000; i++ {
			body.WriteString("Paragraph " + strconv.Itoa(i) + " " + words(12) + "\n")
		}
		s := newTLSSite(t, serve(ptr("text/plain"), []byte(body.String())))
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		var got strings.Builder
		offset := 0
		for range 10 {
			r := fetch(t, f, Request{URL: s.URL + "/long", Offset: offset, OmitMetadata: true})
			content := r.Content
			if i := strings.Index(content, "\n\n[..content truncated"); i >= 0 {
				content = content[:i]
			}
			if utf8.RuneCountInString(content) > DefaultMaxOutputChars {
				t.Fatalf("window of %d code points", utf8.RuneCountInString(content))
			}
			got.WriteString(content)
			if !r.OutputTruncated {
				break
			}
			offset = r.NextOffset
		}
		if got.String() != collapseBlank(body.String()) {
			t.Errorf("windows do not reassemble the content")
		}
		if s.total() != 1 {
			t.Errorf("%d requests, want 1", s.total())
		}
	})
	t.Run("E120_offset_beyond_end", func(t *testing.T) {
		s := newTLSSite(t, serve(ptr("text/plain"), []byte("short text")))
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		_, err := f.Fetch(context.Background(), Request{URL: s.URL + "/", Offset: 50})
		if !errors.Is(err, ErrInvalidRequest) || err.Error() != "Invalid offset 50: the content has 10 characters" {
			t.Errorf("err %v", err)
		}
	})
	cuts := []struct {
		name string
		s    string
		max  int
		want string
	}{
		{name: "E121_cut_at_last_newline", s: strings.Repeat("x", 2990) + "\n" + strings.Repeat("y", 100), max: 3000, want: strings.Repeat("x", 2990) + "\n"},
		{name: "E121_cut_at_last_whitespace", s: strings.Repeat("x", 2990) + " " + strings.Repeat("y", 100), max: 3000, want: strings.Repeat("x", 2990) + " "},
		{name: "E121_newline_outside_tail_ignored", s: "a\n" + strings.Repeat("x", 2998) + " " + strings.Repeat("y", 100), max: 3000, want: "a\n" + strings.Repeat("x", 2998)},
		{name: "E121_no_break_cut_at_limit", s: strings.Repeat("é", 3100), max: 3000, want: strings.Repeat("é", 3000)},
	}
	for _, tc := range cuts {
		t.Run(tc.name, func(t *testing.T) {
			got, end := window(tc.s, 0, tc.max)
			if got != tc.want || end != utf8.RuneCountInString(tc.want) {
				t.Errorf("window = %q… (%d), end %d", got[:min(len(got), 10)], len(got), end)
			}
		})
	}
}
