package astsearch

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
	"github.com/harnesskit/harnesskit/wfs"
)

// DefaultTreeCacheBytes is a budget for [NewTreeCache] that suits a host searching a
// project of a few thousand files: 512 MiB. A flat tree costs about 14 bytes per byte of Go
// source, the source included (GOROOT/src: 741 MB for the 3,046 files, 51 MB, holding
// both "nil" and "=="), so this holds the trees of about 35 MB of Go.
const DefaultTreeCacheBytes int64 = 512 << 20

// entryOverhead is what one entry costs besides its source, nodes and name: the LRU's map
// entry and list element, the entry and tree structs.
const entryOverhead = 256

var nodeSize = int64(unsafe.Sizeof(match.Node{}))

// TreeCache keeps the syntax trees of recently searched files, so that a search that
// repeats (an agent searches the same tree many times between edits) parses only the
// files that changed. Give one to every search of a tree in [Request.Cache]; the native
// backend uses it (the ast-grep CLI backend does not). It is safe for concurrent use by
// any number of searches, starts no goroutine and holds nothing global: it is freed with
// the last reference to it.
//
// # What it keeps
//
// One entry per file name, the name being filepath.Join(Request.Dir, path): the whole tree
// of the file as the language's grammar parsed it (not only the parts a pattern needed, so
// any later pattern can use it), its source, and the file's metadata when it was read. The
// entries are kept in least-recently-used order within a budget of bytes (the source, the
// nodes and a fixed overhead per entry): adding a tree drops the least recently used ones
// until the total fits, and a tree larger than the whole budget is not kept. A search
// never drops a tree it has itself used or added: once the cache holds only such trees,
// its remaining files are parsed as without a cache and not kept, so a search that repeats
// over more than the budget holds keeps reusing the part that fits (plain LRU would drop
// each tree before its turn came) and pays for whole trees only while there is room (and
// for the one that finds there is none).
// Searches of one file as two languages (a .h file as c and as cpp) replace each other's
// entry.
//
// # When a tree is used
//
// Only when everything says the file is the one parsed: the name, the language and its
// grammar, the file's metadata as [wfs.SameVersion] compares it (device and inode or the
// system's file identity, type and mode bits, size, modification time, and status-change
// time where the system keeps one; an fs.FS whose FileInfos carry no identity, such as
// testing/fstest.MapFS or embed.FS, is compared by the rest), and then the bytes read
// now, compared with the stored source in full. A file changed in any way, also rewritten
// in place with its size and modification time kept (on Windows too, which has no
// status-change time) or replaced by a rename, is parsed again. So a search with the cache finds exactly what it finds
// without one; what the cache saves is the parse, never the read.
//
// # After writing files
//
// [Plan.Apply] drops the files it writes from the cache of the request that planned them.
// A host that changes files by other means (patch, an editor, a formatter) need not tell
// the cache for its results to stay right, but should call [TreeCache.Forget] with the
// names written, or [TreeCache.Purge], so that the memory of stale trees is given back at
// once rather than when the file is next searched or the entry ages out.
type TreeCache struct {
	mu      sync.Mutex
	lru     *simplelru.LRU[string, *cachedTree] // nil when the budget is zero
	budget  int64
	bytes   int64
	gen     uint64 // the number of searches begun
	hits    uint64
	misses  uint64
	evicted uint64
}

// cacheRun is one search's use of a cache.
type cacheRun struct {
	c   *TreeCache
	gen uint64 // the search's number: entries it used or added carry it
	// full: the cache holds only trees this search used or added, and no room for more;
	// the rest of its files are parsed as without a cache.
	full atomic.Bool
}

// cachedTree is one entry: the whole tree of a file (Src is its source) and what the file
// was when it was read.
type cachedTree struct {
	info    fs.FileInfo
	lang    Lang
	grammar *match.Grammar
	tree    *match.Tree
	size    int64
	gen     uint64 // the last search that used or added it
}

// TreeCacheStats is a snapshot of a [TreeCache].
type TreeCacheStats struct {
	Entries  int   // trees held
	Bytes    int64 // what they cost, at most MaxBytes
	MaxBytes int64 // the budget
	// Hits and Misses count, over the cache's life, the files whose tree was reused and
	// those parsed (and offered to the cache); Evicted counts the entries dropped to stay
	// within the budget (not those dropped by Forget, Purge or a change of the file).
	Hits, Misses, Evicted uint64
}

// NewTreeCache returns an empty cache that holds at most maxBytes bytes of trees
// ([DefaultTreeCacheBytes] is a reasonable budget). maxBytes zero or negative turns the
// cache off: searches given it parse as without a cache and count neither hits nor misses.
func NewTreeCache(maxBytes int64) *TreeCache {
	c := &TreeCache{budget: max(maxBytes, 0)}
	if c.budget > 0 {
		// The LRU's own count bound is never reached: the byte budget evicts first.
		c.lru, _ = simplelru.NewLRU(math.MaxInt, c.onEvict)
	}
	return c
}

