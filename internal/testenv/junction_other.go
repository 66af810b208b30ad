//go:build !windows

package testenv

import (
	"errors"
	"os"
)

// Junction is Windows-only; elsewhere it fails with errors.ErrUnsupported.
func Junction(link, target string) error {
	return &os.PathError{Op: "junction", Path: link, Err: errors.ErrUnsupported}
}
