package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"code.dny.dev/ssrf"
	"pgregory.net/rapid"
)

var (
	publicAddrs = []string{"93.184.216.34", "8.8.8.8", "2606:4700::1111", "1.1.1.1"}
	deniedAddrs = []string{"127.0.0.1", "10.0.0.5", "169.254.169.254", "::1", "::ffff:10.0.0.1", "64:ff9b::7f00:1",
		"fc00::1", "100.64.0.1", "0.0.0.0", "192.168.1.1", "fe80::1", "224.0.0.1", "::ffff:127.0.0.1", "::127.0.0.1"}
)

// oracle is an independent implementation of the default policy (code.dny.dev/ssrf with any
// port allowed).
var oracle = ssrf.New(ssrf.WithAnyPort())

// TestPropertyNoRefusedAddressDialled: over random redirect chains across host names whose
// DNS answers change on every lookup, every address that reaches the dialer is one the policy
// (and the independent oracle) allows.
func TestPropertyNoRefusedAddressDialled(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		var i, n int
		var closeConn bool
		fmt.Sscanf(r.URL.Path, "/h/%d/%d/%t", &i, &n, &closeConn)
		if closeConn {
			w.Header().Set("Connection", "close")
		}
		if i < n {
			host := fmt.Sprintf("host%d.test", (i+1)%3)
			redirectTo(fmt.Sprintf("http://%s/h/%d/%d/%t", host, i+1, n, !closeConn), http.StatusFound)(w, r)
			return
		}
		plainHandler("end of chain")(w, r)
	})
	target := strings.TrimPrefix(s.URL, "http://")
	var dials, blocked atomic.Int64
	defer func() {
		// The property must not hold vacuously: some runs connect, some are refused.
		if dials.Load() == 0 || blocked.Load() == 0 {
			t.Errorf("dials %d, blocked runs %d: the generator does not exercise both sides", dials.Load(), blocked.Load())
		}
	}()
	rapid.Check(t, func(t *rapid.T) {
		res := &fakeResolver{}
		for h := range 3 {
			host := fmt.Sprintf("host%d.test", h)
			for range rapid.IntRange(1, 6).Draw(t, "answers") {
				pool := publicAddrs
				if rapid.Bool().Draw(t, "denied") {
					pool = deniedAddrs
				}
				a := rapid.SampledFrom(pool).Draw(t, "addr")
				if rapid.Bool().Draw(t, "two") {
					a += "," + rapid.SampledFrom(append(append([]string{}, publicAddrs...), deniedAddrs...)).Draw(t, "addr2")
				}
				res.set(host, a)
			}
		}
		rt := &routeAll{target: target}
		f, err := New(WithResolver(res), withRawDial(rt.dial), WithAllowPatterns("http://*.test/**"), WithoutCache())
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := rapid.IntRange(0, 12).Draw(t, "hops")
		_, err = f.Fetch(context.Background(), Request{URL: fmt.Sprintf("http://host0.test/h/0/%d/%t", n, rapid.Bool().Draw(t, "close")), Timeout: 5 * time.Second})
		if err != nil && !errors.Is(err, ErrBlocked) && !errors.Is(err, ErrTooManyRedirects) && !errors.Is(err, ErrTransport) {
			t.Fatalf("unexpected error %v", err)
		}
		if errors.Is(err, ErrBlocked) {
			blocked.Add(1)
		}
		dials.Add(int64(len(rt.list())))
		for _, a := range rt.list() {
			ap := netip.MustParseAddrPort(a)
			var p SSRFPolicy
			if reason := p.denyReason(ap.Addr()); reason != "" {
				t.Fatalf("dialled %s (%s)", a, reason)
			}
			network := "tcp4"
			if ap.Addr().Is6() {
				network = "tcp6"
			}
			if err := oracle.Safe(network, a, nil); err != nil {
				t.Fatalf("dialled %s, which the independent oracle refuses: %v", a, err)
			}
		}
	})
}

