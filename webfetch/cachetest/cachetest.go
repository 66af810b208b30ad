// Package cachetest checks implementations of [webfetch.Cache], as testing/fstest checks
// file systems. A store shared by several host processes (Redis, a database) runs [Run]
// from its tests and gets the behaviour webfetch relies on checked, including what a real
// Fetcher does through it.
package cachetest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/webfetch"
)

// Run checks c as webfetch uses it. open must return a new, empty cache (or one whose keys
// cannot collide with earlier calls) each time it is called; Run calls it once per subtest.
//
// The checks: a miss is (nil, nil); Put then Get returns an entry that encodes to the same
// bytes (content and exported fields); Put replaces; keys that differ only in Tenant, Policy
// or Target never share an entry; Refresh renews StoredAt, KeepUntil and the validators in
// place and keeps the content, and does nothing when the old validators do not match or the
// key is missing; concurrent Put, Get and Refresh (run with -race) only ever return entries
// that were stored; and a real Fetcher over the cache makes no request for a fresh hit,
// revalidates a stale entry with its ETag, serves the 304 from the entry, and keeps tenants
// apart.
func Run(t *testing.T, open func(t *testing.T) webfetch.Cache) {
	t.Helper()
	ctx := context.Background()
	entries := sampleEntries(t, 3)

	t.Run("miss", func(t *testing.T) {
		c := open(t)
		e, err := c.Get(ctx, webfetch.CacheKey{Tenant: "t", Policy: "0123456789abcdef", Target: "https://example.com/ main auto"})
		if e != nil || err != nil {
			t.Fatalf("Get of a missing key = %v, %v; want nil, nil", e, err)
		}
	})

	t.Run("round_trip", func(t *testing.T) {
		c := open(t)
		for i, s := range entries {
			if err := c.Put(ctx, s.key, s.entry); err != nil {
				t.Fatalf("Put %d: %v", i, err)
			}
		}
		for i, s := range entries {
			got := mustGet(t, c, s.key)
			if got == nil {
				t.Fatalf("entry %d missing after Put", i)
			}
			sameEntry(t, got, s.entry)
		}
	})

	t.Run("replace", func(t *testing.T) {
		c := open(t)
		k := entries[0].key
		put(t, c, k, entries[0].entry)
		put(t, c, k, entries[1].entry)
		got := mustGet(t, c, k)
		if got == nil {
			t.Fatal("entry missing after a second Put")
		}
		sameEntry(t, got, entries[1].entry)
	})

	t.Run("keys_separate", func(t *testing.T) {
		c := open(t)
		base := entries[0].key
		keys := []webfetch.CacheKey{
			base,
			{Tenant: base.Tenant + "x", Policy: base.Policy, Target: base.Target},
			{Tenant: base.Tenant, Policy: strings.Repeat("f", 16), Target: base.Target},
			{Tenant: base.Tenant, Policy: base.Policy, Target: base.Target + "?x"},
			// Field boundaries cannot be confused: "a:b" + "c" is not "a" + "b:c".
			{Tenant: "a:b", Policy: base.Policy, Target: "c"},
			{Tenant: "a", Policy: base.Policy, Target: "b:c"},
		}
		for i, k := range keys {
			put(t, c, k, entries[i%len(entries)].entry)
		}
		for i, k := range keys {
			got := mustGet(t, c, k)
			if got == nil {
				t.Fatalf("key %d (%q) lost", i, k.String())
			}
			sameEntry(t, got, entries[i%len(entries)].entry)
		}
	})

	t.Run("refresh_in_place", func(t *testing.T) {
		c := open(t)
		s := entries[0]
		put(t, c, s.key, s.entry)
		r := webfetch.CacheRefresh{
			StoredAt: s.entry.StoredAt.Add(time.Hour), KeepUntil: s.entry.KeepUntil.Add(time.Hour),
			ETag: `"refreshed"`, LastModified: "Tue, 03 Feb 2026 00:00:00 GMT",
			OldETag: s.entry.ETag, OldLastModified: s.entry.LastModified,
		}
		if err := c.Refresh(ctx, s.key, r); err != nil {
			t.Fatalf("Refresh: %v", err)
		}
		got := mustGet(t, c, s.key)
		if got == nil {
			t.Fatal("entry missing after Refresh")
		}
		if !got.StoredAt.Equal(r.StoredAt) || !got.KeepUntil.Equal(r.KeepUntil) || got.ETag != r.ETag || got.LastModified != r.LastModified {
			t.Errorf("after Refresh: stored %v keep %v etag %q lm %q; want %v %v %q %q",
				got.StoredAt, got.KeepUntil, got.ETag, got.LastModified, r.StoredAt, r.KeepUntil, r.ETag, r.LastModified)
		}
		// The content is what was stored: the same encoding once the refreshed fields are
		// set back.
		back := *got
		back.StoredAt, back.KeepUntil, back.ETag, back.LastModified = s.entry.StoredAt, s.entry.KeepUntil, s.entry.ETag, s.entry.LastModified
		sameContent(t, &back, s.entry)
	})

	t.Run("refresh_needs_matching_validators", func(t *testing.T) {
		c := open(t)
		s := entries[0]
		put(t, c, s.key, s.entry)
		err := c.Refresh(ctx, s.key, webfetch.CacheRefresh{
			StoredAt: s.entry.StoredAt.Add(time.Hour), KeepUntil: s.entry.KeepUntil.Add(time.Hour),
			ETag: `"other"`, OldETag: `"not-the-stored-one"`, OldLastModified: s.entry.LastModified,
		})
		if err != nil {
			t.Fatalf("Refresh: %v", err)
		}
		got := mustGet(t, c, s.key)
		if got == nil {
			t.Fatal("entry missing after a mismatched Refresh")
		}
		sameEntry(t, got, s.entry)
	})

	t.Run("refresh_missing_key", func(t *testing.T) {
		c := open(t)
		s := entries[0]
		if err := c.Refresh(ctx, s.key, webfetch.CacheRefresh{StoredAt: time.Now(), OldETag: s.entry.ETag, OldLastModified: s.entry.LastModified}); err != nil {
			t.Fatalf("Refresh of a missing key: %v", err)
		}
		if got := mustGet(t, c, s.key); got != nil {
			t.Fatalf("Refresh created an entry")
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		c := open(t)
		want := map[string]bool{}
		for _, s := range entries {
			want[encode(t, s.entry)] = true
		}
		keys := []webfetch.CacheKey{entries[0].key, entries[1].key}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := range 8 {
			wg.Go(func() {
				for i := range 100 {
					k := keys[(g+i)%len(keys)]
					switch i % 3 {
					case 0:
						if err := c.Put(ctx, k, entries[(g+i)%len(entries)].entry); err != nil {
							errs <- err
							return
						}
					case 1:
						e, err := c.Get(ctx, k)
						if err != nil {
							errs <- err
							return
						}
						if e != nil {
							b, err := e.MarshalBinary()
							if err != nil || !want[string(b)] {
								errs <- fmt.Errorf("Get returned an entry that was never stored (%v)", err)
								return
							}
						}
					case 2:
						// Mismatched validators: never changes anything.
						if err := c.Refresh(ctx, k, webfetch.CacheRefresh{OldETag: "\x00never"}); err != nil {
							errs <- err
							return
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("fetcher", func(t *testing.T) { fetcherChecks(t, open(t)) })
}

// sample is an entry a real Fetcher stored, with its key.
type sample struct {
	key   webfetch.CacheKey
	entry *webfetch.CacheEntry
}

// recorder passes calls through to a cache and records what was Put.
type recorder struct {
	webfetch.Cache
	mu   sync.Mutex
	puts []sample
}

func (r *recorder) Put(ctx context.Context, k webfetch.CacheKey, e *webfetch.CacheEntry) error {
	r.mu.Lock()
	cp := *e
	r.puts = append(r.puts, sample{k, &cp})
	r.mu.Unlock()
	return r.Cache.Put(ctx, k, e)
}

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// site serves an article per path with an ETag, answering If-None-Match with 304, and counts
// requests.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	cond     []string
}

func newSite(t *testing.T) *site {
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		s.cond = append(s.cond, r.Header.Get("If-None-Match"))
		s.mu.Unlock()
		etag := `"` + strings.Trim(r.URL.Path, "/") + `-v1"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", "Mon, 02 Feb 2026 00:00:00 GMT")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		p := strings.Repeat("<p>The page "+r.URL.Path+" has enough words in each paragraph to count as the main content of an article.</p>", 5)
		fmt.Fprintf(w, "<!doctype html><html><head><title>Page %s</title></head><body><nav>Home</nav><article><h1>Page %s</h1><h2>Part</h2>%s</article></body></html>", r.URL.Path, r.URL.Path, p)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *site) lastCond() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cond[len(s.cond)-1]
}

// sampleEntries has a real Fetcher store n pages in an in-process cache and returns them.
func sampleEntries(t *testing.T, n int) []sample {
	t.Helper()
	s := newSite(t)
	rec := &recorder{Cache: webfetch.NewMemoryCache(0)}
	clk := &clock{now: time.Date(2026, 2, 2, 12, 0, 0, 0, time.UTC)}
	f, err := webfetch.New(webfetch.AllowLoopbackForTests(), webfetch.WithCacheStore(rec), webfetch.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := range n {
		if _, err := f.Fetch(context.Background(), webfetch.Request{URL: fmt.Sprintf("%s/page-%d", s.URL, i), Tenant: "tenant-1"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.puts) != n {
		t.Fatalf("the Fetcher stored %d entries for %d pages", len(rec.puts), n)
	}
	return rec.puts
}

func put(t *testing.T, c webfetch.Cache, k webfetch.CacheKey, e *webfetch.CacheEntry) {
	t.Helper()
	if err := c.Put(context.Background(), k, e); err != nil {
		t.Fatalf("Put(%q): %v", k.String(), err)
	}
}

func mustGet(t *testing.T, c webfetch.Cache, k webfetch.CacheKey) *webfetch.CacheEntry {
	t.Helper()
	e, err := c.Get(context.Background(), k)
	if err != nil {
		t.Fatalf("Get(%q): %v", k.String(), err)
	}
	return e
}

func encode(t *testing.T, e *webfetch.CacheEntry) string {
	t.Helper()
	b, err := e.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary: %v", err)
	}
	return string(b)
}

func sameEntry(t *testing.T, got, want *webfetch.CacheEntry) {
	t.Helper()
	if !got.StoredAt.Equal(want.StoredAt) || !got.KeepUntil.Equal(want.KeepUntil) || got.ETag != want.ETag || got.LastModified != want.LastModified {
		t.Errorf("entry fields: stored %v keep %v etag %q lm %q; want %v %v %q %q",
			got.StoredAt, got.KeepUntil, got.ETag, got.LastModified, want.StoredAt, want.KeepUntil, want.ETag, want.LastModified)
	}
	sameContent(t, got, want)
}

func sameContent(t *testing.T, got, want *webfetch.CacheEntry) {
	t.Helper()
	// Times may come back in another location; compare their instants, then the rest.
	g, w := *got, *want
	g.StoredAt, g.KeepUntil = w.StoredAt, w.KeepUntil
	if gb, wb := encode(t, &g), encode(t, &w); !bytes.Equal([]byte(gb), []byte(wb)) {
		t.Errorf("entry content differs from what was stored (%d vs %d encoded bytes)", len(gb), len(wb))
	}
}

// fetcherChecks drives a real Fetcher over c.
func fetcherChecks(t *testing.T, c webfetch.Cache) {
	s := newSite(t)
	clk := &clock{now: time.Date(2026, 2, 2, 12, 0, 0, 0, time.UTC)}
	f, err := webfetch.New(webfetch.AllowLoopbackForTests(), webfetch.WithCacheStore(c), webfetch.WithClock(clk), webfetch.WithCache(0, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	get := func(tenant string) *webfetch.Result {
		t.Helper()
		r, err := f.Fetch(context.Background(), webfetch.Request{URL: s.URL + "/doc", Tenant: tenant})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := get("a"); r.CacheHit || s.count() != 1 {
		t.Fatalf("first fetch: hit %v, %d requests", r.CacheHit, s.count())
	}
	if r := get("a"); !r.CacheHit || s.count() != 1 {
		t.Fatalf("fresh entry: hit %v, %d requests (want a hit and no request)", r.CacheHit, s.count())
	}
	if r := get("b"); r.CacheHit || s.count() != 2 {
		t.Fatalf("another tenant: hit %v, %d requests (tenants must not share entries)", r.CacheHit, s.count())
	}
	clk.advance(2 * time.Minute)
	r := get("a")
	if s.count() != 3 || s.lastCond() != `"doc-v1"` || !r.CacheRevalidated || !r.CacheHit {
		t.Fatalf("stale entry: %d requests, If-None-Match %q, revalidated %v hit %v", s.count(), s.lastCond(), r.CacheRevalidated, r.CacheHit)
	}
	if !strings.Contains(r.Content, "has enough words") {
		t.Fatalf("revalidated content lost: %q", r.Content)
	}
	if r := get("a"); !r.CacheHit || r.CacheRevalidated || s.count() != 3 {
		t.Fatalf("after a 304 the entry is fresh again: hit %v revalidated %v, %d requests", r.CacheHit, r.CacheRevalidated, s.count())
	}
}
