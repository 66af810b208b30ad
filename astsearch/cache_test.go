package astsearch

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
	"github.com/harnesskit/harnesskit/wfs"
)

// Texts with committed fixture trees; sameSizeA and sameSizeB have the same length.
const (
	sameSizeA = "console.log($A)"
	sameSizeB = "logger.info($A)"
)

// writeFiles writes name → content under dir, every file with the modification time at.
func writeFiles(t fataler, dir string, files map[string]string, at time.Time) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// cacheSearch searches dir for pattern in JavaScript with the fixture backend counting the
// parses of files (the pattern's own parse is not counted), with cache (nil: none).
func cacheSearch(t fataler, dir, pattern string, cache *TreeCache) (*Result, int64) {
	t.Helper()
	return cacheSearchReq(t, dir, Request{Pattern: pattern}, cache)
}

// cacheSearchReq is cacheSearch with the other fields of req.
func cacheSearchReq(t fataler, dir string, req Request, cache *TreeCache) (*Result, int64) {
	t.Helper()
	var parses atomic.Int64
	req.Lang, req.Backend, req.Cache, req.Dir = JavaScript, countingBackend(&parses), cache, dir
	req.MaxMatches, req.MaxOutputBytes = math.MaxInt, math.MaxInt
	res, err := Search(context.Background(), os.DirFS(dir), req)
	if err != nil {
		t.Fatal(err)
	}
	return res, parses.Load() - 1
}

// fataler is what the helpers need of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

var stamp = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func TestTreeCacheReuses(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.js": srcApp, "b/util.js": srcUtil, "b/three.js": srcThree, "c.js": sameSizeA, "empty.js": ""}, stamp)
	cache := NewTreeCache(DefaultTreeCacheBytes)
	want, _ := cacheSearch(t, dir, "console.log($A)", nil)
	first, parsed := cacheSearch(t, dir, "console.log($A)", cache)
	if parsed != 4 || first.Stats.CacheMisses != 4 || first.Stats.CacheHits != 0 {
		t.Errorf("first search: %d parses, %d misses, %d hits; want 4, 4, 0", parsed, first.Stats.CacheMisses, first.Stats.CacheHits)
	}
	// A second pattern reuses the trees the first one parsed.
	hits := uint64(0)
	for _, p := range []string{"console.log($A)", "console.log($$$)", "foo($$$)"} {
		noCache, _ := cacheSearch(t, dir, p, nil)
		got, parsed := cacheSearch(t, dir, p, cache)
		if d := cmp.Diff(noCache.Matches, got.Matches); d != "" {
			t.Errorf("%s: matches with the cache differ (-without +with):\n%s", p, d)
		}
		if parsed != 0 || got.Stats.CacheHits != got.Stats.Searched || got.Stats.CacheMisses != 0 {
			t.Errorf("%s: %d parses, %d hits of %d searched, %d misses; want every file from the cache", p, parsed, got.Stats.CacheHits, got.Stats.Searched, got.Stats.CacheMisses)
		}
		hits += uint64(got.Stats.CacheHits)
	}
	if d := cmp.Diff(want.Matches, first.Matches); d != "" {
		t.Errorf("first search with the cache differs (-without +with):\n%s", d)
	}
	s := cache.Stats()
	if s.Entries != 4 || first.Stats.CacheBytes <= 0 || s.Bytes != first.Stats.CacheBytes || s.Hits != hits || hits < 8 || s.Misses != 4 {
		t.Errorf("cache %+v, first search's CacheBytes %d; want 4 entries, the same bytes, %d hits, 4 misses", s, first.Stats.CacheBytes, hits)
	}
}

