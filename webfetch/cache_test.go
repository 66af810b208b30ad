package webfetch

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// keptBytes counts, independently of the cache's own accounting, the bytes a stored outcome
// keeps: every string, byte slice and list element reachable from it (strings with equal
// content are counted once, as identical renderings share one charge).
func keptBytes(st *stored) int64 {
	seen := map[string]bool{}
	var walk func(v reflect.Value) int64
	walk = func(v reflect.Value) int64 {
		switch v.Kind() {
		case reflect.String:
			s := v.String()
			if seen[s] {
				return 0
			}
			seen[s] = true
			return int64(len(s))
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return int64(v.Len())
			}
			var n int64
			for i := range v.Len() {
				n += walk(v.Index(i))
			}
			return n
		case reflect.Pointer:
			if v.IsNil() {
				return 0
			}
			return walk(v.Elem())
		case reflect.Struct:
			var n int64
			for i := range v.NumField() {
				n += walk(v.Field(i))
			}
			return n
		}
		return 0
	}
	return walk(reflect.ValueOf(st))
}

// heldBytes is what the Fetcher's in-process cache really holds: keys and kept bytes of
// every live entry.
func heldBytes(f *Fetcher) (held int64, entries int) {
	m := mem(f)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.lru.Keys() {
		e, _ := m.lru.Peek(k)
		held += int64(len(k)) + keptBytes(e.st)
		entries++
	}
	return held, entries
}

// mem is the Fetcher's in-process cache.
func mem(f *Fetcher) *memoryCache { return f.cache.(*memoryCache) }

// entries returns the live entries of the in-process cache, most recent last.
func (c *memoryCache) entries() []*CacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*CacheEntry
	for _, k := range c.lru.Keys() {
		e, _ := c.lru.Peek(k)
		out = append(out, e)
	}
	return out
}

func (c *memoryCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Issue 23: a 1 MiB budget held more than 100 MiB, because titles, ETags, headings and keys
// were not charged. Every byte kept counts against the budget.
func TestCacheChargesEveryByteKept(t *testing.T) {
	const budget = 1 << 20
	title := strings.Repeat("T", 300<<10)
	etag := `"` + strings.Repeat("e", 300<<10) + `"`
	heading := strings.Repeat("h ", 150)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", strings.Repeat("L", 100<<10))
		var body strings.Builder
		for i := range 12 {
			fmt.Fprintf(&body, "<h2>%s%d</h2><p>%s</p>", heading, i, words(40))
		}
		fmt.Fprint(w, htmlPage(title, "<article>"+body.String()+"</article>"))
	})
	f, _, _ := testFetcher(t, WithCache(budget, time.Hour))
	for i := range 4 {
		fetch(t, f, Request{URL: fmt.Sprintf("%s/page-%d?%s", s.URL, i, strings.Repeat("q", 1500))})
	}
	held, n := heldBytes(f)
	if held > budget {
		t.Errorf("the cache holds %d bytes in %d entries, budget %d", held, n, budget)
	}
	if n == 0 {
		t.Errorf("nothing cached: an entry of about 700 KiB fits a 1 MiB budget")
	}
}

