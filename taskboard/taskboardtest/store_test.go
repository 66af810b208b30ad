package taskboardtest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

func TestStoreConformance(t *testing.T) {
	if err := taskboardtest.TestStore(context.Background(), taskboardtest.NewStore()); err != nil {
		t.Fatal(err)
	}
}

// blind is a broken store: it writes what f computed from an earlier read without
// checking that nothing changed (no compare-and-set).
type blind struct{ *taskboardtest.Store }

func (b blind) Update(ctx context.Context, keys []string, f func(map[string][]byte) (map[string][]byte, error)) error {
	vals, err := b.Get(ctx, keys...)
	if err != nil {
		return err
	}
	w, err := f(vals)
	if err != nil || len(w) == 0 {
		return err
	}
	time.Sleep(time.Millisecond) // let another writer in
	return b.Store.Update(ctx, keys, func(map[string][]byte) (map[string][]byte, error) { return w, nil })
}

// TestStoreCatchesLostUpdates: the conformance check fails a store without
// compare-and-set.
func TestStoreCatchesLostUpdates(t *testing.T) {
	err := taskboardtest.TestStore(context.Background(), blind{taskboardtest.NewStore()})
	if err == nil || !strings.Contains(err.Error(), "lost updates") && !strings.Contains(err.Error(), "absent") && !strings.Contains(err.Error(), "atomic") {
		t.Fatal("TestStore accepted a store that loses updates")
	}
	t.Log(err)
}
