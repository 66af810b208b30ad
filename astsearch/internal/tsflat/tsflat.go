//go:build cgo

// Package tsflat parses source with tree-sitter (the grammars and runtime compiled by
// github.com/smacker/go-tree-sitter) and flattens each tree into a match.Tree in one cgo
// call: the C side parses, walks the tree with a cursor, writes one fixed-size record per
// node into a Go buffer and deletes the tree before it returns.
//
// smacker's *sitter.Language keeps its C pointer unexported, so instead of going through
// its Go API this package declares the runtime functions and each grammar's
// tree_sitter_<lang>() entry point itself (flatten.h); blank imports of smacker's packages
// link their compiled C. Only one tree-sitter runtime is ever linked.
package tsflat

/*
#cgo CFLAGS: -O2
#include "flatten.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// ErrCancelled is returned when a parse was stopped by its timeout.
var ErrCancelled = errors.New("tsflat: parse timed out or was cancelled")

// ErrTooLarge is returned for a source of 4 GiB or more, or a tree over the node cap.
var ErrTooLarge = errors.New("tsflat: source or tree too large")

// MaxNodes caps the flat tree of one file: 2^25 nodes of 44 bytes, about 1.5 GB. (A dense
// 10 MB minified JavaScript file, measured: 12 million nodes, 530 MB.)
const MaxNodes = 1 << 25

var (
	grammarOnce sync.Once
	grammars    map[string]*match.Grammar
)

func grammarFor(name string) (*match.Grammar, *C.TSLanguage) {
	l := languagePtr(name)
	if l == nil {
		return nil, nil
	}
	grammarOnce.Do(buildGrammars)
	return grammars[name], l
}

func buildGrammars() {
	grammars = make(map[string]*match.Grammar)
	for _, name := range Languages() {
		l := languagePtr(name)
		n := int(C.ts_language_symbol_count(l))
		kinds := make([]string, n)
		for i := range n {
			kinds[i] = C.GoString(C.ts_language_symbol_name(l, C.TSSymbol(i)))
		}
		grammars[name] = &match.Grammar{Name: name, Kinds: kinds, Expando: expando(name)}
	}
}

// Grammar returns the symbol table of a language, or nil when it has no grammar here.
func Grammar(name string) *match.Grammar {
	g, _ := grammarFor(name)
	return g
}

// Parser parses one language. It is not safe for concurrent use: a worker owns one per
// language and reuses its node buffer.
type Parser struct {
	p       *C.TSParser
	grammar *match.Grammar
	buf     []match.Node
}

// NewParser returns a parser for the language, or an error if it has no grammar here.
// timeoutMicros bounds one parse (0: no limit). Close must be called when done.
func NewParser(name string, timeoutMicros uint64) (*Parser, error) {
	g, l := grammarFor(name)
	if g == nil {
		return nil, fmt.Errorf("tsflat: no grammar for %q", name)
	}
	p := C.ts_parser_new()
	if !C.ts_parser_set_language(p, l) {
		C.ts_parser_delete(p)
		return nil, fmt.Errorf("tsflat: grammar %q has an ABI this runtime does not accept", name)
	}
	C.ts_parser_set_timeout_micros(p, C.uint64_t(timeoutMicros))
	return &Parser{p: p, grammar: g}, nil
}

// Grammar returns the parser's symbol table.
func (p *Parser) Grammar() *match.Grammar { return p.grammar }

// Close frees the C parser.
func (p *Parser) Close() {
	if p.p != nil {
		C.ts_parser_delete(p.p)
		p.p = nil
	}
}

// Parse parses src and returns its flat tree. The tree's node slice is the parser's
// buffer, valid until the next Parse; Clone it to keep it.
func (p *Parser) Parse(src []byte) (*match.Tree, error) {
	if uint64(len(src)) >= 1<<32-1 {
		return nil, ErrTooLarge
	}
	if cap(p.buf) == 0 {
		p.buf = make([]match.Node, 0, 1024)
	}
	want := len(src)/3 + 64
	if want > MaxNodes {
		want = MaxNodes
	}
	if cap(p.buf) < want {
		p.buf = make([]match.Node, 0, want)
	}
	for {
		var sp *C.char
		if len(src) > 0 {
			sp = (*C.char)(unsafe.Pointer(&src[0]))
		}
		buf := p.buf[:cap(p.buf)]
		n := C.hk_flatten(p.p, sp, C.uint32_t(len(src)), (*C.hk_node)(unsafe.Pointer(&buf[0])), C.uint32_t(len(buf)))
		if n < 0 {
			return nil, ErrCancelled
		}
		if int64(n) <= int64(len(buf)) {
			return &match.Tree{Src: src, Nodes: buf[:n]}, nil
		}
		if n > MaxNodes {
			return nil, ErrTooLarge
		}
		p.buf = make([]match.Node, 0, int(n)+int(n)/8)
	}
}

// Clone returns a copy of t whose nodes do not alias the parser's buffer.
func Clone(t *match.Tree) *match.Tree {
	return &match.Tree{Src: t.Src, Nodes: append([]match.Node(nil), t.Nodes...)}
}

// recordSize is checked against the Go struct by a test.
const recordSize = C.sizeof_hk_node