// TestTreeCacheSeesChanges: a file changed between two searches, in any way, is parsed
// again and searched as it is now.
func TestTreeCacheSeesChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, p string)
		// same: the content does not change (a miss only because the file is another one,
		// or its metadata moved).
		same bool
	}{
		{name: "rewritten in place, same size, modification time restored", change: func(t *testing.T, p string) {
			writeFiles(t, filepath.Dir(p), map[string]string{filepath.Base(p): sameSizeB}, stamp)
		}},
		{name: "replaced by rename, same size and time", change: func(t *testing.T, p string) {
			writeFiles(t, filepath.Dir(p), map[string]string{"new.tmp": sameSizeB}, stamp)
			if err := os.Rename(filepath.Join(filepath.Dir(p), "new.tmp"), p); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "replaced by rename, same content", same: true, change: func(t *testing.T, p string) {
			writeFiles(t, filepath.Dir(p), map[string]string{"new.tmp": sameSizeA}, stamp)
			if err := os.Rename(filepath.Join(filepath.Dir(p), "new.tmp"), p); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "touched", same: true, change: func(t *testing.T, p string) {
			if err := os.Chtimes(p, stamp.Add(time.Hour), stamp.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "grown", change: func(t *testing.T, p string) {
			writeFiles(t, filepath.Dir(p), map[string]string{filepath.Base(p): srcThree}, stamp)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"f.js": sameSizeA, "other.js": srcUtil}, stamp)
			cache := NewTreeCache(DefaultTreeCacheBytes)
			// No prefilter: the file is parsed (or taken from the cache) whatever it holds.
			req := Request{Pattern: "console.log($A)", NoPrefilter: true}
			before, _ := cacheSearchReq(t, dir, req, cache)
			tc.change(t, filepath.Join(dir, "f.js"))
			want, _ := cacheSearchReq(t, dir, req, nil)
			got, parsed := cacheSearchReq(t, dir, req, cache)
			if d := cmp.Diff(want.Matches, got.Matches); d != "" {
				t.Errorf("matches after the change differ from a search without the cache (-without +with):\n%s", d)
			}
			if parsed != 1 || got.Stats.CacheMisses != 1 || got.Stats.CacheHits != 1 {
				t.Errorf("%d parses, %d misses, %d hits; want the changed file parsed again and the other reused", parsed, got.Stats.CacheMisses, got.Stats.CacheHits)
			}
			if tc.same != (len(before.Matches) == len(got.Matches)) {
				t.Errorf("%d matches before, %d after; the change should %s", len(before.Matches), len(got.Matches), map[bool]string{true: "keep them", false: "change them"}[tc.same])
			}
			if s := cache.Stats(); s.Entries != 2 {
				t.Errorf("%d entries after the change; want 2 (the stale tree replaced)", s.Entries)
			}
		})
	}
}

// TestTreeCacheBudget: the bytes held never exceed the budget; a tree larger than the
// budget is not kept; a search over more than the budget keeps what fits and the next one
// reuses it (no search evicts its own trees).
func TestTreeCacheBudget(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.js", i)] = srcThree // names of one length: entries of one size
	}
	writeFiles(t, dir, files, stamp)
	one := NewTreeCache(DefaultTreeCacheBytes)
	probe := t.TempDir()
	writeFiles(t, probe, map[string]string{"f00.js": srcThree}, stamp)
	cacheSearch(t, probe, "console.log($A)", one)
	// The cost of one entry, named under dir instead of probe.
	entry := one.Stats().Bytes - int64(len(probe)) + int64(len(dir))
	if entry <= int64(len(srcThree)) {
		t.Fatalf("one entry costs %d bytes, not more than its source", entry)
	}
	tests := []struct {
		name        string
		budget      int64
		wantEntries int
	}{
		{name: "zero: off", budget: 0, wantEntries: 0},
		{name: "one byte short of one tree", budget: entry - 1, wantEntries: 0},
		{name: "exactly one tree", budget: entry, wantEntries: 1},
		{name: "one tree and a byte", budget: entry + 1, wantEntries: 1},
		{name: "ten trees", budget: 10 * entry, wantEntries: 10},
		{name: "ten trees less a byte", budget: 10*entry - 1, wantEntries: 9},
		{name: "all", budget: 40 * entry, wantEntries: 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cache := NewTreeCache(tc.budget)
			// One worker: the files reach the cache in walk order, so which trees an
			// eviction leaves is known.
			req := Request{Pattern: "console.log($A)", Threads: 1}
			want, _ := cacheSearchReq(t, dir, req, nil)
			for round := range 3 {
				got, _ := cacheSearchReq(t, dir, req, cache)
				if d := cmp.Diff(want.Matches, got.Matches); d != "" {
					t.Fatalf("round %d: matches differ (-without +with):\n%s", round, d)
				}
				s := cache.Stats()
				if s.Bytes > tc.budget || got.Stats.CacheBytes != s.Bytes {
					t.Fatalf("round %d: %d bytes held (search says %d), budget %d", round, s.Bytes, got.Stats.CacheBytes, tc.budget)
				}
				if s.Entries != tc.wantEntries {
					t.Fatalf("round %d: %d entries, want %d (%v)", round, s.Entries, tc.wantEntries, cache)
				}
				// A search never evicts its own trees: a scan larger than the budget keeps
				// the first trees that fit and reuses them every time.
				wantHits := 0
				if round > 0 {
					wantHits = tc.wantEntries
				}
				if tc.budget > 0 && got.Stats.CacheHits != wantHits {
					t.Fatalf("round %d: %d hits, want %d", round, got.Stats.CacheHits, wantHits)
				}
				if tc.budget == 0 && (got.Stats.CacheHits != 0 || got.Stats.CacheMisses != 0) {
					t.Fatalf("an off cache counted %d hits and %d misses", got.Stats.CacheHits, got.Stats.CacheMisses)
				}
			}
			if s := cache.Stats(); s.Evicted != 0 {
				t.Errorf("searches of one tree evicted %d trees: %+v", s.Evicted, s)
			}
		})
	}
}

