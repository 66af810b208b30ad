package webfetch

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Cache keeps fetch outcomes between calls. The Fetcher decides freshness with its own clock
// (the TTL of [WithCache] and [WithStaleCap]); a Cache only stores, returns and renews
// entries. The default is [NewMemoryCache]; [WithCacheStore] installs another (for example
// one shared by several host processes). Implementations must be safe for concurrent use.
//
// The Fetcher never fails a fetch because of its cache: an error from Get, or an entry that
// does not decode, is a miss; errors from Put and Refresh are logged at Debug and ignored.
type Cache interface {
	// Get returns the entry stored under key, or (nil, nil) when there is none.
	Get(ctx context.Context, key CacheKey) (*CacheEntry, error)
	// Put stores e under key, replacing any entry there. A cache may drop e, or other
	// entries, to stay within its budget; an entry larger than the whole budget is not kept.
	Put(ctx context.Context, key CacheKey, e *CacheEntry) error
	// Refresh renews the entry under key in place after a 304 Not Modified: StoredAt,
	// KeepUntil, ETag and LastModified are set from r and the content is kept. It does so
	// only while the stored entry still has r.OldETag and r.OldLastModified; otherwise the
	// entry was replaced meanwhile and Refresh does nothing. No entry under key: nothing, nil.
	Refresh(ctx context.Context, key CacheKey, r CacheRefresh) error
}

// CacheKey names one cache entry. Entries are shared only between requests whose three
// fields are all equal.
type CacheKey struct {
	// Tenant is Request.Tenant: the host's isolation unit (a user, an organisation, an API
	// key). The empty tenant is a tenant like any other.
	Tenant string
	// Policy fingerprints what the Fetcher's configuration lets a fetch reach and what it
	// stores (network policy, proxy, redirect patterns, docs hosts, size limits, headers,
	// binary directory, entry encoding): 16 lower-case hex digits. Fetchers that may reach
	// different addresses never share entries.
	Policy string
	// Target is the normalised URL as typed (scheme and host lower-case, host in ASCII,
	// default port and fragment removed) followed by the request options that change the
	// outcome: "main" or "whole", the effective llms mode, and "save" when binaries are saved.
	Target string
}

// String encodes the key unambiguously (the tenant is length-prefixed):
// "wf1:<len(tenant)>:<tenant>:<policy>:<target>". It suits a key-value store's key names;
// it contains whatever bytes the tenant and the URL contain.
func (k CacheKey) String() string {
	return "wf1:" + strconv.Itoa(len(k.Tenant)) + ":" + k.Tenant + ":" + k.Policy + ":" + k.Target
}

// CacheEntry is one stored fetch outcome. The exported fields are what a cache needs to
// know; the content is opaque and travels through [CacheEntry.MarshalBinary] and
// [CacheEntry.UnmarshalBinary]. An entry is immutable once stored: caches hand out copies of
// the struct and share the content.
type CacheEntry struct {
	StoredAt  time.Time // stored or last revalidated, on the Fetcher's clock
	KeepUntil time.Time // after this the entry is of no use and may be dropped
	// ETag and LastModified are the validators sent when the entry is revalidated. They
	// are also inside the encoded content; after Get these fields win (a store that
	// refreshes in place updates only them).
	ETag, LastModified string
	// Size is the number of bytes the entry keeps: every string, list and byte of its
	// content plus a fixed overhead. The in-process cache charges Size plus the key's length.
	Size int64

	st *stored
}

// CacheRefresh is what a 304 Not Modified changes in an entry.
type CacheRefresh struct {
	StoredAt, KeepUntil time.Time
	// ETag and LastModified are the validators to keep from now on.
	ETag, LastModified string
	// OldETag and OldLastModified are the validators the conditional request carried.
	OldETag, OldLastModified string
}

// newEntry wraps an outcome stored at now. An entry with validators is kept for the stale
// cap so it can be revalidated; one without is useless once it is no longer fresh.
func newEntry(st *stored, now time.Time, ttl, staleCap time.Duration) *CacheEntry {
	keep := ttl
	if st.etag != "" || st.lastModified != "" {
		keep = max(ttl, staleCap)
	}
	return &CacheEntry{
		StoredAt: now, KeepUntil: now.Add(keep),
		ETag: st.etag, LastModified: st.lastModified,
		Size: st.size(), st: st,
	}
}

