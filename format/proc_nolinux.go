//go:build !linux

package format

import "syscall"

// runToken returns "": outside Linux there is no way here to find a run's processes by
// their environment, so they are not marked.
func runToken() string { return "" }

// sweep does nothing outside Linux (see runToken).
func sweep(string, int) {}

// setDeathSignal does nothing outside Linux.
func setDeathSignal(*syscall.SysProcAttr) {}

// pinThread has nothing to pin: there is no death signal to keep.
func pinThread() func() { return func() {} }
