package webfetch

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEdgeCacheCharges(t *testing.T) {
	same := strings.Repeat("s", 100)
	tests := []struct {
		name string
		st   *stored
		want int64
	}{
		{name: "E8_llms_one_string_charged_once", st: &stored{usedLLMS: true, markdown: same, text: same}, want: 100},
		{name: "E9_equal_renderings_distinct_strings", st: &stored{markdown: strings.Repeat("s", 100), text: string([]byte(same))}, want: 100},
		{name: "E10_three_renderings_summed", st: &stored{html: "<p>abc</p>", markdown: "**abc**", text: "abc"}, want: 10 + 7 + 3},
		{name: "E11_saved_binary_by_size", st: &stored{binary: &BinaryInfo{Saved: true}, binBytes: make([]byte, 4096)}, want: 4096},
		{name: "E12_binary_without_bytes", st: &stored{binary: &BinaryInfo{MetadataOnly: true}}, want: 1024},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Every entry also pays a fixed overhead for its bookkeeping.
			if got := tc.st.size(); got != tc.want+entryOverhead {
				t.Errorf("charge %d, want %d + %d overhead", got, tc.want, entryOverhead)
			}
		})
	}
	t.Run("E13_budget_eviction", func(t *testing.T) {
		c := newMemoryCache(20 << 20)
		now := time.Now()
		body := strings.Repeat("x", 128<<10)
		for i := range 500 {
			_ = c.Put(context.Background(), CacheKey{Target: fmt.Sprint("k", i)}, newEntry(&stored{markdown: body, text: body}, now, time.Minute, time.Hour))
			if c.total > c.budget {
				t.Fatalf("total %d over budget after insert %d", c.total, i)
			}
		}
		if n := c.len(); n < 150 || n > 161 {
			t.Errorf("%d entries remain, want 150–161", n)
		}
	})
}

// versioned is a handler whose answers the test controls; it records conditional headers.
type versioned struct {
	mu          sync.Mutex
	body        string
	etag, lm    string
	status      int // 0 = normal
	noStore     bool
	ifNoneMatch []string
	ifModSince  []string
}

func (v *versioned) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.ifNoneMatch = append(v.ifNoneMatch, r.Header.Get("If-None-Match"))
	v.ifModSince = append(v.ifModSince, r.Header.Get("If-Modified-Since"))
	if v.status != 0 {
		w.WriteHeader(v.status)
		return
	}
	if v.etag != "" {
		w.Header().Set("ETag", v.etag)
	}
	if v.lm != "" {
		w.Header().Set("Last-Modified", v.lm)
	}
	if v.noStore {
		w.Header().Set("Cache-Control", "no-store")
	}
	if v.etag != "" && r.Header.Get("If-None-Match") == v.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprint(w, v.body)
}

func (v *versioned) set(fn func(*versioned)) {
	v.mu.Lock()
	fn(v)
	v.mu.Unlock()
}

func (v *versioned) lastCond() (string, string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ifNoneMatch[len(v.ifNoneMatch)-1], v.ifModSince[len(v.ifModSince)-1]
}

