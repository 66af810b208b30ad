//go:build !race

package loopguard_test

// raceEnabled is true under -race (see race_external_test.go).
const raceEnabled = false