// TestTreeCacheLRUOrder: the tree used last survives an eviction that the one used first
// does not.
func TestTreeCacheLRUOrder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/f.js": srcThree, "b/f.js": srcThree, "c/f.js": srcThree}, stamp)
	probe := NewTreeCache(DefaultTreeCacheBytes)
	search := func(sub string, c *TreeCache) *Result {
		r, _ := cacheSearch(t, filepath.Join(dir, sub), "console.log($A)", c)
		return r
	}
	search("a", probe)
	cache := NewTreeCache(2 * probe.Stats().Bytes) // room for two of the three
	search("a", cache)
	search("b", cache)
	search("a", cache) // a is now the most recently used
	search("c", cache) // evicts b
	if r := search("a", cache); r.Stats.CacheHits != 1 {
		t.Errorf("a: %d hits, want 1 (the recently used tree was evicted)", r.Stats.CacheHits)
	}
	if r := search("b", cache); r.Stats.CacheHits != 0 {
		t.Errorf("b: %d hits, want 0 (the least recently used tree was kept)", r.Stats.CacheHits)
	}
}

// TestTreeCacheForgetAndApply: Forget drops a file's tree, and Plan.Apply drops the trees
// of the files it wrote.
func TestTreeCacheForgetAndApply(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.js": srcUtil, "b.js": srcThree, "c.js": sameSizeA}, stamp)
	cache := NewTreeCache(DefaultTreeCacheBytes)
	cacheSearch(t, dir, "console.log($A)", cache)
	if n := cache.Stats().Entries; n != 3 {
		t.Fatalf("%d entries, want 3", n)
	}
	cache.Forget(filepath.Join(dir, "c.js"), filepath.Join(dir, "missing.js"))
	if n := cache.Stats().Entries; n != 2 {
		t.Fatalf("after Forget(c.js): %d entries, want 2", n)
	}
	req := Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Cache: cache, Dir: dir, Paths: []string{"b.js"}}
	plan, err := Rewrite(context.Background(), os.DirFS(dir), req, "console.log(2)")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 {
		t.Fatalf("the rewrite planned %d files, want 1", len(plan.Files))
	}
	w, err := wfs.NewOSFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := plan.Apply(context.Background(), w, dir); err != nil {
		t.Fatal(err)
	}
	s := cache.Stats()
	if s.Entries != 1 {
		t.Fatalf("after Apply wrote b.js: %d entries, want 1 (a.js)", s.Entries)
	}
	cache.Purge()
	if s := cache.Stats(); s.Entries != 0 || s.Bytes != 0 {
		t.Errorf("after Purge: %+v", s)
	}
}

