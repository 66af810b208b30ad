//go:build cgo

package tsflat

import (
	"errors"
	"testing"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// fuzzLangs are the grammars fuzzed here through Parse, every one of them (their C
// scanners, haskell's and php's large, run in process). The first six keep the indices the
// seeds and the committed corpus were written for.
var fuzzLangs = append([]string{"haskell", "json", "lua", "nix", "php", "solidity"},
	"bash", "c", "cpp", "csharp", "css", "elixir", "go", "html", "java", "javascript",
	"kotlin", "python", "ruby", "rust", "scala", "swift", "tsx", "typescript", "yaml")

// fuzzParsers returns a function giving one parser per language, made on first use (a
// parse bounded to one second) and closed when the fuzz target ends.
func fuzzParsers(f *testing.F) func(t *testing.T, lang string) *Parser {
	parsers := map[string]*Parser{}
	f.Cleanup(func() {
		for _, p := range parsers {
			p.Close()
		}
	})
	return func(t *testing.T, lang string) *Parser {
		p := parsers[lang]
		if p == nil {
			var err error
			if p, err = NewParser(lang, 1_000_000); err != nil {
				t.Fatal(err)
			}
			parsers[lang] = p
		}
		return p
	}
}

// FuzzParse parses arbitrary bytes with one of those grammars: never a crash or a hang (a
// parse is bounded to one second and may time out), and the flat tree is well formed:
// node ranges inside the source and nested in their parent's, children after their parent
// and linked back to it, sibling chains that cover ChildCount nodes in source order.
func FuzzParse(f *testing.F) {
	seeds := []struct {
		lang byte
		src  string
	}{
		{0, "module M where\nf x = x + 1\n"},
		{0, "f :: Int -> Int\nf n | n < 0 = 0\n    | otherwise = n\n"},
		{1, `{"a": [1, -2.5e3, "x\u00e9", true, null], "b": {}}`},
		{2, "local t = { a = 1, [2] = 'x' }\nfor k, v in pairs(t) do print(k, v) end\n"},
		{3, "{ a ? 1, ... }@args: let b = a; in b // { c = ''x ${a}''; }\n"},
		{4, "<?php\nclass A { public function f(int $x): int { return $x <=> 2; } }\n"},
		{4, "<?php\n$s = <<<EOT\nhello {$name}\nEOT;\n"},
		{5, "contract C { function f() public pure returns (uint) { return 1 ether; } }\n"},
	}
	for _, s := range seeds {
		f.Add(s.lang, []byte(s.src))
	}
	parse := fuzzParsers(f)
	f.Fuzz(func(t *testing.T, li byte, src []byte) {
		lang := fuzzLangs[int(li)%len(fuzzLangs)]
		p := parse(t, lang)
		tr, err := p.Parse(src)
		if errors.Is(err, ErrCancelled) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		for i := range tr.Nodes {
			n := &tr.Nodes[i]
			if n.Start > n.End || int(n.End) > len(src) {
				t.Fatalf("%s: node %d range %d-%d outside %d bytes", lang, i, n.Start, n.End, len(src))
			}
			var cnt uint32
			prevEnd := n.Start
			for c := n.FirstChild; c >= 0; c = tr.Nodes[c].NextSibling {
				ch := &tr.Nodes[c]
				if ch.Parent != int32(i) || c <= int32(i) {
					t.Fatalf("%s: node %d child %d links to parent %d", lang, i, c, ch.Parent)
				}
				if ch.Start < prevEnd || ch.End > n.End {
					t.Fatalf("%s: node %d child %d range %d-%d not inside %d-%d after %d", lang, i, c, ch.Start, ch.End, n.Start, n.End, prevEnd)
				}
				prevEnd = ch.End
				cnt++
			}
			if cnt != n.ChildCount {
				t.Fatalf("%s: node %d links %d children, counts %d", lang, i, cnt, n.ChildCount)
			}
		}
	})
}

// FuzzParseCandidates flattens arbitrary bytes of one of those grammars into a partial
// tree, for a kind taken from the full tree (node ki's) and a literal cut from the source
// (ln bytes at off; none when ln is 0), sometimes through the retry path: never a crash,
// and the partial tree holds exactly the subtrees checkPartial expects, record for record.
func FuzzParseCandidates(f *testing.F) {
	for _, s := range []struct {
		lang byte
		src  string
	}{
		{0, "module M where\nf x = g (h x) + 1\n"},
		{1, `{"a": [1, {"b": [2, 3]}, "x"], "c": {"a": []}}`},
		{2, "local t = { a = f(g(1)), [2] = 'x' }\nprint(f(t))\n"},
		{3, "{ a ? 1, ... }@args: let b = f (g a); in b // { c = ''x ${a}''; }\n"},
		{4, "<?php\nclass A { public function f(int $x): int { return g(h($x)) <=> 2; } }\n"},
		{5, "contract C { function f() public pure returns (uint) { return g(h(1)); } }\n"},
	} {
		f.Add(s.lang, uint16(5), uint16(3), uint8(2), false, []byte(s.src))
	}
	parse := fuzzParsers(f)
	f.Fuzz(func(t *testing.T, li byte, ki, off uint16, ln uint8, retry bool, src []byte) {
		lang := fuzzLangs[int(li)%len(fuzzLangs)]
		p := parse(t, lang)
		full, err := p.Parse(src)
		if errors.Is(err, ErrCancelled) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		full = Clone(full)
		k := full.Nodes[int(ki)%len(full.Nodes)].Kind
		if k == match.ErrorKind {
			return // a pattern's root kind is never ERROR
		}
		kinds := make([]byte, k/8+1)
		kinds[k/8] = 1 << (k % 8)
		var lit []byte
		if n := int(ln % 8); n > 0 && len(src) > 0 {
			a := int(off) % len(src)
			lit = p.occurrences(src, [][]byte{src[a:min(a+n, len(src))]})
		}
		want := 1024
		if retry {
			want = 1
		}
		part, err := p.parse(src, kinds, lit, want)
		if errors.Is(err, ErrCancelled) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		checkPartial(t, full, part, kinds, string(lit))
	})
}