// on reports whether searches should use c.
func (c *TreeCache) on() bool { return c != nil && c.lru != nil }

// onEvict keeps the byte count; it runs under c.mu (simplelru calls it from Remove,
// RemoveOldest and Purge).
func (c *TreeCache) onEvict(_ string, e *cachedTree) { c.bytes -= e.size }

// cacheName is the name of a file's entry.
func cacheName(dir, path string) string { return filepath.Join(dir, filepath.FromSlash(path)) }

// begin starts a search's use of c.
func (c *TreeCache) begin() *cacheRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	return &cacheRun{c: c, gen: c.gen}
}

// lookup returns the stored tree of name when it is the tree of src parsed with grammar g
// and info still describes the file it was read from; a stale entry is dropped. A nil
// result is counted as a miss (the caller parses, and calls add unless r is full).
func (r *cacheRun) lookup(name string, lang Lang, g *match.Grammar, info fs.FileInfo, src []byte) *match.Tree {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(name)
	switch {
	case !ok:
	case e.lang != lang || e.grammar != g:
		// Another language's tree of the same file: keep it, the new one replaces it.
	case info != nil && sameVersion(e.info, info) && bytes.Equal(e.tree.Src, src):
		c.hits++
		e.gen = r.gen
		return e.tree
	default:
		c.lru.Remove(name)
	}
	c.misses++
	return nil
}

// sameVersion is [wfs.SameVersion] for FileInfos that carry a file identity (the os
// package's, MemFS's); for the others (testing/fstest.MapFS, embed.FS, archives), which
// cannot tell one file from another, the type and mode bits, size and modification time.
func sameVersion(was, now fs.FileInfo) bool {
	if wfs.SameFile(was, was) {
		return wfs.SameVersion(was, now)
	}
	return !wfs.SameFile(now, now) && was.Mode() == now.Mode() && was.Size() == now.Size() && was.ModTime().Equal(now.ModTime())
}

// add stores a copy of the whole tree t of name (t.Src is kept, not copied: the caller
// must not change it) and returns the tree to search: the copy when it was stored, else t
// itself. It drops the least recently used entries to stay within the budget, but never
// one this search used or added: when only such entries are left, t is not stored and r
// becomes full. A tree larger than the budget, cut short, or of a file with no metadata is
// not stored (nor copied).
func (r *cacheRun) add(name string, lang Lang, g *match.Grammar, info fs.FileInfo, t *match.Tree) *match.Tree {
	c := r.c
	size := int64(cap(t.Src)) + int64(len(t.Nodes))*nodeSize + int64(len(name)) + entryOverhead
	if info == nil || t.Partial || size > c.budget {
		return t
	}
	// Copied before the lock, so that workers do not wait on each other's copies; the
	// nodes of t belong to the parser and are reused for its next file.
	nodes := make([]match.Node, len(t.Nodes))
	copy(nodes, t.Nodes)
	kept := &match.Tree{Src: t.Src, Nodes: nodes}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(name)
	for c.bytes+size > c.budget {
		_, old, ok := c.lru.GetOldest()
		if !ok {
			break
		}
		if old.gen == r.gen {
			// The least recently used entry is this search's, so all are: evicting them
			// for the rest of its files would leave a repeated search of the same tree
			// nothing to reuse.
			r.full.Store(true)
			return t
		}
		c.lru.RemoveOldest()
		c.evicted++
	}
	c.lru.Add(name, &cachedTree{info: info, lang: lang, grammar: g, tree: kept, size: size, gen: r.gen})
	c.bytes += size
	return kept
}

// Forget drops the entries of the named files: each name is filepath.Join(Request.Dir,
// path) of a search that cached it (an absolute OS path when Dir is), as a host knows the
// files it wrote. Names with no entry are ignored. Forget is never needed for correct
// results (see the type's documentation); it gives the memory back at once.
func (c *TreeCache) Forget(names ...string) {
	if !c.on() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range names {
		c.lru.Remove(filepath.Clean(n))
	}
}

// Purge drops every entry.
func (c *TreeCache) Purge() {
	if !c.on() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Purge()
}

// Stats returns the cache's counts now.
func (c *TreeCache) Stats() TreeCacheStats {
	if c == nil {
		return TreeCacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := TreeCacheStats{Bytes: c.bytes, MaxBytes: c.budget, Hits: c.hits, Misses: c.misses, Evicted: c.evicted}
	if c.lru != nil {
		s.Entries = c.lru.Len()
	}
	return s
}

// String describes the cache for logs and test failures.
func (c *TreeCache) String() string {
	s := c.Stats()
	return fmt.Sprintf("TreeCache{%d trees, %d of %d bytes, %d hits, %d misses}", s.Entries, s.Bytes, s.MaxBytes, s.Hits, s.Misses)
}