// TestPropertyPolicyAtLeastAsStrictAsOracle: every address the oracle refuses, the default
// policy refuses too.
func TestPropertyPolicyAtLeastAsStrictAsOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var addr netip.Addr
		if rapid.Bool().Draw(t, "v6") {
			b := rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "b16")
			addr = netip.AddrFrom16([16]byte(b))
		} else {
			b := rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "b4")
			addr = netip.AddrFrom4([4]byte(b))
		}
		network := "tcp4"
		if addr.Is6() {
			network = "tcp6"
		}
		var p SSRFPolicy
		if oracle.Safe(network, netip.AddrPortFrom(addr, 443).String(), nil) != nil && !addr.Is4In6() && p.denyReason(addr) == "" {
			t.Fatalf("%s refused by the oracle, admitted by the policy", addr)
		}
	})
}

// TestPropertyWindowBound: windows never exceed the limit, are valid UTF-8, and following
// next offsets reassembles the rendering exactly.
func TestPropertyWindowBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.SampledFrom([]rune{'a', 'b', ' ', '\n', 'é', '漢', '😀', '\t'})).Draw(t, "s")
		limit := rapid.IntRange(1, 5000).Draw(t, "limit")
		var got strings.Builder
		offset := 0
		total := utf8.RuneCountInString(s)
		for {
			win, end := window(s, offset, limit)
			if n := utf8.RuneCountInString(win); n > limit || !utf8.ValidString(win) {
				t.Fatalf("window of %d code points (limit %d)", n, limit)
			}
			if end <= offset && end < total {
				t.Fatalf("no progress at %d", offset)
			}
			got.WriteString(win)
			offset = end
			if end >= total {
				break
			}
		}
		if got.String() != s {
			t.Fatalf("windows do not reassemble the input")
		}
	})
}

// TestPropertyBodyBound: a text body is read through at most MaxTextBytes+1 bytes and the
// truncated flag is exact.
func TestPropertyBodyBound(t *testing.T) {
	var size atomic.Int64
	s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("ab\n", int(size.Load())/3+1)[:size.Load()]))
	})
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(0, 20000).Draw(t, "size")
		limit := rapid.Int64Range(1, 20000).Draw(t, "limit")
		size.Store(n)
		var maxRead atomic.Int64
		f, err := New(AllowLoopbackForTests(), WithHTTPClient(s.Client()), WithoutCache(),
			WithLimits(Limits{MaxTextBytes: limit}), WithProgress(func(_ string, read, _ int64) { maxRead.Store(read) }))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/"})
		if err != nil {
			t.Fatal(err)
		}
		if maxRead.Load() > max(limit+1, sniffWindow) {
			t.Fatalf("read %d bytes with limit %d", maxRead.Load(), limit)
		}
		if r.BodyTruncated != (n > limit) {
			t.Fatalf("truncated %v for %d bytes, limit %d", r.BodyTruncated, n, limit)
		}
	})
}

