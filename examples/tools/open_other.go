//go:build !unix

package tools

// openNonblock: no FIFOs to guard against here.
const openNonblock = 0
