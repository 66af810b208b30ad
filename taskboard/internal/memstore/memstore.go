// Package memstore is an in-memory versioned key-value store with multi-key
// compare-and-set: the engine behind taskboardtest.NewStore and the taskboard package's
// own tests.
package memstore

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Store is safe for concurrent use.
type Store struct {
	uncertain error // what an injected uncertain commit wraps

	mu      sync.Mutex
	rev     int64
	kv      map[string]entry
	inject  []Fault
	updates int // calls of f
	commits int // writes applied by Update
}

type entry struct {
	val []byte
	mod int64
}

// Fault is an injected commit outcome: the next commit fails with the uncertain error,
// after applying the write (Landed) or without applying it.
type Fault struct{ Landed bool }

// New returns an empty store whose injected uncertain commits wrap uncertain.
func New(uncertain error) *Store { return &Store{uncertain: uncertain, kv: map[string]entry{}} }

// Update implements taskboard.Store.
func (s *Store) Update(ctx context.Context, keys []string, f func(map[string][]byte) (map[string][]byte, error)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.mu.Lock()
		vals, mods := map[string][]byte{}, map[string]int64{}
		for _, k := range keys {
			e, ok := s.kv[k]
			if ok {
				vals[k] = append([]byte(nil), e.val...)
			}
			mods[k] = e.mod
		}
		s.updates++
		s.mu.Unlock()
		w, err := f(vals)
		if err != nil {
			return err
		}
		allowed := map[string]bool{}
		for _, k := range keys {
			allowed[k] = true
		}
		for k := range w {
			if !allowed[k] {
				return fmt.Errorf("memstore: Update wrote key %q it did not read", k)
			}
		}
		if len(w) == 0 {
			return nil
		}
		s.mu.Lock()
		conflict := false
		for _, k := range keys {
			if s.kv[k].mod != mods[k] {
				conflict = true
			}
		}
		if conflict {
			s.mu.Unlock()
			continue
		}
		var fault *Fault
		if len(s.inject) > 0 {
			fault = &s.inject[0]
			s.inject = s.inject[1:]
		}
		if fault == nil || fault.Landed {
			s.commits++
			s.rev++
			for k, v := range w {
				if v == nil {
					delete(s.kv, k)
				} else {
					s.kv[k] = entry{val: append([]byte(nil), v...), mod: s.rev}
				}
			}
		}
		s.mu.Unlock()
		if fault != nil {
			return fmt.Errorf("memstore: injected fault (landed=%t): %w", fault.Landed, s.uncertain)
		}
		return nil
	}
}

// Get implements taskboard.Store.
func (s *Store) Get(ctx context.Context, keys ...string) (map[string][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]byte{}
	for _, k := range keys {
		if e, ok := s.kv[k]; ok {
			out[k] = append([]byte(nil), e.val...)
		}
	}
	return out, nil
}

// Put sets key outside any Update (a liveness key, a test's setup).
func (s *Store) Put(key string, val []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	s.kv[key] = entry{val: append([]byte(nil), val...), mod: s.rev}
}

// Delete removes key (an expired liveness key).
func (s *Store) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	delete(s.kv, key)
}

// Inject queues faults for the next commits.
func (s *Store) Inject(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inject = append(s.inject, f...)
}

// Keys returns the stored keys, sorted.
func (s *Store) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := make([]string, 0, len(s.kv))
	for k := range s.kv {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Counts returns how many times Update called f and how many writes it applied: the
// difference is the steps re-run after a conflict (or read-only).
func (s *Store) Counts() (runs, commits int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updates, s.commits
}