// TestTreeCacheSameAsNone is the property: any sequence of searches (any pattern, any
// budget) and file edits (rewrites keeping size and time, renames over, deletions, new
// files) gives the same matches with the cache as without, and the cache never holds more
// than its budget.
func TestTreeCacheSameAsNone(t *testing.T) {
	contents := []string{srcUtil, srcThree, srcApp, "foo(foo(1))", "", sameSizeA, sameSizeB, srcCRLF}
	patterns := []string{"console.log($A)", "console.log($$$)", "foo($$$)", "logger.info($A)"}
	names := []string{"a.js", "b.js", "d/c.js", "d/e/f.js"}
	rapid.Check(t, func(t *rapid.T) {
		dir, err := os.MkdirTemp("", "treecache")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		budget := rapid.SampledFrom([]int64{0, 400, 2000, 8000, DefaultTreeCacheBytes}).Draw(t, "budget")
		cache := NewTreeCache(budget)
		put := func(name, content string) {
			writeFiles(t, dir, map[string]string{name: content}, stamp)
		}
		for _, n := range names[:2] {
			put(n, rapid.SampledFrom(contents).Draw(t, "content"))
		}
		t.Repeat(map[string]func(*rapid.T){
			"": func(t *rapid.T) {
				if s := cache.Stats(); s.Bytes > budget {
					t.Fatalf("%d bytes held, budget %d", s.Bytes, budget)
				}
			},
			"search": func(t *rapid.T) {
				req := Request{Pattern: rapid.SampledFrom(patterns).Draw(t, "pattern"), NoPrefilter: rapid.Bool().Draw(t, "noPrefilter")}
				p := req.Pattern
				want, _ := cacheSearchReq(t, dir, req, nil)
				got, _ := cacheSearchReq(t, dir, req, cache)
				if d := cmp.Diff(want.Matches, got.Matches); d != "" {
					t.Fatalf("%s: matches differ (-without +with):\n%s", p, d)
				}
				st := got.Stats
				if on := budget > 0; on && st.CacheHits+st.CacheMisses != st.Searched || !on && st.CacheHits+st.CacheMisses != 0 {
					t.Fatalf("%d hits + %d misses for %d files searched (budget %d)", st.CacheHits, st.CacheMisses, st.Searched, budget)
				}
			},
			"rewrite plan": func(t *rapid.T) {
				req := Request{Pattern: rapid.SampledFrom(patterns).Draw(t, "pattern"), Lang: JavaScript, Backend: fixtureBackend, Dir: dir}
				tmpl := rapid.SampledFrom([]string{"x($A)", "", "$$$"}).Draw(t, "template")
				want, err := Rewrite(context.Background(), os.DirFS(dir), req, tmpl)
				if err != nil {
					t.Fatal(err)
				}
				req.Cache = cache
				got, err := Rewrite(context.Background(), os.DirFS(dir), req, tmpl)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want.Files, got.Files, cmp.AllowUnexported(FilePlan{})); d != "" {
					t.Fatalf("%s → %q: plans differ (-without +with):\n%s", req.Pattern, tmpl, d)
				}
			},
			"rewrite": func(t *rapid.T) {
				put(rapid.SampledFrom(names).Draw(t, "name"), rapid.SampledFrom(contents).Draw(t, "content"))
			},
			"rename over": func(t *rapid.T) {
				n := rapid.SampledFrom(names).Draw(t, "name")
				put("tmp.txt", rapid.SampledFrom(contents).Draw(t, "content"))
				p := filepath.Join(dir, filepath.FromSlash(n))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(dir, "tmp.txt"), p); err != nil {
					t.Fatal(err)
				}
			},
			"delete": func(t *rapid.T) {
				os.Remove(filepath.Join(dir, filepath.FromSlash(rapid.SampledFrom(names).Draw(t, "name"))))
			},
			"forget": func(t *rapid.T) {
				cache.Forget(filepath.Join(dir, filepath.FromSlash(rapid.SampledFrom(names).Draw(t, "name"))))
			},
		})
	})
}

