//go:build !cgo

package astsearch

import "fmt"

func nativeParser(l Lang) (treeParser, error) {
	return nil, fmt.Errorf("%w: %w", ErrUnavailable, errNoCgo)
}

const haveNative = false

// NativeLangs returns the languages the native backend can search in this program, sorted:
// those whose package under astsearch/lang some package imports (see [Lang.ImportPath]).
// Without cgo it returns nil.
func NativeLangs() []Lang { return nil }
