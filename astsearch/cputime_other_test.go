//go:build cgo && !unix

package astsearch

import "time"

// processCPU is not measured here: the side-by-side reports wall time only.
func processCPU() time.Duration { return 0 }
