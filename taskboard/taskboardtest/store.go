package taskboardtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/harnesskit/harnesskit/taskboard/internal/memstore"
	"github.com/harnesskit/harnesskit/taskboard/store"
)

// Store is an in-memory [store.Store]: several drivers built on one Store with
// different incarnations behave as host processes sharing one board. Liveness keys are
// set and removed by hand ([Store.Live], [Store.Kill]); commits can be made uncertain
// ([Store.Uncertain]). Safe for concurrent use.
type Store struct{ *memstore.Store }

// NewStore returns an empty store.
func NewStore() *Store { return &Store{memstore.New(store.ErrUncertain)} }

// Live creates the liveness key of incarnation; Kill removes it, as an expired session would.
func (s *Store) Live(incarnation string) {
	s.Put(store.LivenessPrefix+incarnation, []byte("alive"))
}

// Kill removes the liveness key of incarnation.
func (s *Store) Kill(incarnation string) { s.Delete(store.LivenessPrefix + incarnation) }

// Uncertain makes the next commit fail with an error wrapping store.ErrUncertain,
// after applying its write when landed is true, without applying it otherwise.
func (s *Store) Uncertain(landed bool) { s.Inject(memstore.Fault{Landed: landed}) }

var _ store.Store = (*Store)(nil)

// TestStore checks that s behaves as a [store.Store]: reads at one revision, writes
// only when nothing read changed (an absent key included), re-runs on conflicts without
// losing an update, returns f's error and writes nothing, refuses writes to keys it did
// not read, and commits multi-key writes atomically. It uses keys under a fresh prefix
// "conformance/<n>/" and leaves them behind. It returns the first violation found.
func TestStore(ctx context.Context, s store.Store) error {
	p := fmt.Sprintf("conformance/%d/", time.Now().UnixNano())
	k := func(name string) string { return p + name }

	// Create, read back, delete.
	if err := s.Update(ctx, []string{k("a")}, func(v map[string][]byte) (map[string][]byte, error) {
		if _, ok := v[k("a")]; ok {
			return nil, errors.New("a fresh key is present")
		}
		return map[string][]byte{k("a"): []byte("1")}, nil
	}); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	got, err := s.Get(ctx, k("a"), k("missing"))
	if err != nil || string(got[k("a")]) != "1" || got[k("missing")] != nil {
		return fmt.Errorf("get after create: %q, %v", got, err)
	}
	if _, ok := got[k("missing")]; ok {
		return errors.New("get: an absent key is in the map")
	}
	if err := s.Update(ctx, []string{k("a")}, func(map[string][]byte) (map[string][]byte, error) {
		return map[string][]byte{k("a"): nil}, nil
	}); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if got, _ := s.Get(ctx, k("a")); len(got) != 0 {
		return fmt.Errorf("a deleted key is still there: %q", got)
	}

	// f's error ends Update, nothing written.
	boom := errors.New("boom")
	if err := s.Update(ctx, []string{k("b")}, func(map[string][]byte) (map[string][]byte, error) {
		return map[string][]byte{k("b"): []byte("x")}, boom
	}); !errors.Is(err, boom) {
		return fmt.Errorf("f's error: got %v", err)
	}
	if got, _ := s.Get(ctx, k("b")); len(got) != 0 {
		return errors.New("a failing f wrote")
	}

	// A key f did not read cannot be written.
	if err := s.Update(ctx, []string{k("c")}, func(map[string][]byte) (map[string][]byte, error) {
		return map[string][]byte{k("other"): []byte("x")}, nil
	}); err == nil {
		return errors.New("a write to an unread key was accepted")
	}
	if got, _ := s.Get(ctx, k("other")); len(got) != 0 {
		return errors.New("a write to an unread key landed")
	}

	// Concurrent increments of one key: no update is lost, conflicts re-run f.
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := s.Update(ctx, []string{k("n"), k("m")}, func(v map[string][]byte) (map[string][]byte, error) {
					n, _ := strconv.Atoi(string(v[k("n")]))
					m, _ := strconv.Atoi(string(v[k("m")]))
					if n != m {
						return nil, fmt.Errorf("multi-key write not atomic: n=%d m=%d", n, m)
					}
					return map[string][]byte{k("n"): []byte(strconv.Itoa(n + 1)), k("m"): []byte(strconv.Itoa(m + 1))}, nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return fmt.Errorf("concurrent increments: %w", err)
	}
	got, err = s.Get(ctx, k("n"), k("m"))
	if err != nil || string(got[k("n")]) != strconv.Itoa(workers*each) || !bytes.Equal(got[k("n")], got[k("m")]) {
		return fmt.Errorf("after %d increments: %q, %v (lost updates)", workers*each, got, err)
	}

	// An absent key read must still be absent at commit: a concurrent creation makes f
	// run again and see it.
	calls := 0
	err = s.Update(ctx, []string{k("d"), k("guard")}, func(v map[string][]byte) (map[string][]byte, error) {
		calls++
		if calls == 1 {
			if err := s.Update(ctx, []string{k("guard")}, func(map[string][]byte) (map[string][]byte, error) {
				return map[string][]byte{k("guard"): []byte("taken")}, nil
			}); err != nil {
				return nil, err
			}
		}
		if v[k("guard")] != nil {
			return nil, nil // a read-only outcome: nothing to write
		}
		return map[string][]byte{k("d"): []byte("claimed")}, nil
	})
	if err != nil {
		return fmt.Errorf("absent-key guard: %w", err)
	}
	if got, _ := s.Get(ctx, k("d")); len(got) != 0 || calls < 2 {
		return fmt.Errorf("a write based on an absent key committed after the key was created (calls %d)", calls)
	}
	return nil
}
