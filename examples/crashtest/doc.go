// Package crashtest holds the write layer's tests across processes: writers (patch,
// astsearch) run in child processes — the test binary itself — that are killed with SIGKILL
// at random points of their commits, after which every tree must be in its state before or
// after the commit; and several processes edit the same files at once, after which every
// edit they reported as written must be in the files. It has no code of its own: see its
// tests. CRASHTEST_KILLS and CRASHTEST_OPS scale the runs (defaults 150 kills per writer and
// 1,200 operations).
package crashtest
