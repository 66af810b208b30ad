//go:build !unix

package wfs

import "os"

// copyMeta keeps nothing but the mode on this system (on Windows the owner and the ACL of a
// new file come from its directory); the package documentation says so.
func copyMeta(r1 *os.Root, src string, r2 *os.Root, dst string) error {
	if _, err := r1.Stat(src); err != nil {
		return err
	}
	_, err := r2.Stat(dst)
	return err
}
