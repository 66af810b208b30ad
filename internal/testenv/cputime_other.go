//go:build !unix

package testenv

// CPUNanos is not measured here: it returns 0.
func CPUNanos() int64 { return 0 }
