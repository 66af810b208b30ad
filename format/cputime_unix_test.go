//go:build unix

package format_test

import "syscall"

// cpuNanos is the CPU time this process has used (user + system), a measure that a loaded
// machine inflates less than wall-clock time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
