//go:build cgo

package tsflat

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/harnesskit/harnesskit/astsearch/internal/engine"
	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// Grammars are not linked here: each language's package under astsearch/lang imports its
// grammar's own Go package (a cgo package that compiles only that grammar's C, its parser
// tables and external scanner, and hands out its TSLanguage as an unsafe.Pointer) and
// calls Register from init. A program compiles only the grammars it imports. The runtime
// is github.com/tree-sitter/go-tree-sitter's (imported in tsflat.go).
//
// The cost of a cold build: the tree-sitter/* and tree-sitter-grammars/* packages
// #include their parser.c in the cgo preamble, so cmd/cgo runs the C compiler over it
// five times before the compile proper (preprocessing for macros, then twice a
// kind-guessing pass at -O0 and a DWARF pass at the build's -O level, -O2 by default: the
// second round asks about the typedefs the first found), which is most of a cold build's
// CPU; the package doc of astsearch has the figures per host.

// names are the canonical names a grammar may be registered under: ast-grep's 25.
var names = []string{"bash", "c", "cpp", "csharp", "css", "elixir", "go", "haskell", "html",
	"java", "javascript", "json", "kotlin", "lua", "nix", "php", "python", "ruby", "rust",
	"scala", "solidity", "swift", "tsx", "typescript", "yaml"}

var (
	regMu     sync.Mutex
	registry  = map[string]func() unsafe.Pointer{} // canonical name → the grammar's TSLanguage
	grammars  = map[string]*match.Grammar{}        // built on a language's first use
	allocOnce sync.Once
)

// Register makes a grammar available under a canonical language name; lang returns its
// TSLanguage. The packages under astsearch/lang call it from init. It panics on a name that
// is not one of ast-grep's 25, a nil lang, or a name registered twice: all mistakes in the
// program's set-up, not its input.
func Register(name string, lang func() unsafe.Pointer) {
	if !slices.Contains(names, name) {
		panic(fmt.Sprintf("tsflat: Register of unknown language %q", name))
	}
	if lang == nil {
		panic("tsflat: Register of " + name + " with a nil grammar")
	}
	regMu.Lock()
	defer regMu.Unlock()
	if registry[name] != nil {
		panic("tsflat: Register called twice for " + name)
	}
	registry[name] = lang
}

// Languages lists the canonical names of the registered languages, sorted.
func Languages() []string {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]string, 0, len(registry))
	for name := range registry {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func languagePtr(name string) unsafe.Pointer {
	regMu.Lock()
	f := registry[name]
	regMu.Unlock()
	if f != nil {
		return f()
	}
	return nil
}

func expando(name string) rune {
	switch name {
	case "csharp", "elixir", "go", "haskell", "kotlin", "php", "python", "ruby", "rust", "swift":
		return 'µ'
	case "c", "cpp":
		return '\U00010000'
	case "css", "nix":
		return '_'
	case "html":
		return 'z'
	}
	return '$'
}

// init plugs the parser into astsearch (see package engine): it runs in every program that
// imports a package under astsearch/lang, and only there.
func init() {
	engine.Install(&engine.Engine{
		Languages: Languages,
		NewParser: func(name string, timeoutMicros uint64) (engine.Parser, error) {
			p, err := NewParser(name, timeoutMicros)
			if err != nil {
				return nil, err // not a nil *Parser in a non-nil interface
			}
			return p, nil
		},
	})
}

var _ engine.Parser = (*Parser)(nil)
