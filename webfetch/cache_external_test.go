package webfetch_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/harnesskit/harnesskit/webfetch/cachetest"
)

func TestMemoryCacheConformance(t *testing.T) {
	cachetest.Run(t, func(*testing.T) webfetch.Cache { return webfetch.NewMemoryCache(0) })
}

// bytesCache keeps encoded entries, as a store in another process does: the content as one
// blob and the fields a 304 renews beside it, refreshed without touching the blob.
type bytesCache struct {
	mu sync.Mutex
	m  map[string]*bytesEntry
}

type bytesEntry struct {
	blob                []byte
	storedAt, keepUntil time.Time
	etag, lastModified  string
}

func (c *bytesCache) Get(_ context.Context, k webfetch.CacheKey) (*webfetch.CacheEntry, error) {
	c.mu.Lock()
	b, ok := c.m[k.String()]
	c.mu.Unlock()
	if !ok {
		return nil, nil
	}
	e := new(webfetch.CacheEntry)
	if err := e.UnmarshalBinary(b.blob); err != nil {
		return nil, err
	}
	e.StoredAt, e.KeepUntil, e.ETag, e.LastModified = b.storedAt, b.keepUntil, b.etag, b.lastModified
	return e, nil
}

func (c *bytesCache) Put(_ context.Context, k webfetch.CacheKey, e *webfetch.CacheEntry) error {
	blob, err := e.MarshalBinary()
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k.String()] = &bytesEntry{blob: blob, storedAt: e.StoredAt, keepUntil: e.KeepUntil, etag: e.ETag, lastModified: e.LastModified}
	return nil
}

func (c *bytesCache) Refresh(_ context.Context, k webfetch.CacheKey, r webfetch.CacheRefresh) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[k.String()]
	if !ok || b.etag != r.OldETag || b.lastModified != r.OldLastModified {
		return nil
	}
	c.m[k.String()] = &bytesEntry{blob: b.blob, storedAt: r.StoredAt, keepUntil: r.KeepUntil, etag: r.ETag, lastModified: r.LastModified}
	return nil
}

var _ webfetch.Cache = (*bytesCache)(nil)

func TestEncodedCacheConformance(t *testing.T) {
	cachetest.Run(t, func(*testing.T) webfetch.Cache { return &bytesCache{m: map[string]*bytesEntry{}} })
}
