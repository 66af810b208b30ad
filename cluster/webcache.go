package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/redis/go-redis/v9"
)

// WebCache is a webfetch.Cache on Redis, shared by every Fetcher of every host process
// that uses the same prefix. Give it to webfetch.WithCacheStore.
//
// Each entry is one Redis hash under <prefix><key>, where <key> is webfetch's CacheKey
// encoding (tenant, fetch-policy fingerprint and target), so tenants and Fetchers with
// different policies never share an entry. The hash holds the encoded entry and, as
// separate fields, its validators and times: a 304 (Refresh) rewrites only those, in one
// script that first checks the old validators. The key expires KeepUntil − StoredAt after
// it was written (a duration, so host clocks need not agree); freshness stays the
// Fetcher's decision.
//
// Isolation is by key only: whoever reaches the Redis server reads every tenant's entries.
// Give tenants that must not see each other an ACL user restricted to their key pattern
// (~<prefix>wf1:<len>:<tenant>:*), or a server each. The memory budget is the server's
// (maxmemory with an eviction policy such as allkeys-lru) and is shared by all tenants:
// one tenant's fetches can evict another's entries. A lost write (a failover) is a miss.
type WebCache struct {
	c      redis.UniversalClient
	prefix string
}

var _ webfetch.Cache = (*WebCache)(nil)

// NewWebCache returns a cache of the keys under prefix (for example "harnesskit:").
func NewWebCache(c redis.UniversalClient, prefix string) *WebCache {
	return &WebCache{c: c, prefix: prefix}
}

const (
	fBlob      = "blob"
	fStored    = "stored_at"
	fKeep      = "keep_until"
	fETag      = "etag"
	fModified  = "last_modified"
	fRefreshed = "refreshed" // a 304 renewed the fields: they win over the blob's
)

func stamp(t time.Time) string {
	b, _ := t.MarshalText() // RFC 3339 with nanoseconds and the zone offset
	return string(b)
}

func unstamp(s string) time.Time {
	var t time.Time
	t.UnmarshalText([]byte(s))
	return t
}

// Get implements webfetch.Cache: the entry, with the hash's validators and times, or nil.
func (w *WebCache) Get(ctx context.Context, key webfetch.CacheKey) (*webfetch.CacheEntry, error) {
	h, err := w.c.HGetAll(ctx, w.prefix+key.String()).Result()
	if err != nil {
		return nil, fmt.Errorf("cluster: reading the fetch cache: %w", err)
	}
	blob, ok := h[fBlob]
	if !ok {
		return nil, nil
	}
	e := new(webfetch.CacheEntry)
	if err := e.UnmarshalBinary([]byte(blob)); err != nil {
		return nil, fmt.Errorf("cluster: a fetch-cache entry does not decode: %w", err)
	}
	if _, refreshed := h[fRefreshed]; refreshed {
		e.StoredAt, e.KeepUntil = unstamp(h[fStored]), unstamp(h[fKeep])
		e.ETag, e.LastModified = h[fETag], h[fModified]
	}
	return e, nil
}

// Put implements webfetch.Cache: it replaces the hash in one transaction and sets its
// expiry to KeepUntil (none when zero).
func (w *WebCache) Put(ctx context.Context, key webfetch.CacheKey, e *webfetch.CacheEntry) error {
	blob, err := e.MarshalBinary()
	if err != nil {
		return err
	}
	k := w.prefix + key.String()
	_, err = w.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, k)
		p.HSet(ctx, k, fBlob, blob, fStored, stamp(e.StoredAt), fKeep, stamp(e.KeepUntil), fETag, e.ETag, fModified, e.LastModified)
		if ttl, ok := keepFor(e.StoredAt, e.KeepUntil); ok {
			p.PExpire(ctx, k, ttl)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cluster: writing the fetch cache: %w", err)
	}
	return nil
}

// keepFor is how long Redis keeps an entry: KeepUntil − StoredAt, both read on the
// Fetcher's clock, so neither that clock's offset nor the skew between hosts matters
// (at least 1 ms; none when KeepUntil is zero).
func keepFor(stored, keep time.Time) (time.Duration, bool) {
	if keep.IsZero() {
		return 0, false
	}
	return max(keep.Sub(stored), time.Millisecond), true
}

// refresh renews the validators and times of a hash iff it still has the old validators.
var refresh = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local etag = redis.call('HGET', KEYS[1], 'etag') or ''
local lm = redis.call('HGET', KEYS[1], 'last_modified') or ''
if etag ~= ARGV[1] or lm ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'stored_at', ARGV[3], 'keep_until', ARGV[4], 'etag', ARGV[5], 'last_modified', ARGV[6], 'refreshed', '1')
if ARGV[7] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[7]) else redis.call('PERSIST', KEYS[1]) end
return 1
`)

// Refresh implements webfetch.Cache: one script checks the old validators and rewrites
// only the small fields; the encoded content is not sent again.
func (w *WebCache) Refresh(ctx context.Context, key webfetch.CacheKey, r webfetch.CacheRefresh) error {
	expire := ""
	if ttl, ok := keepFor(r.StoredAt, r.KeepUntil); ok {
		expire = strconv.FormatInt(ttl.Milliseconds(), 10)
	}
	err := refresh.Run(ctx, w.c, []string{w.prefix + key.String()},
		r.OldETag, r.OldLastModified, stamp(r.StoredAt), stamp(r.KeepUntil), r.ETag, r.LastModified, expire).Err()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("cluster: refreshing the fetch cache: %w", err)
	}
	return nil
}
