//go:build !cgo

package astsearch

import "fmt"

func nativeParser(l Lang) (treeParser, error) {
	return nil, fmt.Errorf("%w: %w", ErrUnavailable, errNoCgo)
}

const haveNative = false
