//go:build unix && !(linux || darwin)

package wfs

import "os"

// copyXattrs has no portable extended-attribute calls to use on this system; the package
// documentation says so.
func copyXattrs(src, dst *os.File) error { return nil }