func TestEdgeRevalidation(t *testing.T) {
	setup := func(t *testing.T, v *versioned) (*Fetcher, *fakeClock, *site, string) {
		s := newTLSSite(t, v.ServeHTTP)
		f, clk, _ := testFetcher(t, WithHTTPClient(s.Client()))
		return f, clk, s, s.URL + "/doc"
	}
	t.Run("E21_conditional_headers_only_when_stale", func(t *testing.T) {
		v := &versioned{body: "v1 " + words(30), etag: `"v1"`, lm: "Mon, 01 Jan 2026 00:00:00 GMT"}
		f, clk, s, u := setup(t, v)
		fetch(t, f, Request{URL: u})
		if inm, ims := v.lastCond(); inm != "" || ims != "" {
			t.Errorf("first request carried %q %q", inm, ims)
		}
		fetch(t, f, Request{URL: u})
		if s.total() != 1 {
			t.Errorf("fresh entry made a request")
		}
		clk.Advance(DefaultCacheTTL + time.Second)
		v.set(func(v *versioned) { v.etag = `"v2"` })
		fetch(t, f, Request{URL: u})
		if inm, ims := v.lastCond(); inm != `"v1"` || ims != "Mon, 01 Jan 2026 00:00:00 GMT" {
			t.Errorf("stale request carried %q %q", inm, ims)
		}
	})
	t.Run("E97_304_refreshes", func(t *testing.T) {
		v := &versioned{body: "v1 " + words(30), etag: `"v1"`}
		f, clk, s, u := setup(t, v)
		fetch(t, f, Request{URL: u})
		clk.Advance(DefaultCacheTTL + time.Second)
		r := fetch(t, f, Request{URL: u})
		if !r.CacheHit || !r.CacheRevalidated || r.UpstreamStatus != 304 || r.StatusCode != 200 {
			t.Fatalf("hit %v revalidated %v upstream %d status %d", r.CacheHit, r.CacheRevalidated, r.UpstreamStatus, r.StatusCode)
		}
		if out := Render(r); !strings.Contains(out, "cache_revalidated: true") || !strings.Contains(out, "upstream_status_code: 304") {
			t.Errorf("render:\n%s", out)
		}
		clk.Advance(time.Minute)
		fetch(t, f, Request{URL: u})
		if s.total() != 2 {
			t.Errorf("%d requests, want 2 (renewed entry is fresh)", s.total())
		}
	})
	t.Run("E98_200_replaces", func(t *testing.T) {
		v := &versioned{body: "old " + words(30), etag: `"v1"`}
		f, clk, _, u := setup(t, v)
		fetch(t, f, Request{URL: u})
		clk.Advance(DefaultCacheTTL)
		v.set(func(v *versioned) { v.etag, v.body = `"v2"`, "new "+words(30) })
		r := fetch(t, f, Request{URL: u})
		if r.CacheHit || !strings.HasPrefix(r.Content, "new") {
			t.Fatalf("hit %v content %q", r.CacheHit, r.Content[:10])
		}
		if r2 := fetch(t, f, Request{URL: u}); !r2.CacheHit || !strings.HasPrefix(r2.Content, "new") {
			t.Errorf("entry not replaced")
		}
	})
	t.Run("E99_stale_without_validators_removed", func(t *testing.T) {
		v := &versioned{body: "plain " + words(30)}
		f, clk, s, u := setup(t, v)
		fetch(t, f, Request{URL: u})
		clk.Advance(DefaultCacheTTL + time.Second)
		r := fetch(t, f, Request{URL: u})
		if r.CacheHit || s.total() != 2 {
			t.Errorf("hit %v requests %d", r.CacheHit, s.total())
		}
		if inm, ims := v.lastCond(); inm != "" || ims != "" {
			t.Errorf("conditional headers %q %q without validators", inm, ims)
		}
		if r := fetch(t, f, Request{URL: u}); !r.CacheHit {
			t.Errorf("new entry not stored")
		}
	})
	t.Run("E100_error_keeps_stale_entry", func(t *testing.T) {
		v := &versioned{body: "v1 " + words(30), etag: `"v1"`}
		f, clk, _, u := setup(t, v)
		fetch(t, f, Request{URL: u})
		clk.Advance(DefaultCacheTTL + time.Second)
		v.set(func(v *versioned) { v.status = 503 })
		_, err := f.Fetch(context.Background(), Request{URL: u})
		if err == nil || err.Error() != "Request failed with status code: 503" {
			t.Fatalf("err %v", err)
		}
		v.set(func(v *versioned) { v.status = 0 })
		r := fetch(t, f, Request{URL: u})
		if !r.CacheRevalidated {
			t.Errorf("next call did not revalidate the kept entry")
		}
	})
	t.Run("E101_exactly_ttl_is_stale", func(t *testing.T) {
		v := &versioned{body: "v1 " + words(30), etag: `"v1"`}
		f, clk, s, u := setup(t, v)
		fetch(t, f, Request{URL: u})
		clk.Advance(DefaultCacheTTL)
		r := fetch(t, f, Request{URL: u})
		if s.total() != 2 || !r.CacheRevalidated {
			t.Errorf("requests %d revalidated %v", s.total(), r.CacheRevalidated)
		}
	})
	t.Run("E102_no_store", func(t *testing.T) {
		v := &versioned{body: "secret " + words(30), noStore: true}
		f, _, s, u := setup(t, v)
		fetch(t, f, Request{URL: u})
		fetch(t, f, Request{URL: u})
		if s.total() != 2 {
			t.Errorf("%d requests, want 2", s.total())
		}
	})
	t.Run("E138_stored_under_final_url", func(t *testing.T) {
		s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/old" {
				redirectTo("/new", http.StatusMovedPermanently)(w, r)
				return
			}
			plainHandler("moved "+words(30))(w, r)
		})
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		fetch(t, f, Request{URL: s.URL + "/old"})
		r := fetch(t, f, Request{URL: s.URL + "/new"})
		if !r.CacheHit || s.count("/new") != 1 {
			t.Errorf("hit %v /new requests %d", r.CacheHit, s.count("/new"))
		}
	})
	t.Run("E139_concurrent_fetches", func(t *testing.T) {
		s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
			plainHandler("page "+r.URL.Path+" "+strings.Repeat("z", 4000))(w, r)
		})
		budget := int64(60_000)
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithCache(budget, time.Minute))
		var wg sync.WaitGroup
		var bad atomic.Int32
		for i := range 50 {
			wg.Go(func() {
				p := fmt.Sprintf("/p%d", i)
				r, err := f.Fetch(context.Background(), Request{URL: s.URL + p})
				if err != nil || !strings.HasPrefix(r.Content, "page "+p+" ") {
					bad.Add(1)
				}
			})
		}
		wg.Wait()
		m := mem(f)
		m.mu.Lock()
		total := m.total
		m.mu.Unlock()
		if bad.Load() != 0 || total > budget {
			t.Errorf("%d bad results, cache total %d > %d", bad.Load(), total, budget)
		}
	})
}
