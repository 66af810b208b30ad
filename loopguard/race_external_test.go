//go:build race

package loopguard_test

// raceEnabled is true under -race, where encoding/json runs instrumented and decoding a
// 32 MiB argument object takes tens of seconds: the largest inputs shrink there.
const raceEnabled = true
