// Package crashtest holds the write layer's tests across processes: writers (patch,
// astsearch) run in child processes — the test binary itself — that are killed with SIGKILL
// at random points of their commits, after which every tree must be in its state before or
// after the commit; and several processes (patch, astsearch and format.File workers) edit the
// same files at once, after which every edit they reported as written, and every result
// format reported as written, must be in the files. It has no code of its own: see its
// tests. CRASHTEST_KILLS and CRASHTEST_OPS scale the runs (defaults 150 kills per writer and
// 1,200 operations, which the README's test command runs); the full run of the lost-update
// test is
//
//	CRASHTEST_OPS=5000 go test -race -run TestNoLostUpdates ./crashtest
package crashtest
