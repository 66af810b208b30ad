//go:build cgo

// Package tsflat parses source with tree-sitter (the runtime compiled by
// github.com/tree-sitter/go-tree-sitter, each grammar by its own Go package, which a
// package under astsearch/lang hands to Register) and flattens each tree into a
// match.Tree, usually in one cgo call: the C side parses, walks the tree with a cursor,
// writes one fixed-size record per node (or only per node of the candidate subtrees a
// pattern can match) into a Go buffer and deletes the tree before it returns. When the buffer is too small the tree stays alive, the buffer
// grows, and a second call flattens the same tree and deletes it.
//
// The walk is C because walking a tree node by node through cgo costs about a microsecond
// a node. The binding keeps its C pointers unexported and its header cannot be included
// from another module's package, so the walk includes a copy of the runtime's header
// (include/tree_sitter/api.h) that a test keeps byte for byte equal to the header of the
// go-tree-sitter version the build uses. Grammar symbol tables are read
// through the binding's Go API. Parsers and trees are C memory that the garbage collector
// does not see: every Parser must be closed (a cleanup frees a forgotten one), and no tree
// outlives the call that made it.
package tsflat

/*
#cgo CFLAGS: -O2
#include "flatten.h"
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// ErrCancelled is returned when a parse was stopped by its timeout.
var ErrCancelled = errors.New("tsflat: parse timed out or was cancelled")

// ErrTooLarge is returned for a source of 4 GiB or more, or a tree over the node cap.
var ErrTooLarge = errors.New("tsflat: source or tree too large")

// MaxNodes caps the flat tree of one file: 2^25 nodes of 44 bytes, about 1.5 GB. (A dense
// 10 MB minified JavaScript file, measured: 12 million nodes, 530 MB.)
const MaxNodes = 1 << 25

func grammarFor(name string) (*match.Grammar, *C.TSLanguage) {
	p := languagePtr(name)
	if p == nil {
		return nil, nil
	}
	// Before the first parser allocates anything: see hk_use_libc_allocator.
	allocOnce.Do(func() { C.hk_use_libc_allocator() })
	regMu.Lock()
	defer regMu.Unlock()
	g := grammars[name]
	if g == nil {
		g = buildGrammar(name, p)
		grammars[name] = g
	}
	return g, (*C.TSLanguage)(p)
}

// buildGrammar reads a language's symbol table through the binding.
func buildGrammar(name string, p unsafe.Pointer) *match.Grammar {
	l := sitter.NewLanguage(p)
	kinds := make([]string, l.NodeKindCount())
	for i := range kinds {
		kinds[i] = l.NodeKindForId(uint16(i))
	}
	exact := make([]bool, len(kinds))
	for _, tok := range strings.Fields(exactTokens[name]) {
		for i, k := range kinds {
			if k == tok && !l.NodeKindIsNamed(uint16(i)) && l.NodeKindIsVisible(uint16(i)) {
				exact[i] = true
			}
		}
	}
	return &match.Grammar{Name: name, Kinds: kinds, Expando: expando(name), Exact: exact}
}

// Info describes a language's grammar: the tree-sitter ABI it was generated for, its own
// version when it records one (ABI 15 grammars do; "" otherwise), and the sizes of its
// tables, which tell two releases of a grammar apart.
type Info struct {
	ABI             uint32
	Version         string
	Symbols, States uint32
}

// GrammarInfo returns the Info of a language, and false when it has no grammar here.
func GrammarInfo(name string) (Info, bool) {
	p := languagePtr(name)
	if p == nil {
		return Info{}, false
	}
	l := sitter.NewLanguage(p)
	in := Info{ABI: l.AbiVersion(), Symbols: l.NodeKindCount(), States: l.ParseStateCount()}
	if m := l.Metadata(); m != nil && in.ABI >= 15 {
		in.Version = fmt.Sprintf("%d.%d.%d", m.MajorVersion, m.MinorVersion, m.PatchVersion)
	}
	return in, true
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
	flag    *C.size_t // the parser's cancellation flag (C memory: the runtime reads it)
	grammar *match.Grammar
	buf     []match.Node // flat records, reused from file to file
	cands   []int32      // candidate indices, as long as buf
	occ     []uint32     // offsets of the filtering literal in the source being parsed
	cleanup runtime.Cleanup
}

// cParser is the C memory of a Parser, freed by Close or, for a Parser dropped without
// Close, by a cleanup.
type cParser struct {
	p    *C.TSParser
	flag *C.size_t
}

func (c cParser) free() {
	C.ts_parser_delete(c.p)
	C.hk_flag_free(c.flag)
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
	flag := C.hk_flag_new()
	if flag == nil {
		C.ts_parser_delete(p)
		return nil, errors.New("tsflat: out of memory for a parser's cancellation flag")
	}
	C.ts_parser_set_cancellation_flag(p, flag)
	q := &Parser{p: p, flag: flag, grammar: g}
	q.cleanup = runtime.AddCleanup(q, cParser.free, cParser{p, flag})
	return q, nil
}

// Cancel makes the parse in progress, if any, and every later parse of p give up with
// ErrCancelled (tree-sitter checks the flag every hundred or so parse steps, so a parse
// stops within microseconds). It may be called from any goroutine while a parse runs, but
// not concurrently with Close (after Close it does nothing). A cancelled parser stays
// cancelled: make a new one.
func (p *Parser) Cancel() {
	C.hk_flag_set(p.flag)
	runtime.KeepAlive(p) // the cleanup must not free the flag during the call
}

// Grammar returns the parser's symbol table.
func (p *Parser) Grammar() *match.Grammar { return p.grammar }

// Close frees the C parser.
func (p *Parser) Close() {
	if p.p != nil {
		p.cleanup.Stop()
		cParser{p.p, p.flag}.free()
		p.p, p.flag = nil, nil
	}
}

// Parse parses src and returns its flat tree. The tree's node slice is the parser's
// buffer, valid until the next Parse; Clone it to keep it.
func (p *Parser) Parse(src []byte) (*match.Tree, error) {
	return p.parse(src, nil, nil, len(src)/3+64)
}

// ParseCandidates parses src and flattens only the subtrees of its candidates: the nodes
// whose kind is in kinds, a bitmap over the grammar's symbols (bit k of kinds[k/8]; see
// match.Pattern.CandidateKinds). The tree it returns is partial: Nodes holds each outermost
// candidate's subtree in pre-order, the subtree roots without parent or siblings, and
// Candidates the index of every candidate, nested ones included, in pre-order. With kinds
// nil it is Parse.
//
// lits are texts every match contains (match.Pattern.Literals). When there are some, a
// node outside the candidate subtrees whose byte range lacks the one of them that is
// rarest in src is skipped with its whole subtree, candidates included: no match can be
// in it. The buffers are the parser's, valid until the next parse.
func (p *Parser) ParseCandidates(src []byte, kinds []byte, lits [][]byte) (*match.Tree, error) {
	if kinds != nil && len(kinds) == 0 {
		kinds = []byte{0} // no kind: no candidate (a nil bitmap would mean every node)
	}
	var lit []byte
	if kinds != nil {
		lit = p.occurrences(src, lits)
	}
	// Candidate subtrees are usually a small part of the tree; the buffers grow on demand
	// and are kept for the next file.
	return p.parse(src, kinds, lit, 1024)
}

// occurrences puts the start offsets of the rarest of lits in src into p.occ, overlapping
// ones included, and returns that literal (nil when lits has no non-empty text).
func (p *Parser) occurrences(src []byte, lits [][]byte) []byte {
	var best []byte
	fewest := -1
	for _, l := range lits {
		if len(l) == 0 {
			continue
		}
		if c := bytes.Count(src, l); fewest < 0 || c < fewest {
			best, fewest = l, c
		}
	}
	p.occ = p.occ[:0]
	if best == nil {
		return nil
	}
	for i := 0; ; {
		k := bytes.Index(src[i:], best)
		if k < 0 {
			break
		}
		p.occ = append(p.occ, uint32(i+k))
		i += k + 1
	}
	return best
}

// parse is one cgo call in the common case: parse, flatten, free. When the buffers are too
// small, the tree is kept, the buffers grow to its size and the same tree is flattened again
// (a second call, which frees it). lit, when set, is the literal whose offsets are in p.occ;
// want is the first guess of the record count.
func (p *Parser) parse(src []byte, kinds []byte, lit []byte, want int) (*match.Tree, error) {
	defer runtime.KeepAlive(p) // the cleanup must not free the parser during a C call
	if uint64(len(src)) >= 1<<32-1 {
		return nil, ErrTooLarge
	}
	p.grow(max(1, min(want, MaxNodes)))
	var sp *C.char
	if len(src) > 0 {
		sp = (*C.char)(unsafe.Pointer(&src[0]))
	}
	var kp *C.uint8_t
	if len(kinds) > 0 {
		kp = (*C.uint8_t)(unsafe.Pointer(&kinds[0]))
	}
	nk := C.uint32_t(min(len(kinds)*8, 1<<16))
	var op *C.uint32_t
	var nocc C.uint32_t
	if lit != nil {
		// With no occurrence, a non-nil pointer still says "filter": every node is skipped.
		p.occ = append(p.occ, 0)
		op = (*C.uint32_t)(unsafe.Pointer(&p.occ[0]))
		nocc = C.uint32_t(len(p.occ) - 1)
	}
	ll := C.uint32_t(len(lit))
	var res C.hk_result
	if C.hk_parse_flatten(p.p, sp, C.uint32_t(len(src)), kp, nk, op, nocc, ll, p.nodePtr(), p.candPtr(), C.uint32_t(len(p.buf)), &res) < 0 {
		return nil, ErrCancelled
	}
	if res.tree != nil {
		// The buffers were too small; the tree is still alive.
		if int64(res.nodes) > MaxNodes {
			C.hk_tree_delete(res.tree)
			return nil, ErrTooLarge
		}
		p.grow(int(res.nodes) + int(res.nodes)/8)
		C.hk_flatten_tree(res.tree, kp, nk, op, nocc, ll, p.nodePtr(), p.candPtr(), C.uint32_t(len(p.buf)), &res)
		if res.tree != nil { // cannot happen: the same tree fits the grown buffers
			C.hk_tree_delete(res.tree)
			return nil, fmt.Errorf("tsflat: the tree outgrew its buffer twice")
		}
	}
	t := &match.Tree{Src: src, Nodes: p.buf[:res.nodes]}
	if kinds != nil {
		t.Partial = true
		t.Candidates = p.cands[:res.cands]
	}
	return t, nil
}

// grow makes the node and candidate buffers hold at least n records.
func (p *Parser) grow(n int) {
	if len(p.buf) >= n {
		return
	}
	p.buf = make([]match.Node, n)
	p.cands = make([]int32, n)
}

func (p *Parser) nodePtr() *C.hk_node { return (*C.hk_node)(unsafe.Pointer(&p.buf[0])) }
func (p *Parser) candPtr() *C.int32_t { return (*C.int32_t)(unsafe.Pointer(&p.cands[0])) }

// Clone returns a copy of t whose nodes and candidates do not alias the parser's buffers.
func Clone(t *match.Tree) *match.Tree {
	return &match.Tree{Src: t.Src, Nodes: slices.Clone(t.Nodes), Partial: t.Partial, Candidates: slices.Clone(t.Candidates)}
}

// recordSize is checked against the Go struct by a test.
const recordSize = C.sizeof_hk_node

// parseOnly parses src and frees the tree, for measuring what flattening adds.
func (p *Parser) parseOnly(src []byte) error {
	var sp *C.char
	if len(src) > 0 {
		sp = (*C.char)(unsafe.Pointer(&src[0]))
	}
	rc := C.hk_parse_only(p.p, sp, C.uint32_t(len(src)))
	runtime.KeepAlive(p)
	if rc < 0 {
		return ErrCancelled
	}
	return nil
}