// outcome returns a private copy of the entry's outcome with the entry's validators.
func (e *CacheEntry) outcome() *stored {
	st := e.st.clone()
	st.etag, st.lastModified = e.ETag, e.LastModified
	return st
}

// memoryCache is the in-process cache: an LRU bounded by charged bytes, under one mutex.
type memoryCache struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[string, *CacheEntry]
	budget int64
	total  int64
}

// NewMemoryCache returns the default cache: an in-process LRU bounded by maxBytes (0 means
// [DefaultCacheBytes]), charging each entry its Size plus the length of its key, evicting the
// least recently used entries after every Put until the total is within budget. It keeps
// decoded entries and never encodes them. It is safe for concurrent use and starts no
// goroutine: nothing expires in the background.
func NewMemoryCache(maxBytes int64) Cache { return newMemoryCache(maxBytes) }

func newMemoryCache(maxBytes int64) *memoryCache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	c := &memoryCache{budget: maxBytes}
	// The LRU's own size bound is effectively off: entries are evicted by bytes.
	l, _ := simplelru.NewLRU[string, *CacheEntry](1<<30, func(k string, e *CacheEntry) {
		c.total -= charge(k, e)
	})
	c.lru = l
	return c
}

func charge(key string, e *CacheEntry) int64 { return int64(len(key)) + e.Size }

func (c *memoryCache) Get(_ context.Context, key CacheKey) (*CacheEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(key.String())
	if !ok {
		return nil, nil
	}
	cp := *e
	return &cp, nil
}

func (c *memoryCache) Put(_ context.Context, key CacheKey, e *CacheEntry) error {
	k := key.String()
	cp := *e
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(k, &cp)
	return nil
}

// add stores e under k and evicts until the total is within budget. An entry larger than the
// budget is not stored (and the entry it would replace is removed).
func (c *memoryCache) add(k string, e *CacheEntry) {
	if charge(k, e) > c.budget {
		c.lru.Remove(k)
		return
	}
	// Replacing a value does not run the eviction callback, so the old charge goes here.
	if old, ok := c.lru.Peek(k); ok {
		c.total -= charge(k, old)
	}
	c.lru.Add(k, e)
	c.total += charge(k, e)
	for c.total > c.budget {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

func (c *memoryCache) Refresh(_ context.Context, key CacheKey, r CacheRefresh) error {
	k := key.String()
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.lru.Peek(k)
	if !ok || old.ETag != r.OldETag || old.LastModified != r.OldLastModified {
		return nil
	}
	st := old.st.clone()
	st.etag, st.lastModified = r.ETag, r.LastModified
	c.add(k, &CacheEntry{
		StoredAt: r.StoredAt, KeepUntil: r.KeepUntil,
		ETag: r.ETag, LastModified: r.LastModified,
		Size: st.size(), st: st,
	})
	return nil
}

var _ Cache = (*memoryCache)(nil)

// entryOverhead is charged for every outcome on top of its bytes: the struct, slice headers
// and the LRU's bookkeeping.
const entryOverhead = 512

// size is the number of bytes a stored outcome keeps: every string and list element, the
// saved bytes, and a fixed overhead. Renderings with equal content (llms and plain-text
// results use one string for all of them) are charged once.
func (st *stored) size() int64 {
	n := int64(entryOverhead)
	strs := []string{st.finalURL, st.canonical, st.contentType, st.charset, st.etag, st.lastModified,
		st.filename, st.title, st.lang, st.byline, st.siteName, st.published, string(st.source),
		st.llmsProbeError, st.decodedCharset, st.decodeWarn}
	for _, s := range strs {
		n += int64(len(s))
	}
	for _, h := range st.headings {
		n += int64(len(h)) + 16
	}
	for _, h := range st.redirects {
		n += int64(len(h.From)+len(h.To)) + 40
	}
	for _, q := range st.quality {
		n += int64(len(q)) + 16
	}
	n += int64(len(st.markdown))
	if st.text != st.markdown {
		n += int64(len(st.text))
	}
	if st.html != st.markdown && st.html != st.text {
		n += int64(len(st.html))
	}
	if st.binary != nil {
		n += int64(len(st.binary.Kind) + len(st.binary.SavedPath))
		if st.binBytes == nil {
			// A binary result without its bytes (metadata only, or not downloaded).
			n += metadataOnlyCharge
		}
	}
	return n + int64(len(st.binBytes))
}
