// Package cluster runs harnesskit's shared state on servers several host processes reach:
// the task board on etcd ([Join], [Member.Store]) for taskboard.NewSharedDriver.
//
// It is its own module, so that a one-process host that imports only the root module
// never downloads an etcd client.
//
// # The board on etcd
//
//	Join(ctx, client, prefix, ttl) → Member {Store, Incarnation} → taskboard.NewSharedDriver
//	  … → Member.Close (the liveness key goes at once)
//
// [Store] is a taskboard/store.Store over an etcd client: Update reads its keys in one
// transaction, calls the step, and commits with If(ModRevision(k) == read revision) for
// every key read (CreateRevision 0 for an absent key) — etcd's linearizable multi-key
// compare-and-set; a failed comparison re-reads and re-runs. A commit whose answer is
// lost (a timeout, a leader change, a broken connection after the request left) is
// reported wrapping taskboard/store.ErrUncertain; the driver then reads the shard back.
//
// A [Member] is one incarnation: a random ID and the liveness key
// <prefix>hosts/<incarnation> bound to an etcd session (a lease of ttl kept alive by the
// client). Leases of the task board are never etcd leases: they are values in the shards,
// and a member whose session expired (killed, partitioned, paused past its TTL) keeps
// their exclusion. When a paused member resumes, its session is gone; Member keeps its
// incarnation and puts its liveness key back under a new session, so it settles its own
// leases as before.
//
// # Limits
//
// Host clocks should be synchronised (NTP): records carry each host's readings, so a skew
// of s between hosts moves the time-based rules (the 5 s stop grace, possibly_stuck) by up
// to s. While a process cannot reach etcd its tool calls fail within their deadline with
// nothing changed, and its host events and replies wait (Observe blocks) until etcd is
// back or the driver closes. Each step costs one read and one conditional write; the
// benchmark BenchmarkSharedStep in cluster/e2e measures it.
//
// # Security Considerations
//
// Anyone who can write under prefix can change the board: give each deployment its own
// prefix and an etcd role limited to it. Shards hold task descriptions and result
// excerpts from models; they are data, never executed.
package cluster
