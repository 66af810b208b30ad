//go:build cgo

package astsearch

import "testing"

// TestReplaceRangeNative checks the replaced-range table with the real grammars.
func TestReplaceRangeNative(t *testing.T) {
	native := &nativeBackend{factory: nativeParser}
	for _, c := range replaceRangeCases {
		t.Run(c.name, func(t *testing.T) { checkReplaceRange(t, native, c) })
	}
}
