//go:build cgo

package astsearch

import (
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
		return nil, &LangNotLinkedError{Lang: l, Linked: NativeLangs()}
	}
	p, err := tsflat.NewParser(string(l), uint64(d.Microseconds()))
	if err != nil {
		return nil, err
	}
	return p, nil
}

const haveNative = true

// NativeLangs returns the languages the native backend can search in this program, sorted:
// those whose package under astsearch/lang some package imports (see [Lang.ImportPath]).
// Without cgo it returns nil.
func NativeLangs() []Lang {
	var out []Lang
	for _, name := range tsflat.Languages() {
		out = append(out, Lang(name))
	}
	return out
}