// TestPropertyCacheBudget: after every operation the accounted bytes are within budget and
// equal the sum of the live entries' charges.
func TestPropertyCacheBudget(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		budget := rapid.Int64Range(1, 5000).Draw(t, "budget")
		c := newMemoryCache(budget)
		ctx := context.Background()
		now := time.Unix(0, 0)
		for i := range rapid.IntRange(1, 60).Draw(t, "ops") {
			key := CacheKey{Tenant: rapid.SampledFrom([]string{"", "a"}).Draw(t, "tenant"), Target: fmt.Sprint("k", rapid.IntRange(0, 10).Draw(t, "key"))}
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0, 1:
				body := strings.Repeat("x", rapid.IntRange(0, 3000).Draw(t, "n"))
				st := &stored{markdown: body, text: body, html: body + "<", title: strings.Repeat("t", rapid.IntRange(0, 2000).Draw(t, "title")),
					etag: strings.Repeat("e", rapid.IntRange(0, 2000).Draw(t, "etag"))}
				_ = c.Put(ctx, key, newEntry(st, now, time.Minute, time.Hour))
			case 2:
				_, _ = c.Get(ctx, key)
			case 3:
				if e, _ := c.Get(ctx, key); e != nil {
					_ = c.Refresh(ctx, key, CacheRefresh{StoredAt: now, KeepUntil: now.Add(time.Hour),
						ETag: strings.Repeat("n", rapid.IntRange(0, 3000).Draw(t, "new")), OldETag: e.ETag, OldLastModified: e.LastModified})
				}
			case 4:
				now = now.Add(time.Duration(rapid.IntRange(0, 120).Draw(t, "sec")) * time.Second)
			}
			var sum int64
			c.mu.Lock()
			for _, k := range c.lru.Keys() {
				e, _ := c.lru.Peek(k)
				sum += charge(k, e)
				if e.Size < keptBytes(e.st) {
					t.Fatalf("op %d: entry charged %d but keeps %d bytes", i, e.Size, keptBytes(e.st))
				}
			}
			c.mu.Unlock()
			if c.total > budget || c.total != sum {
				t.Fatalf("op %d: total %d, live sum %d, budget %d", i, c.total, sum, budget)
			}
		}
	})
}

// TestPropertyCacheFreshness: with a fake clock and random sequences of fetches, clock
// advances and server changes, a result is served from the cache without a request exactly
// while the entry is younger than the TTL; afterwards every fetch makes a request, a
// conditional one when the entry has validators, and a 304 is the only way the stale entry
// is served.
func TestPropertyCacheFreshness(t *testing.T) {
	v := &versioned{}
	s := newTLSSite(t, v.ServeHTTP)
	const ttl = 10 * time.Minute
	rapid.Check(t, func(t *rapid.T) {
		v.set(func(v *versioned) {
			v.body, v.etag, v.lm, v.status, v.noStore = "v0 "+words(30), `"0"`, "", 0, false
			v.ifNoneMatch, v.ifModSince = nil, nil
		})
		clk := newClock()
		f, err := New(AllowLoopbackForTests(), WithHTTPClient(s.Client()), WithClock(clk), WithCache(1<<20, ttl))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var stored bool
		var storedAt time.Time
		var validators bool
		version := 0
		for i := range rapid.IntRange(1, 25).Draw(t, "ops") {
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				clk.Advance(time.Duration(rapid.IntRange(0, 20).Draw(t, "min")) * time.Minute)
			case 1:
				version++
				withTag := rapid.Bool().Draw(t, "etag")
				v.set(func(v *versioned) {
					v.body = fmt.Sprintf("v%d %s", version, words(30))
					v.etag = ""
					if withTag {
						v.etag = fmt.Sprintf(`"%d"`, version)
					}
				})
			case 2:
				before := s.total()
				r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/doc"})
				if err != nil {
					t.Fatalf("op %d: %v", i, err)
				}
				requested := s.total() > before
				fresh := stored && clk.Now().Sub(storedAt) < ttl
				switch {
				case fresh && (requested || !r.CacheHit || r.CacheRevalidated):
					t.Fatalf("op %d: fresh entry but requested=%v hit=%v", i, requested, r.CacheHit)
				case !fresh && !requested:
					t.Fatalf("op %d: stale or missing entry served without a request", i)
				case !fresh && r.CacheHit && !r.CacheRevalidated:
					t.Fatalf("op %d: stale entry served as a plain hit", i)
				}
				if !fresh {
					inm, _ := v.lastCond()
					if stored && validators && inm == "" {
						t.Fatalf("op %d: stale entry with validators revalidated without If-None-Match", i)
					}
					if r.CacheHit && !(stored && validators) {
						t.Fatalf("op %d: a hit without a stored validator", i)
					}
					stored, storedAt = true, clk.Now()
					v.mu.Lock()
					validators = v.etag != ""
					v.mu.Unlock()
				}
			}
		}
	})
}
