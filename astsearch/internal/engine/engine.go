// Package engine is where the in-process parser plugs into astsearch. Package tsflat, which
// links the tree-sitter runtime through cgo, installs itself here from init, and every
// package under astsearch/lang imports tsflat; astsearch itself imports only this package.
// So a program that imports astsearch and no language links no tree-sitter code at all, and
// one that imports a language links the runtime with it.
package engine

import (
	"sync"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// Parser parses one language; it is not safe for concurrent use except Cancel.
type Parser interface {
	// Parse returns the flat tree of src, valid until the next parse.
	Parse(src []byte) (*match.Tree, error)
	// ParseCandidates flattens only the candidate subtrees (see tsflat).
	ParseCandidates(src []byte, kinds []byte, lits [][]byte) (*match.Tree, error)
	Grammar() *match.Grammar
	// Cancel stops the parse in progress and every later one; any goroutine may call it.
	Cancel()
	Close()
}

// Engine is what tsflat provides.
type Engine struct {
	// Languages lists the registered languages' canonical names, sorted.
	Languages func() []string
	// NewParser returns a parser for a registered language, each parse bounded by
	// timeoutMicros (0: no bound).
	NewParser func(name string, timeoutMicros uint64) (Parser, error)
}

var (
	mu        sync.Mutex
	installed *Engine
)

// Install makes e the engine. It is called once, from tsflat's init; a second call panics.
func Install(e *Engine) {
	mu.Lock()
	defer mu.Unlock()
	if installed != nil {
		panic("engine: Install called twice")
	}
	installed = e
}

// Installed returns the engine, or nil when the program links no grammar.
func Installed() *Engine {
	mu.Lock()
	defer mu.Unlock()
	return installed
}
