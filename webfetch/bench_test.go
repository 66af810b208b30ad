package webfetch

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/webfetch/internal/extract"
	"golang.org/x/net/html"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

func loadPages(b *testing.B) (names []string, bodies [][]byte) {
	b.Helper()
	for _, dir := range readabilityPages(b) {
		src, err := os.ReadFile(filepath.Join(dir, "source.html"))
		if err != nil {
			b.Fatal(err)
		}
		names = append(names, filepath.Base(dir))
		bodies = append(bodies, src)
	}
	return names, bodies
}

// BenchmarkExtract: decode + parse + main content + Markdown + text, one page per op.
func BenchmarkExtract(b *testing.B) {
	base, _ := url.Parse(pageBase)
	names, bodies := loadPages(b)
	for i, name := range names {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(bodies[i])))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := extractHTML(bodies[i], "text/html; charset=utf-8", base, false, DefaultMaxHeadings); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExtractCorpus: all pages per op; reports aggregate MB/s.
func BenchmarkExtractCorpus(b *testing.B) {
	base, _ := url.Parse(pageBase)
	_, bodies := loadPages(b)
	total := 0
	for _, body := range bodies {
		total += len(body)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, body := range bodies {
			if _, err := extractHTML(body, "text/html; charset=utf-8", base, false, DefaultMaxHeadings); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkPathological(b *testing.B) {
	base, _ := url.Parse(pageBase)
	cases := map[string][]byte{
		"nested-10000":  []byte(strings.Repeat("<div>", 10000) + "deep text" + strings.Repeat("</div>", 10000)),
		"textnode-5MiB": []byte("<html><body><p>" + strings.Repeat("word ", 5<<20/5) + "</p></body></html>"),
	}
	for name, body := range cases {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := extractHTML(body, "text/html", base, false, DefaultMaxHeadings); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFetchLoopback: the whole pipeline against a TLS httptest server.
func BenchmarkFetchLoopback(b *testing.B) {
	page, err := os.ReadFile(filepath.Join("testdata", "readability", "001", "source.html"))
	if err != nil {
		b.Fatal(err)
	}
	mk := func(b *testing.B, etag bool) (*Fetcher, *fakeClock, string) {
		s := newTLSSite(&testing.T{}, func(w http.ResponseWriter, r *http.Request) {
			if etag {
				w.Header().Set("ETag", `"x"`)
				if r.Header.Get("If-None-Match") == `"x"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
		})
		b.Cleanup(s.Close)
		clk := newClock()
		f, err := New(AllowLoopbackForTests(), WithHTTPClient(s.Client()), WithClock(clk))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		return f, clk, s.URL + "/page"
	}
	ctx := context.Background()
	b.Run("miss", func(b *testing.B) {
		f, clk, u := mk(b, false)
		b.ReportAllocs()
		for b.Loop() {
			clk.Advance(time.Hour)
			if _, err := f.Fetch(ctx, Request{URL: u}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hit", func(b *testing.B) {
		f, _, u := mk(b, false)
		if _, err := f.Fetch(ctx, Request{URL: u}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			r, err := f.Fetch(ctx, Request{URL: u})
			if err != nil || !r.CacheHit {
				b.Fatal(err)
			}
		}
	})
	b.Run("revalidate", func(b *testing.B) {
		f, clk, u := mk(b, true)
		if _, err := f.Fetch(ctx, Request{URL: u}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			clk.Advance(time.Hour)
			r, err := f.Fetch(ctx, Request{URL: u})
			if err != nil || !r.CacheRevalidated {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFetch5MB: memory per fetch of a 5 MB HTML page (see B/op).
func BenchmarkFetch5MB(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<html><head><title>Big</title></head><body><article>")
	for i := 0; sb.Len() < 5<<20; i++ {
		sb.WriteString("<p>This is a long paragraph of article text that repeats to make a large page for the memory benchmark.</p>\n")
	}
	sb.WriteString("</article></body></html>")
	page := []byte(sb.String())
	s := newTLSSite(&testing.T{}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	b.Cleanup(s.Close)
	f, err := New(AllowLoopbackForTests(), WithHTTPClient(s.Client()), WithoutCache())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Fetch(context.Background(), Request{URL: s.URL + "/big"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarkdown and BenchmarkText: the renderings alone on pre-extracted articles.
func BenchmarkMarkdown(b *testing.B) {
	nodes, total := articleNodes(b)
	base, _ := url.Parse(pageBase)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range nodes {
			if _, err := extract.Markdown(n, base); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkText(b *testing.B) {
	nodes, total := articleNodes(b)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range nodes {
			_ = extract.Text(n)
		}
	}
}

func articleNodes(b *testing.B) ([]*html.Node, int64) {
	base, _ := url.Parse(pageBase)
	_, bodies := loadPages(b)
	var nodes []*html.Node
	var total int64
	for _, body := range bodies {
		ex, err := extractHTML(body, "text/html; charset=utf-8", base, false, DefaultMaxHeadings)
		if err != nil {
			b.Fatal(err)
		}
		nodes = append(nodes, ex.node)
		total += int64(len(body))
	}
	return nodes, total
}

// BenchmarkDecode: 1 MiB bodies in three encodings.
func BenchmarkDecode(b *testing.B) {
	text := strings.Repeat("日本語と中文のテキスト、English words too. ", 1<<20/60)
	sjis, _ := japanese.ShiftJIS.NewEncoder().Bytes([]byte(text))
	gbk, _ := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(strings.ReplaceAll(text, "と", "")))
	cases := []struct {
		name, ct string
		body     []byte
	}{
		{"utf8", "text/plain; charset=utf-8", []byte(text)},
		{"shift_jis", "text/plain; charset=shift_jis", sjis},
		{"gbk", "text/plain; charset=gbk", gbk},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				_ = decodeBody(c.body, c.ct, false, false)
			}
		})
	}
}

// BenchmarkRender: frontmatter and window on a 1 MiB Markdown result.
func BenchmarkRender(b *testing.B) {
	md := strings.Repeat("A line of Markdown text with *emphasis* and a [link](https://x.org).\n", 1<<20/70)
	st := &stored{finalURL: "https://x.org/", status: 200, source: SourceText, markdown: md, text: md, quality: []QualitySignal{}}
	f, err := New()
	if err != nil {
		b.Fatal(err)
	}
	c, _ := f.prepare(Request{URL: "https://x.org/"})
	b.SetBytes(int64(len(md)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := f.present(context.Background(), c, st)
		if err != nil {
			b.Fatal(err)
		}
		_ = Render(r)
	}
}

// BenchmarkCache: get and put with byte accounting in the in-process cache (run with
// -cpu 1,4).
func BenchmarkCache(b *testing.B) {
	c := newMemoryCache(DefaultCacheBytes)
	body := strings.Repeat("x", 4096)
	now := time.Unix(0, 0)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			key := CacheKey{Target: "k" + strconv.Itoa(i%512)}
			if e, _ := c.Get(ctx, key); e == nil {
				_ = c.Put(ctx, key, newEntry(&stored{markdown: body, text: body}, now, time.Minute, time.Hour))
			}
			i++
		}
	})
}
