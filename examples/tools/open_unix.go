//go:build unix

package tools

import "syscall"

// openNonblock keeps opening a FIFO from waiting for a writer; regular files ignore it.
const openNonblock = syscall.O_NONBLOCK
