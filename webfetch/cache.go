package webfetch

import (
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// cacheEntry is one stored fetch outcome and its freshness.
type cacheEntry struct {
	st       *stored
	storedAt time.Time // stored or last revalidated
	charge   int64
}

// cache is an LRU bounded by accounted bytes. It has no lock and no clock: the Fetcher holds
// its mutex around every call and passes the time in.
type cache struct {
	lru      *simplelru.LRU[string, *cacheEntry]
	budget   int64
	total    int64
	ttl      time.Duration
	staleCap time.Duration
}

func newCache(budget int64, ttl, staleCap time.Duration) *cache {
	c := &cache{budget: budget, ttl: ttl, staleCap: staleCap}
	// The LRU's own size bound is effectively off: entries are evicted by bytes.
	l, _ := simplelru.NewLRU[string, *cacheEntry](1<<30, func(_ string, e *cacheEntry) {
		c.total -= e.charge
	})
	c.lru = l
	return c
}

type lookupState int

const (
	cacheMiss lookupState = iota
	cacheFresh
	cacheStale // stale with validators: revalidate
)

// lookup returns the entry for key and whether it is fresh. Stale entries without validators
// and entries older than the stale cap are removed.
func (c *cache) lookup(key string, now time.Time) (*cacheEntry, lookupState) {
	e, ok := c.lru.Get(key)
	if !ok {
		return nil, cacheMiss
	}
	age := now.Sub(e.storedAt)
	if age < c.ttl {
		return e, cacheFresh
	}
	if age >= c.staleCap || (e.st.etag == "" && e.st.lastModified == "") {
		c.lru.Remove(key)
		return nil, cacheMiss
	}
	return e, cacheStale
}

// put stores st under key, charged by its size, and evicts least recently used entries until
// the total is within budget. An entry larger than the budget is not stored.
func (c *cache) put(key string, st *stored, now time.Time) {
	charge := st.charge()
	if charge > c.budget {
		c.lru.Remove(key)
		return
	}
	// Replacing a value does not run the eviction callback, so the old charge goes here.
	if old, ok := c.lru.Peek(key); ok {
		c.total -= old.charge
	}
	c.lru.Add(key, &cacheEntry{st: st, storedAt: now, charge: charge})
	c.total += charge
	for c.total > c.budget {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

func (c *cache) remove(key string) { c.lru.Remove(key) }

// refresh renews an entry's freshness after a 304.
func (c *cache) refresh(key string, e *cacheEntry, now time.Time) {
	e.storedAt = now
	c.lru.Get(key)
}

// charge is the accounted size of a stored result: the distinct rendering strings for text
// (equal strings pay once), the byte length for a saved binary, or a flat 1 KiB when no bytes
// were kept.
func (st *stored) charge() int64 {
	if st.binary != nil {
		if st.binBytes == nil {
			return metadataOnlyCharge
		}
		return int64(len(st.binBytes))
	}
	n := int64(len(st.markdown))
	if st.text != st.markdown {
		n += int64(len(st.text))
	}
	if st.html != st.markdown && st.html != st.text {
		n += int64(len(st.html))
	}
	return n
}
