package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/harnesskit/harnesskit/taskboard/store"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// Store is a taskboard/store.Store on etcd: every key lives under its prefix.
type Store struct {
	c      *clientv3.Client
	prefix string
}

var _ store.Store = (*Store)(nil)

// NewStore returns a store of the keys under prefix (for example "harnesskit/board/").
func NewStore(c *clientv3.Client, prefix string) *Store { return &Store{c: c, prefix: prefix} }

// read gets keys in one transaction, so at one revision, with the comparisons that
// guard a write based on them.
func (s *Store) read(ctx context.Context, keys []string) (map[string][]byte, []clientv3.Cmp, error) {
	ops := make([]clientv3.Op, len(keys))
	for i, k := range keys {
		ops[i] = clientv3.OpGet(s.prefix + k)
	}
	resp, err := s.c.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: reading %d keys from etcd: %w", len(keys), err)
	}
	vals := map[string][]byte{}
	cmps := make([]clientv3.Cmp, 0, len(keys))
	for i, k := range keys {
		kvs := resp.Responses[i].GetResponseRange().Kvs
		if len(kvs) > 0 {
			vals[k] = kvs[0].Value
			cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(s.prefix+k), "=", kvs[0].ModRevision))
		} else {
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(s.prefix+k), "=", 0))
		}
	}
	return vals, cmps, nil
}

// Update implements store.Store with one read transaction and one conditional write
// transaction per attempt.
func (s *Store) Update(ctx context.Context, keys []string, f func(map[string][]byte) (map[string][]byte, error)) error {
	allowed := make(map[string]bool, len(keys))
	for _, k := range keys {
		allowed[k] = true
	}
	for {
		vals, cmps, err := s.read(ctx, keys)
		if err != nil {
			return err
		}
		w, err := f(vals)
		if err != nil {
			return err
		}
		if len(w) == 0 {
			return nil
		}
		names := make([]string, 0, len(w))
		for k := range w {
			if !allowed[k] {
				return fmt.Errorf("cluster: Update wrote key %q that it did not read", k)
			}
			names = append(names, k)
		}
		sort.Strings(names)
		ops := make([]clientv3.Op, 0, len(w))
		for _, k := range names {
			if w[k] == nil {
				ops = append(ops, clientv3.OpDelete(s.prefix+k))
			} else {
				ops = append(ops, clientv3.OpPut(s.prefix+k, string(w[k])))
			}
		}
		resp, err := s.c.Txn(ctx).If(cmps...).Then(ops...).Commit()
		if err != nil {
			// The request may have reached the leader: the write may have landed.
			return fmt.Errorf("cluster: committing %d keys to etcd: %w: %w", len(ops), store.ErrUncertain, err)
		}
		if resp.Succeeded {
			return nil
		}
	}
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, keys ...string) (map[string][]byte, error) {
	vals, _, err := s.read(ctx, keys)
	return vals, err
}

// Member is one incarnation of a host process on the board: its ID and its liveness key,
// bound to an etcd session that expires ttl after the process stops answering.
type Member struct {
	c      *clientv3.Client
	store  *Store
	id     string
	ttl    int
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	sess *concurrency.Session
}

// DefaultTTL is the liveness TTL of [Join] when ttl is 0.
const DefaultTTL = 10 * time.Second

// Join starts an incarnation under prefix: it creates an etcd session with ttl (rounded
// up to whole seconds; 0 means DefaultTTL) and puts the liveness key
// <prefix>hosts/<incarnation> on its lease. A goroutine puts the key back under a new
// session whenever the session expires (the process was paused or cut off) until Close.
func Join(ctx context.Context, c *clientv3.Client, prefix string, ttl time.Duration) (*Member, error) {
	if ttl == 0 {
		ttl = DefaultTTL
	}
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	mctx, cancel := context.WithCancel(context.Background())
	m := &Member{c: c, store: NewStore(c, prefix), id: hex.EncodeToString(raw[:]), ttl: int((ttl + time.Second - 1) / time.Second),
		ctx: mctx, cancel: cancel}
	if err := m.register(ctx); err != nil {
		cancel()
		return nil, err
	}
	m.wg.Add(1)
	go m.keep()
	return m, nil
}

func (m *Member) register(ctx context.Context) error {
	sess, err := concurrency.NewSession(m.c, concurrency.WithTTL(m.ttl), concurrency.WithContext(m.ctx))
	if err != nil {
		return fmt.Errorf("cluster: starting the liveness session: %w", err)
	}
	key := m.store.prefix + store.LivenessPrefix + m.id
	if _, err := m.c.Put(ctx, key, time.Now().UTC().Format(time.RFC3339), clientv3.WithLease(sess.Lease())); err != nil {
		sess.Close()
		return fmt.Errorf("cluster: putting the liveness key %s: %w", key, err)
	}
	m.mu.Lock()
	m.sess = sess
	m.mu.Unlock()
	return nil
}

func (m *Member) keep() {
	defer m.wg.Done()
	for {
		m.mu.Lock()
		done := m.sess.Done()
		m.mu.Unlock()
		select {
		case <-m.ctx.Done():
			return
		case <-done:
		}
		for pause := 100 * time.Millisecond; m.ctx.Err() == nil; pause = min(2*pause, 2*time.Second) {
			ctx, cancel := context.WithTimeout(m.ctx, 5*time.Second)
			err := m.register(ctx)
			cancel()
			if err == nil {
				break
			}
			select {
			case <-m.ctx.Done():
			case <-time.After(pause):
			}
		}
	}
}

// Store returns the member's store.
func (m *Member) Store() *Store { return m.store }

// Incarnation returns the member's ID, to give taskboard.NewSharedDriver.
func (m *Member) Incarnation() string { return m.id }

// Close ends the incarnation: the session's lease is revoked, so its liveness key goes at
// once (the board's leases it holds stay, as for a dead process).
func (m *Member) Close() error {
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := m.c.Revoke(ctx, m.sess.Lease())
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}
