// Package e2e holds the end-to-end tests of the shared task board: etcd members and host
// processes started by the tests, a fake host that records every call, faults injected
// (kill -9, SIGSTOP, the etcd leader killed), and porcupine checks of the recorded
// histories. It is its own module, which nothing imports, so that the etcd server and
// porcupine are never dependencies of the library.
package e2e
