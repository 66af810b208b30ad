// Package e2e holds the end-to-end tests of the task board shared through etcd: members
// embedded in the test process on loopback, host processes started by the tests (the
// test binary run again), a fake agent runtime served over HTTP that records every call,
// and faults: SIGKILL of a host mid-cancel, SIGSTOP past the liveness TTL, the etcd leader
// stopped under traffic, a cancel racing a message, a deletion racing a revive's
// admission. Recorded launch histories are checked per shard with porcupine, the
// in-memory board being the model. BenchmarkSharedStep measures a step on 1 and 3
// members. The demo (go run ./cluster/e2e/demo) shows three host processes on one board.
//
// It is its own module, which nothing imports, so that the etcd server and porcupine are
// never dependencies of the library.
package e2e
