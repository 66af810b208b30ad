// Package store is the seam a shared task board lives behind: a versioned key-value store
// with multi-key compare-and-set. [github.com/harnesskit/harnesskit/taskboard.NewSharedDriver]
// keeps its board in one, so that the drivers of several host processes share it; the cluster module puts it on
// etcd, and taskboardtest.NewStore is an in-memory one (taskboardtest.TestStore checks
// any implementation).
//
// A one-process host needs none of this: it uses taskboard.NewDriver.
//
// # How a shared driver uses it
//
// The board is cut into shards, one per parent session, plus an index from task to
// parent. Each step of a shared driver loads the shards it concerns in one [Store.Update],
// steps the protocols on them and commits only if nothing it read changed meanwhile, else
// runs again; host calls, timers and replies happen only after the commit, so a re-run
// never calls the host twice. A commit that fails wrapping [ErrUncertain] is read back to
// learn whether it landed. Generations and lease tokens count per parent; results over
// 500 characters are cut.
//
// Every process is one incarnation (one life of one host process) and owns the liveness
// key LivenessPrefix+incarnation, which the store's owner binds to something that
// expires (an etcd session); the board only reads it. A dead holder's lease keeps
// excluding its task, as a live one does, unless its host call was never dispatched (then
// it is released, audited); taskboard.Driver.TakeOver breaks the rest once the holder's
// key is gone.
//
// # Security Considerations
//
// Anyone who can write the store can change the board. Values hold task descriptions and
// result excerpts from models; they are data, never executed.
package store

import (
	"context"
	"errors"
)

// Store is where a shared board lives. It must be safe for concurrent use.
type Store interface {
	// Update reads keys at one revision and calls f with the values of those present
	// (absent keys are missing from the map). It writes f's result (a nil value deletes
	// the key; f may write only keys it was given) only if none of keys changed since
	// that read, an absent key included; otherwise it reads again and calls f again.
	// An error from f ends Update with that error and nothing written. When the write
	// may or may not have happened, the error wraps ErrUncertain.
	Update(ctx context.Context, keys []string, f func(map[string][]byte) (map[string][]byte, error)) error
	// Get reads keys at one revision; absent keys are missing from the map.
	Get(ctx context.Context, keys ...string) (map[string][]byte, error)
}

// ErrUncertain is wrapped by a [Store] error when a write may have committed.
var ErrUncertain = errors.New("store write outcome unknown")

// LivenessPrefix is where liveness keys live: the key LivenessPrefix+incarnation exists
// while that incarnation is alive.
const LivenessPrefix = "hosts/"
