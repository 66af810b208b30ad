//go:build !unix

package format_test

// cpuNanos is not measured here.
func cpuNanos() int64 { return 0 }
