//go:build cgo

package astsearch

import (
	"context"
	"flag"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var cacheGOROOT = flag.Bool("astsearch.cachegoroot", false, "TestTreeCacheSecondSearch over all of GOROOT/src instead of GOROOT/src/net (a minute)")

// gorootSearch is the `$A == nil` search of the cache tests and benchmarks over dir, with
// 2 workers, no caps, and cache (nil: none).
func gorootSearch(tb testing.TB, fsys fs.FS, dir string, cache *TreeCache) *Result {
	tb.Helper()
	r, err := Search(context.Background(), fsys, Request{Pattern: "$A == nil", Lang: Go, Threads: 2, Dir: dir, Cache: cache,
		MaxMatches: math.MaxInt, MaxOutputBytes: math.MaxInt})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestTreeCacheSecondSearch: the second `$A == nil` search of a Go tree in one process
// takes every tree from the cache, finds exactly what a search without the cache finds,
// and costs a fraction of the first (CPU time of the process, where the system reports it;
// the bound is generous, the figures are logged). GOROOT/src/net by default, all of
// GOROOT/src with -astsearch.cachegoroot.
func TestTreeCacheSecondSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("parses GOROOT/src/net three times")
	}
	dir := filepath.Join(runtime.GOROOT(), "src", "net")
	if *cacheGOROOT {
		dir = filepath.Join(runtime.GOROOT(), "src")
	}
	fsys := os.DirFS(dir)
	want := gorootSearch(t, fsys, dir, nil)
	cache := NewTreeCache(8 << 30)
	measure := func() (*Result, time.Duration, time.Duration) {
		c0, t0 := processCPU(), time.Now()
		r := gorootSearch(t, fsys, dir, cache)
		return r, processCPU() - c0, time.Since(t0)
	}
	first, cpu1, wall1 := measure()
	second, cpu2, wall2 := measure()
	for _, r := range []*Result{first, second} {
		if d := cmp.Diff(want, r, cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().String() == ".CacheHits" || p.Last().String() == ".CacheMisses" || p.Last().String() == ".CacheBytes"
		}, cmp.Ignore())); d != "" {
			t.Fatalf("a search with the cache differs from one without (-without +with):\n%s", d)
		}
	}
	if first.Stats.CacheMisses != first.Stats.Searched || first.Stats.CacheHits != 0 {
		t.Errorf("first search: %d misses, %d hits of %d searched; want every file parsed", first.Stats.CacheMisses, first.Stats.CacheHits, first.Stats.Searched)
	}
	if second.Stats.CacheHits != second.Stats.Searched || second.Stats.CacheMisses != 0 || second.Stats.Searched == 0 {
		t.Errorf("second search: %d hits, %d misses of %d searched; want every tree from the cache", second.Stats.CacheHits, second.Stats.CacheMisses, second.Stats.Searched)
	}
	t.Logf("%s: %d files listed, %d searched, %d matches; cache holds %d trees, %.1f MB",
		dir, second.Stats.Files, second.Stats.Searched, second.TotalMatches, cache.Stats().Entries, float64(second.Stats.CacheBytes)/1e6)
	t.Logf("first search (parses, fills the cache): wall %v, cpu %v; second: wall %v, cpu %v; ratio wall %.3f cpu %.3f",
		wall1.Round(time.Millisecond), cpu1.Round(time.Millisecond), wall2.Round(time.Millisecond), cpu2.Round(time.Millisecond),
		wall2.Seconds()/wall1.Seconds(), cpu2.Seconds()/max(cpu1.Seconds(), 1e-9))
	if cpu1 > 0 && cpu2.Seconds() > 0.5*cpu1.Seconds() {
		t.Errorf("the second search used %v of CPU, more than half the first's %v", cpu2, cpu1)
	}
}

// BenchmarkTreeCacheGOROOT: the `$A == nil` search of GOROOT/src (2 workers) without a
// cache, as the first search with an empty cache (every tree parsed whole and kept), and as
// a search that repeats (every tree from the cache; with the default budget, the two
// thirds that fit). $HARNESSKIT_CACHE_BENCH_DIR names another tree. Measured on 2 shared
// cores (load average 4 to 11), Go 1.26:
//
//	none                    8.85-9.67 s   175 MB/op   0.33 M allocs/op
//	first                   9.78-13.87 s  1.0 GB/op   0.55 M allocs/op  (741 MB of trees kept)
//	second-default-budget   2.54-2.55 s   188 MB/op   0.48 M allocs/op  (2,115 of 3,046 hits)
//	second                  0.28-0.52 s   188 MB/op   0.53 M allocs/op  (3,046 of 3,046 hits)
func BenchmarkTreeCacheGOROOT(b *testing.B) {
	dir := filepath.Join(runtime.GOROOT(), "src")
	if d := os.Getenv("HARNESSKIT_CACHE_BENCH_DIR"); d != "" {
		dir = d
	}
	fsys := os.DirFS(dir)
	report := func(b *testing.B, r *Result) {
		b.ReportMetric(float64(r.Stats.Searched), "searched")
		b.ReportMetric(float64(r.TotalMatches), "matches")
		b.ReportMetric(float64(r.Stats.CacheHits), "hits")
		b.ReportMetric(float64(r.Stats.CacheBytes)/1e6, "cacheMB")
	}
	b.Run("none", func(b *testing.B) {
		var r *Result
		for b.Loop() {
			r = gorootSearch(b, fsys, dir, nil)
		}
		report(b, r)
	})
	b.Run("first", func(b *testing.B) {
		var r *Result
		for b.Loop() {
			r = gorootSearch(b, fsys, dir, NewTreeCache(8<<30))
		}
		report(b, r)
	})
	b.Run("second-default-budget", func(b *testing.B) {
		// DefaultTreeCacheBytes holds about two thirds of these trees: the search reuses
		// those and parses the others for itself.
		cache := NewTreeCache(DefaultTreeCacheBytes)
		gorootSearch(b, fsys, dir, cache)
		var r *Result
		for b.Loop() {
			r = gorootSearch(b, fsys, dir, cache)
		}
		report(b, r)
	})
	b.Run("second", func(b *testing.B) {
		cache := NewTreeCache(8 << 30)
		gorootSearch(b, fsys, dir, cache)
		var r *Result
		for b.Loop() {
			r = gorootSearch(b, fsys, dir, cache)
		}
		report(b, r)
	})
}