func TestCacheEntryEncoding(t *testing.T) {
	now := time.Date(2026, 2, 2, 12, 0, 0, 0, time.UTC)
	same := "# Docs\nbody"
	tests := []struct {
		name string
		st   *stored
	}{
		{name: "html_three_renderings", st: &stored{finalURL: "https://e.com/a", status: 200, source: SourceHTML, html: "<p>a</p>", markdown: "a", text: "a ",
			headings: []string{"A", "B"}, quality: []QualitySignal{SignalVeryShort}, redirects: []Hop{{From: "https://e.com/x", To: "https://e.com/a", Status: 302}},
			etag: `"v1"`, lastModified: "Mon, 02 Feb 2026 00:00:00 GMT", title: "T", extractedMain: true, wordCount: 1, contentLength: -1}},
		{name: "llms_one_string", st: &stored{usedLLMS: true, source: SourceLLMSTxt, markdown: same, text: same, headings: []string{}, quality: []QualitySignal{}, redirects: []Hop{}}},
		{name: "saved_binary", st: &stored{binary: &BinaryInfo{Kind: BinaryPDF, Saved: true, SavedPath: "/tmp/x.pdf", DownloadLimit: 10}, binBytes: []byte("%PDF-1.4\x00\xff"), filename: "x.pdf"}},
		{name: "empty_saved_binary", st: &stored{binary: &BinaryInfo{Kind: BinaryOther, Saved: true}, binBytes: []byte{}}},
		{name: "metadata_only_binary", st: &stored{binary: &BinaryInfo{Kind: BinaryImage, MetadataOnly: true}, truncated: true}},
		{name: "bytes_kept_exactly", st: &stored{markdown: "caf\xe9", text: "", etag: "\"\xff\x80\"", html: ""}},
		{name: "empty_text_differs", st: &stored{markdown: "m", text: ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEntry(tc.st, now, time.Minute, time.Hour)
			b, err := e.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got CacheEntry
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.st, e.st) {
				t.Errorf("content after a round trip:\n got %#v\nwant %#v", got.st, e.st)
			}
			if !got.StoredAt.Equal(e.StoredAt) || !got.KeepUntil.Equal(e.KeepUntil) || got.ETag != e.ETag || got.LastModified != e.LastModified || got.Size != e.Size {
				t.Errorf("fields after a round trip: %+v, want %+v", got, *e)
			}
		})
	}
	t.Run("rejects_other_versions_and_garbage", func(t *testing.T) {
		valid, _ := newEntry(&stored{markdown: "x"}, time.Unix(0, 0), time.Minute, time.Hour).MarshalBinary()
		savedNoBytes, _ := newEntry(&stored{binary: &BinaryInfo{Kind: BinaryPDF, Saved: true}}, time.Unix(0, 0), time.Minute, time.Hour).MarshalBinary()
		for _, b := range []string{"", "webfetch-entry-0\n" + string(valid[len(entryMagic):]), entryMagic + "{", entryMagic + "\xff\xff\xff",
			string(valid) + "x", string(valid[:len(valid)-3]), string(savedNoBytes)} {
			var e CacheEntry
			if err := e.UnmarshalBinary([]byte(b)); err == nil {
				t.Errorf("UnmarshalBinary(%q) accepted", b)
			}
		}
	})
	t.Run("entry_without_content", func(t *testing.T) {
		if _, err := (&CacheEntry{}).MarshalBinary(); err == nil {
			t.Error("MarshalBinary of an empty entry succeeded")
		}
	})
}

// FuzzCacheEntry: decoding never panics, and what decodes encodes and decodes to the same.
func FuzzCacheEntry(f *testing.F) {
	e := newEntry(&stored{markdown: "m", text: "t", html: "h", headings: []string{"x"}}, time.Unix(0, 0), time.Minute, time.Hour)
	b, _ := e.MarshalBinary()
	f.Add(b)
	b2, _ := newEntry(&stored{binary: &BinaryInfo{Kind: BinaryPDF, Saved: true}, binBytes: []byte{}, headings: []string{}}, time.Unix(0, 0), time.Minute, time.Hour).MarshalBinary()
	f.Add(b2)
	f.Add([]byte(entryMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e CacheEntry
		if err := e.UnmarshalBinary(data); err != nil {
			return
		}
		b, err := e.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var again CacheEntry
		if err := again.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.st, e.st) {
			t.Fatalf("second round trip differs")
		}
	})
}

// Fetchers that may reach different addresses never share entries, even in one store and
// for one tenant; identically configured Fetchers do.
func TestCacheStorePolicyFingerprint(t *testing.T) {
	s := newTLSSite(t, plainHandler("shared "+words(30)))
	shared := NewMemoryCache(0)
	dir := WithBinaryDir(t.TempDir()) // the binary directory is part of the policy
	strict, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithCacheStore(shared), dir)
	twin, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithCacheStore(shared), dir)
	private, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithCacheStore(shared), dir, WithSSRFPolicy(SSRFPolicy{AllowLoopback: true, AllowPrivate: true}))
	if strict.cfg.fingerprint == private.cfg.fingerprint {
		t.Fatalf("one fingerprint %s for two policies", strict.cfg.fingerprint)
	}
	fetch(t, strict, Request{URL: s.URL + "/doc"})
	if r := fetch(t, twin, Request{URL: s.URL + "/doc"}); !r.CacheHit {
		t.Errorf("an identically configured Fetcher missed the shared entry")
	}
	if r := fetch(t, private, Request{URL: s.URL + "/doc"}); r.CacheHit {
		t.Errorf("a Fetcher with another policy read the entry")
	}
	if s.count("/doc") != 2 {
		t.Errorf("%d requests, want 2", s.count("/doc"))
	}
	if _, err := New(WithCacheStore(nil)); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("WithCacheStore(nil): %v", err)
	}
}
