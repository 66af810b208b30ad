//go:build race

package tools_test

// raceEnabled: the race detector's sync.Pool drops pooled regexp machines, so allocation
// figures mean nothing under it.
const raceEnabled = true