// TestTreeCacheConcurrent: searches of two patterns sharing one small cache at once (with
// evictions under way) each find what a search without the cache finds (the run under
// -race checks the locking).
func TestTreeCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("f%02d.js", i)] = []string{srcApp, srcThree, srcUtil, sameSizeA}[i%4]
	}
	writeFiles(t, dir, files, stamp)
	patterns := []string{"console.log($A)", "console.log($$$)"}
	want := map[string][]Match{}
	for _, p := range patterns {
		r, _ := cacheSearch(t, dir, p, nil)
		want[p] = r.Matches
	}
	cache := NewTreeCache(20_000) // room for some of the trees: evictions while searching
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			for i := range 10 {
				p := patterns[(g+i)%2]
				res, serr := Search(context.Background(), os.DirFS(dir), Request{Pattern: p, Lang: JavaScript, Backend: fixtureBackend,
					Cache: cache, Dir: dir, Threads: 2, MaxMatches: math.MaxInt, MaxOutputBytes: math.MaxInt})
				if serr != nil {
					err = serr
				} else if d := cmp.Diff(want[p], res.Matches); d != "" && err == nil {
					err = fmt.Errorf("%s: matches differ (-without +with):\n%s", p, d)
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if s := cache.Stats(); s.Bytes > 20_000 || s.Hits == 0 {
		t.Errorf("after the concurrent searches: %+v; want hits within the budget", s)
	}
}

// TestTreeCacheWithoutIdentity: an fs.FS whose FileInfos carry no file identity
// (testing/fstest.MapFS) still gets hits, and a change of content, also of the same size
// and time, is still parsed again.
func TestTreeCacheWithoutIdentity(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": sameSizeA, "b.js": srcThree})
	cache := NewTreeCache(DefaultTreeCacheBytes)
	search := func() *Result {
		res, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Cache: cache, NoPrefilter: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	search()
	if r := search(); r.Stats.CacheHits != 2 || r.TotalMatches != 4 {
		t.Fatalf("second search: %d hits, %d matches; want 2, 4", r.Stats.CacheHits, r.TotalMatches)
	}
	fsys["a.js"].Data = []byte(sameSizeB)
	if r := search(); r.Stats.CacheHits != 1 || r.Stats.CacheMisses != 1 || r.TotalMatches != 3 {
		t.Fatalf("after a same-size change: %d hits, %d misses, %d matches; want 1, 1, 3", r.Stats.CacheHits, r.Stats.CacheMisses, r.TotalMatches)
	}
	// (MapFS's FileInfos read the live MapFile: the stored one shows the new size and
	// mode too, so only the comparison of the bytes sees this change.)
}

// TestTreeCacheParseFailure: a file whose parse fails (here: a text the fixtures lack) is
// not kept, counted neither as a hit nor as a miss, and fails again the next time.
func TestTreeCacheParseFailure(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.js": srcUtil, "bad.js": "console.log(no_fixture_tree)"}, stamp)
	cache := NewTreeCache(DefaultTreeCacheBytes)
	for round := range 2 {
		r, _ := cacheSearch(t, dir, "console.log($A)", cache)
		st := r.Stats
		if st.Skipped.ParseFailed != 1 || st.Searched != 1 || st.CacheHits+st.CacheMisses != 1 || cache.Stats().Entries != 1 {
			t.Fatalf("round %d: %+v, cache %v; want bad.js failed, a.js searched and alone in the cache", round, st, cache)
		}
	}
}

// wholeOrCandidates counts the parses for a cache (whole trees) and those for one search
// (candidates only); it stands for the cgo parser, which has both.
type wholeOrCandidates struct {
	treeParser
	whole, cands *atomic.Int64
}

func (p wholeOrCandidates) Parse(src []byte) (*match.Tree, error) {
	p.whole.Add(1)
	return p.treeParser.Parse(src)
}

func (p wholeOrCandidates) ParseCandidates(src []byte, _ []byte, _ [][]byte) (*match.Tree, error) {
	p.cands.Add(1)
	return p.treeParser.Parse(src) // a whole tree matches as the candidates' would
}

// TestTreeCacheFullSearchParsesCandidates: once a search's own trees fill the budget, its
// other files are parsed for the search only (the candidates' subtrees), not whole.
func TestTreeCacheFullSearchParsesCandidates(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.js", i)] = srcThree
	}
	writeFiles(t, dir, files, stamp)
	var whole, cands atomic.Int64
	backend := &nativeBackend{factory: func(l Lang) (treeParser, error) {
		tp, err := fixtureFactory(l)
		return wholeOrCandidates{treeParser: tp, whole: &whole, cands: &cands}, err
	}}
	probe := NewTreeCache(DefaultTreeCacheBytes)
	req := Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: backend, Dir: dir, Threads: 1, Paths: []string{"f00.js"}}
	if _, err := Search(context.Background(), os.DirFS(dir), func() Request { r := req; r.Cache = probe; return r }()); err != nil {
		t.Fatal(err)
	}
	req.Paths, req.Cache = nil, NewTreeCache(10*probe.Stats().Bytes)
	// Each round one whole parse more than fits: the one whose tree finds the cache full.
	for round, want := range []struct{ whole, cands, hits int64 }{{11, 29, 0}, {1, 29, 10}} {
		whole.Store(0)
		cands.Store(0)
		res, err := Search(context.Background(), os.DirFS(dir), req)
		if err != nil {
			t.Fatal(err)
		}
		// The pattern's own parse is a whole one.
		if got := (struct{ whole, cands, hits int64 }{whole.Load() - 1, cands.Load(), int64(res.Stats.CacheHits)}); got != want {
			t.Errorf("round %d: %d whole parses, %d for candidates, %d hits; want %d, %d, %d", round, got.whole, got.cands, got.hits, want.whole, want.cands, want.hits)
		}
	}
}
