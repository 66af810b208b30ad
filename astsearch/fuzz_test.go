//go:build cgo

package astsearch

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

// fuzzParser bounds each parse: the Swift grammar needs more than 30 s for some short
// broken texts (see TestUnparsedFilesReported; ast-grep's Swift grammar parses them at
// once). A parse that times out is an error, never a hang or a panic.
var fuzzParser = nativeParserWithin(time.Second)

func parseTimedOut(err error) bool { return errors.Is(err, tsflat.ErrCancelled) }

var fuzzLangs = []Lang{Go, JavaScript, Python, TSX, Rust, C, Bash, CSS, HTML, YAML, Haskell, JSON, Lua, Nix, PHP, Solidity}

// checkMatches checks what must hold for any match list: pre-order (start ascending, outer
// first), text equal to the source range, captures inside the match, the literal present.
func checkMatches(t *testing.T, p *Pattern, src []byte, ms []Match) {
	t.Helper()
	lit, hasLit := p.Literal()
	for i, m := range ms {
		r := m.Range.ByteOffset
		if r.Start < 0 || r.End > len(src) || r.Start > r.End || m.Text != string(src[r.Start:r.End]) {
			t.Fatalf("match %d: bad range %+v for text %q", i, r, m.Text)
		}
		if i > 0 {
			q := ms[i-1].Range.ByteOffset
			if r.Start < q.Start {
				t.Fatalf("match %d starts before match %d: not pre-order", i, i-1)
			}
		}
		if hasLit && !strings.Contains(m.Text, lit) && p.p.Root.Meta == 0 {
			t.Fatalf("match %q lacks the literal %q: the prefilter would be unsound", m.Text, lit)
		}
		for _, l := range p.p.Literals(1) {
			if !strings.Contains(m.Text, l) && p.p.Root.Meta == 0 {
				t.Fatalf("match %q lacks the literal %q: the prefilter would be unsound", m.Text, l)
			}
		}
		if m.MetaVariables == nil {
			continue
		}
		for name, c := range m.MetaVariables.Single {
			if c.Range.ByteOffset.Start < r.Start || c.Range.ByteOffset.End > r.End {
				t.Fatalf("capture $%s %+v outside its match %+v", name, c.Range.ByteOffset, r)
			}
		}
		for name, cs := range m.MetaVariables.Multi {
			for _, c := range cs {
				if c.Range.ByteOffset.Start < r.Start || c.Range.ByteOffset.End > r.End {
					t.Fatalf("capture $$$%s %+v outside its match %+v", name, c.Range.ByteOffset, r)
				}
			}
		}
	}
}

// FuzzCompile compiles arbitrary patterns: never a panic, an error only ErrBadPattern, and
// a compiled pattern matches its own source text at least when it is plain code.
// Seeds: the conformance patterns.
func FuzzCompile(f *testing.F) {
	for _, c := range loadConformance(f) {
		for i, l := range fuzzLangs {
			if string(l) == c.Language {
				f.Add(c.Pattern, uint8(i), uint8(0))
			}
		}
	}
	f.Fuzz(func(t *testing.T, pattern string, li, si uint8) {
		l := fuzzLangs[int(li)%len(fuzzLangs)]
		s := Strictness(si % 6)
		p, err := compileWith(fuzzParser, pattern, l, s)
		if err != nil {
			if !strings.Contains(err.Error(), "pattern") {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		ms, err := p.FindAll([]byte(pattern))
		if parseTimedOut(err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkMatches(t, p, []byte(pattern), ms)
		for _, m := range ms {
			_ = ExpandTemplate("x($$$A, $B)\n  $C", m, []byte(pattern))
		}
	})
}

// FuzzMatch matches conformance patterns against arbitrary sources.
func FuzzMatch(f *testing.F) {
	cases := loadConformance(f)
	for i, c := range cases {
		f.Add(uint16(i), c.Source)
	}
	f.Fuzz(func(t *testing.T, ci uint16, src string) {
		c := cases[int(ci)%len(cases)]
		s, _ := ParseStrictness(c.Strictness)
		p, err := compileWith(fuzzParser, c.Pattern, Lang(c.Language), s)
		if err != nil {
			return
		}
		ms, err := p.FindAll([]byte(src))
		if parseTimedOut(err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkMatches(t, p, []byte(src), ms)
		for _, m := range ms {
			_ = ExpandTemplate(c.Rewrite+"\n$A $$$B", m, []byte(src))
		}
		// The C side flattens only candidate subtrees that hold the rarest literal: the
		// whole tree, tried node by node, must give the same matches.
		full, err := compileWith(fuzzFullTrees, c.Pattern, Lang(c.Language), s)
		if err != nil {
			t.Fatalf("compiles natively but not on whole trees: %v", err)
		}
		want, err := full.FindAll([]byte(src))
		if parseTimedOut(err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != len(ms) {
			t.Fatalf("%q: %d matches through candidate subtrees, %d on the whole tree", c.Pattern, len(ms), len(want))
		}
		for i := range ms {
			if ms[i].Range.ByteOffset != want[i].Range.ByteOffset {
				t.Fatalf("%q: match %d at %+v through candidate subtrees, %+v on the whole tree", c.Pattern, i, ms[i].Range.ByteOffset, want[i].Range.ByteOffset)
			}
		}
	})
}

// fuzzFullTrees is fuzzParser without candidate subtrees (see fullTrees).
func fuzzFullTrees(l Lang) (treeParser, error) {
	tp, err := fuzzParser(l)
	if err != nil {
		return nil, err
	}
	return fullTrees{tp}, nil
}

// FuzzSelector compiles arbitrary contexts with a selector drawn from the grammar's kinds
// and matches them against arbitrary sources and the context itself: never a panic, an
// error only ErrBadPattern, and checkMatches' invariants, among them the literal (taken
// from the selected node) in every match, so the prefilter stays sound. Seeds: the
// selector cases.
func FuzzSelector(f *testing.F) {
	for _, c := range selectorCases {
		for i, l := range fuzzLangs {
			if string(l) == c.lang {
				f.Add(c.context, c.selector, uint16(0), uint8(i), c.source)
			}
		}
	}
	f.Fuzz(func(t *testing.T, context, selector string, ki uint16, li uint8, src string) {
		l := fuzzLangs[int(li)%len(fuzzLangs)]
		tp, err := fuzzParser(l)
		if err != nil {
			t.Skip(err)
		}
		kinds := tp.Grammar().Kinds
		tp.Close()
		if ki > 0 { // 0 keeps the selector given; others pick a kind of the grammar
			selector = kinds[int(ki)%len(kinds)]
		}
		p, err := compileSel(fuzzParser, context, l, Smart, selector)
		if err != nil {
			if !errors.Is(err, ErrBadPattern) && !errors.Is(err, ErrUnavailable) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		for _, text := range []string{src, context} {
			ms, err := p.FindAll([]byte(text))
			if parseTimedOut(err) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkMatches(t, p, []byte(text), ms)
		}
	})
}
