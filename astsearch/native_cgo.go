//go:build cgo

package astsearch

import (
	"slices"
	"time"

	"github.com/harnesskit/harnesskit/astsearch/internal/engine"
)

// nativeParser returns a tree-sitter parser for the language, each parse bounded by
// ParseTimeout.
func nativeParser(l Lang) (treeParser, error) { return nativeParserWithin(ParseTimeout)(l) }

// nativeParserWithin returns a factory whose parsers give up after d.
func nativeParserWithin(d time.Duration) parserFactory {
	return func(l Lang) (treeParser, error) { return newNative(l, d) }
}

// newNative returns the engine's parser; the engine is there when the program imports a
// package under astsearch/lang (none: the program links no tree-sitter code).
func newNative(l Lang, d time.Duration) (treeParser, error) {
	e := engine.Installed()
	if e == nil || !slices.Contains(e.Languages(), string(l)) {
		return nil, &LangNotLinkedError{Lang: l, Linked: NativeLangs()}
	}
	p, err := e.NewParser(string(l), uint64(d.Microseconds()))
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
	e := engine.Installed()
	if e == nil {
		return nil
	}
	var out []Lang
	for _, name := range e.Languages() {
		out = append(out, Lang(name))
	}
	return out
}
