//go:build cgo

package astsearch

import (
	"fmt"
	"slices"
	"time"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

// nativeParser returns a tree-sitter parser for the language, each parse bounded by
// ParseTimeout.
func nativeParser(l Lang) (treeParser, error) { return nativeParserWithin(ParseTimeout)(l) }

// nativeParserWithin returns a factory whose parsers give up after d.
func nativeParserWithin(d time.Duration) parserFactory {
	return func(l Lang) (treeParser, error) { return newNative(l, d) }
}

func newNative(l Lang, d time.Duration) (treeParser, error) {
	if !slices.Contains(tsflat.Languages(), string(l)) {
		return nil, fmt.Errorf("%w: %s has no native grammar (native languages: %v); use the ast-grep CLI backend", ErrLangUnavailable, l, tsflat.Languages())
	}
	p, err := tsflat.NewParser(string(l), uint64(d.Microseconds()))
	if err != nil {
		return nil, err
	}
	return p, nil
}

const haveNative = true
