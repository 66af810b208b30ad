//go:build cgo

package tsflat

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

func TestRecordLayout(t *testing.T) {
	if got := unsafe.Sizeof(match.Node{}); got != uintptr(recordSize) {
		t.Fatalf("match.Node is %d bytes, C hk_node %d", got, recordSize)
	}
}

func TestParseGrowsAndLinks(t *testing.T) {
	p, err := NewParser("go", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src := []byte("package p\nfunc f() { g(1, 2) }\n")
	tr, err := p.parse(src, nil, nil, 2) // force the grow path

	if err != nil {
		t.Fatal(err)
	}
	g := p.Grammar()
	if g.KindName(tr.Nodes[0].Kind) != "source_file" {
		t.Fatalf("root kind %q", g.KindName(tr.Nodes[0].Kind))
	}
	// Every child's parent link points back, sibling chains cover ChildCount nodes, and
	// pre-order means children come after their parent.
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		cnt := uint32(0)
		for c := n.FirstChild; c >= 0; c = tr.Nodes[c].NextSibling {
			if tr.Nodes[c].Parent != int32(i) || c <= int32(i) {
				t.Fatalf("node %d child %d: parent %d", i, c, tr.Nodes[c].Parent)
			}
			cnt++
		}
		if cnt != n.ChildCount {
			t.Fatalf("node %d: %d children linked, %d counted", i, cnt, n.ChildCount)
		}
	}
	if string(tr.Text(tr.Nodes[0].FirstChild)) != "package p" {
		t.Fatalf("first child %q", tr.Text(tr.Nodes[0].FirstChild))
	}
}

// kindSet returns the bitmap of the named kinds of g.
func kindSet(t testing.TB, g *match.Grammar, names ...string) []byte {
	t.Helper()
	var b []byte
	for _, name := range names {
		k := -1
		for i, n := range g.Kinds {
			if n == name {
				k = i
				break
			}
		}
		if k < 0 {
			t.Fatalf("%s has no kind %q", g.Name, name)
		}
		for len(b) <= k/8 {
			b = append(b, 0)
		}
		b[k/8] |= 1 << (k % 8)
	}
	return b
}

func inSet(kinds []byte, k uint16) bool {
	return int(k/8) < len(kinds) && kinds[k/8]&(1<<(k%8)) != 0
}

// sameSubtree compares the subtree of node a of x with that of node b of y, record for
// record apart from the indices.
func sameSubtree(x *match.Tree, a int32, y *match.Tree, b int32) bool {
	na, nb := x.Nodes[a], y.Nodes[b]
	if na.Kind != nb.Kind || na.Flags != nb.Flags || na.Start != nb.Start || na.End != nb.End ||
		na.StartRow != nb.StartRow || na.StartCol != nb.StartCol || na.EndRow != nb.EndRow ||
		na.EndCol != nb.EndCol || na.ChildCount != nb.ChildCount {
		return false
	}
	ca, cb := na.FirstChild, nb.FirstChild
	for ca >= 0 && cb >= 0 {
		if x.Nodes[ca].Parent != a || y.Nodes[cb].Parent != b || !sameSubtree(x, ca, y, cb) {
			return false
		}
		ca, cb = x.Nodes[ca].NextSibling, y.Nodes[cb].NextSibling
	}
	return ca < 0 && cb < 0
}

// checkPartial checks a partial tree against the full tree of the same source: its
// candidates are the full tree's nodes of those kinds in pre-order, each with the same
// subtree; subtree roots have no parent or sibling; and it holds exactly the nodes of the
// outermost candidates' subtrees. With lit, a candidate outside the other candidates'
// subtrees is kept only when its range holds lit (the ranges of its ancestors then do too).
func checkPartial(t testing.TB, full, part *match.Tree, kinds []byte, lit string) {
	t.Helper()
	if !part.Partial || full.Partial {
		t.Fatalf("partial flags: full %v, partial %v", full.Partial, part.Partial)
	}
	lastOf := func(i int32) int32 { // the last node of i's subtree, in pre-order
		for {
			c := full.Nodes[i].FirstChild
			if c < 0 {
				return i
			}
			for full.Nodes[c].NextSibling >= 0 {
				c = full.Nodes[c].NextSibling
			}
			i = c
		}
	}
	var want []int32
	covered := 0
	inside, last := int32(-1), int32(-1) // the outermost kept candidate open, and its end
	for i := range full.Nodes {
		if inside >= 0 && int32(i) > last {
			inside = -1
		}
		if inSet(kinds, full.Nodes[i].Kind) && (inside >= 0 || lit == "" || strings.Contains(string(full.Text(int32(i))), lit)) {
			want = append(want, int32(i))
			if inside < 0 {
				inside, last = int32(i), lastOf(int32(i))
			}
		}
		if inside >= 0 {
			covered++
		}
	}
	if len(part.Candidates) != len(want) {
		t.Fatalf("%d candidates, the full tree has %d nodes of those kinds to try", len(part.Candidates), len(want))
	}
	if len(part.Nodes) != covered {
		t.Fatalf("partial tree holds %d nodes, the candidate subtrees %d", len(part.Nodes), covered)
	}
	for k, c := range part.Candidates {
		if !sameSubtree(part, c, full, want[k]) {
			t.Fatalf("candidate %d (node %d): subtree differs from full node %d", k, c, want[k])
		}
	}
	for i := range part.Nodes {
		n := &part.Nodes[i]
		if n.Parent < 0 && (n.NextSibling >= 0 || !inSet(kinds, n.Kind)) {
			t.Fatalf("subtree root %d: kind %d, next sibling %d", i, n.Kind, n.NextSibling)
		}
	}
}

func TestParseCandidates(t *testing.T) {
	cases := []struct {
		lang  string
		src   string
		kinds []string
	}{
		{"go", "package p\nfunc f() { g(h(1), k(2, m(3))) }\nvar x = a == b == c\n// c\nfunc h() { return x(\n) }\n", []string{"call_expression"}},
		{"go", "package p\nvar x = a == b == c\nfunc f() { if a == nil { b(c == d) } }\n", []string{"binary_expression"}},
		{"go", "package p\nvar x = 1\n", []string{"call_expression"}},     // no candidate
		{"go", "package p\nfunc f() { g(1) }\n", []string{"source_file"}}, // the root
		{"go", "package p\nfunc f() { g(1) ; h(2) }\n", []string{"call_expression", "identifier"}},
		{"go", "package p\nfunc f() { g(1, }\nfunc h() { k() }\n", []string{"call_expression"}}, // ERROR nodes
		{"javascript", "const x = require('a'); f(g(1), () => h(2));\n/* c */ k`t`\n", []string{"call_expression"}},
		{"python", "def f(a):\n    if isinstance(a, int):\n        return g(a, h(b))\n", []string{"call", "identifier"}},
		{"go", "", []string{"call_expression"}},
	}
	for _, c := range cases {
		p, err := NewParser(c.lang, 0)
		if err != nil {
			t.Fatal(err)
		}
		kinds := kindSet(t, p.Grammar(), c.kinds...)
		full, err := p.Parse([]byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		full = Clone(full)
		for _, want := range []int{1, 1024} { // the retry path, and the common one
			part, err := p.parse([]byte(c.src), kinds, nil, want)
			if err != nil {
				t.Fatal(err)
			}
			checkPartial(t, full, part, kinds, "")
			// With literals, the rarest one filters the subtrees between candidates.
			for _, lits := range [][]string{{"h"}, {"x", "g"}, {"==", "b"}, {"isinstance"}, {"absent"}, {"("}} {
				var bl [][]byte
				rare, fewest := "", -1
				for _, l := range lits {
					bl = append(bl, []byte(l))
					if n := strings.Count(c.src, l); fewest < 0 || n < fewest {
						rare, fewest = l, n
					}
				}
				lit := p.occurrences([]byte(c.src), bl)
				if string(lit) != rare {
					t.Fatalf("%q: filtering literal %q, the rarest is %q", lits, lit, rare)
				}
				part, err := p.parse([]byte(c.src), kinds, lit, want)
				if err != nil {
					t.Fatal(err)
				}
				checkPartial(t, full, part, kinds, rare)
			}
		}
		p.Close()
	}
}

// TestParseCandidatesNoKinds: an empty kind set gives no candidates, a nil one the full tree.
func TestParseCandidatesNoKinds(t *testing.T) {
	p, err := NewParser("go", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src := []byte("package p\nfunc f() { g(1) }\n")
	tr, err := p.ParseCandidates(src, []byte{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Partial || len(tr.Nodes) != 0 || len(tr.Candidates) != 0 {
		t.Fatalf("empty kind set: partial %v, %d nodes, %d candidates", tr.Partial, len(tr.Nodes), len(tr.Candidates))
	}
	tr, err = p.ParseCandidates(src, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Partial || len(tr.Nodes) < 10 {
		t.Fatalf("nil kind set: partial %v, %d nodes", tr.Partial, len(tr.Nodes))
	}
}

// deepEq is `x == x == … == x` with n operators: a left spine of n nested binary
// expressions, each a candidate inside the previous one.
func deepEq(n int) []byte {
	var b []byte
	b = append(b, "package p\nvar v = x"...)
	for range n {
		b = append(b, " == x"...)
	}
	return append(b, '\n')
}

// TestParseCandidatesDeep: 100,000 nested candidates are flattened once each (the outermost
// subtree holds them all), so the walk stays linear.
func TestParseCandidatesDeep(t *testing.T) {
	p, err := NewParser("go", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const n = 100_000
	kinds := kindSet(t, p.Grammar(), "binary_expression")
	tr, err := p.ParseCandidates(deepEq(n), kinds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Candidates) != n {
		t.Fatalf("%d candidates, want %d", len(tr.Candidates), n)
	}
	// The outermost binary expression and its subtree: n expressions, n operators, n+1 x.
	if len(tr.Nodes) != 3*n+1 {
		t.Fatalf("%d nodes, want %d", len(tr.Nodes), 3*n+1)
	}
	for k := 1; k < n; k++ {
		if tr.Candidates[k] <= tr.Candidates[k-1] {
			t.Fatalf("candidates out of pre-order at %d", k)
		}
	}
}

func BenchmarkParseCandidatesDeep(b *testing.B) {
	p, err := NewParser("go", 0)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, n := range []int{10_000, 100_000} {
		src := deepEq(n)
		kinds := kindSet(b, p.Grammar(), "binary_expression")
		b.Run(itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := p.ParseCandidates(src, kinds, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

// BenchmarkFlattenNet parses every Go file of GOROOT/src/net (one worker): the parse
// alone, with the whole tree flattened, with the subtrees of binary expressions only, and
// with no candidate kind (the cursor walk alone). Compare CPU time, not wall time, on a
// loaded machine.
func BenchmarkFlattenNet(b *testing.B) {
	var srcs [][]byte
	dir := filepath.Join(runtime.GOROOT(), "src", "net")
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".go" {
			s, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			srcs = append(srcs, s)
		}
		return err
	})
	if err != nil {
		b.Skip(err)
	}
	size := 0
	for _, s := range srcs {
		size += len(s)
	}
	p, err := NewParser("go", 0)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	kinds := kindSet(b, p.Grammar(), "binary_expression")
	for _, c := range []struct {
		name string
		do   func([]byte) error
	}{
		{"parse", p.parseOnly},
		{"full", func(s []byte) error { _, err := p.Parse(s); return err }},
		{"candidates", func(s []byte) error { _, err := p.ParseCandidates(s, kinds, nil); return err }},
		{"walk", func(s []byte) error { _, err := p.ParseCandidates(s, []byte{}, nil); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, s := range srcs {
					if err := c.do(s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// Every grammar loads into the runtime (its ABI is accepted), parses a small program of its
// language without an ERROR node, and names the root kind its grammar defines.
func TestEveryGrammarLoadsAndParses(t *testing.T) {
	cases := []struct{ lang, src, root string }{
		{"bash", "echo hi | grep h\n", "program"},
		{"c", "int main(void) { return 0; }\n", "translation_unit"},
		{"cpp", "class A { int x; };\n", "translation_unit"},
		{"csharp", "class A { void F() {} }\n", "compilation_unit"},
		{"css", "a { color: red; }\n", "stylesheet"},
		{"elixir", "defmodule A do\n  def f(x), do: x\nend\n", "source"},
		{"go", "package p\n\nfunc f() {}\n", "source_file"},
		{"haskell", "module M where\n\nf :: Int -> Int\nf x = x + 1\n", "haskell"},
		{"html", "<p>hi</p>\n", "document"},
		{"java", "class A { void f() {} }\n", "program"},
		{"javascript", "const a = f(1);\n", "program"},
		{"json", "{\"a\": [1, true, null]}\n", "document"},
		{"kotlin", "fun f(x: Int) = x + 1\n", "source_file"},
		{"lua", "local x = io.read()\n", "chunk"},
		{"nix", "{ a = 1; b = [ 2 3 ]; }\n", "source_code"},
		{"php", "<?php\necho strlen($a);\n", "program"},
		{"python", "def f(x):\n    return x\n", "module"},
		{"ruby", "def f(x)\n  x\nend\n", "program"},
		{"rust", "fn f() -> i32 { 1 }\n", "source_file"},
		{"scala", "object A { def f = 1 }\n", "compilation_unit"},
		{"solidity", "contract C { function f() public {} }\n", "source_file"},
		{"swift", "func f() -> Int { return 1 }\n", "source_file"},
		{"tsx", "const a = <div>{x}</div>;\n", "program"},
		{"typescript", "let a: number = 1;\n", "program"},
		{"yaml", "a: [1, 2]\n", "stream"},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.lang] = true
		t.Run(c.lang, func(t *testing.T) {
			p, err := NewParser(c.lang, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			tr, err := p.Parse([]byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			g := p.Grammar()
			if got := g.KindName(tr.Nodes[0].Kind); got != c.root {
				t.Errorf("root kind %q, want %q", got, c.root)
			}
			for i := range tr.Nodes {
				if k := g.KindName(tr.Nodes[i].Kind); k == "ERROR" {
					t.Errorf("ERROR node at %d-%d in %q", tr.Nodes[i].Start, tr.Nodes[i].End, c.src)
				}
			}
		})
	}
	for _, l := range Languages() {
		if !seen[l] {
			t.Errorf("language %s has no case here", l)
		}
	}
	if len(Languages()) != 25 {
		t.Errorf("%d native languages, want ast-grep's 25: %v", len(Languages()), Languages())
	}
}

// One tree-sitter runtime is linked, go-tree-sitter's: the grammar packages compile only
// their grammars, and smacker's binding (a second runtime, whose parsers cannot load ABI-15
// grammars) is gone. Test binaries carry no dependency list, so this asks the go command.
func TestOneRuntimeLinked(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var official bool
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/smacker/") {
			t.Errorf("%s is linked: a second tree-sitter runtime", p)
		}
		if p == "github.com/tree-sitter/go-tree-sitter" {
			official = true
		}
	}
	if !official {
		t.Error("github.com/tree-sitter/go-tree-sitter is not linked")
	}
}

// TestCancel: a cancelled parser gives up on every parse, whole or by candidates, with
// ErrCancelled, and stays cancelled; another parser parses the same source.
func TestCancel(t *testing.T) {
	src := []byte("x = " + strings.Repeat("f(", 50_000) + strings.Repeat(")", 50_000) + ";\n")
	p, err := NewParser("javascript", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Cancel()
	for i := range 2 {
		if _, err := p.Parse(src); err != ErrCancelled {
			t.Errorf("parse %d after Cancel: %v, want ErrCancelled", i, err)
		}
		if _, err := p.ParseCandidates(src, []byte{0xff}, nil); err != ErrCancelled {
			t.Errorf("candidate parse %d after Cancel: %v, want ErrCancelled", i, err)
		}
	}
	q, err := NewParser("javascript", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	tr, err := q.Parse(src)
	if err != nil || len(tr.Nodes) < 100_000 {
		t.Fatalf("an uncancelled parser: %v, %d nodes", err, len(tr.Nodes))
	}
}

// TestCancelAfterClose: Cancel on a closed parser does nothing (no crash).
func TestCancelAfterClose(t *testing.T) {
	p, err := NewParser("go", 0)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	p.Cancel()
	p.Close()
}

// TestCloneKeepsPartialTree: a clone of a partial tree keeps its candidates after the
// parser's buffers are reused for another file.
func TestCloneKeepsPartialTree(t *testing.T) {
	p, err := NewParser("go", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	kinds := kindSet(t, p.Grammar(), "call_expression")
	tr, err := p.ParseCandidates([]byte("package p\nfunc f() { g(h(1)) }\n"), kinds, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := Clone(tr)
	want := slices.Clone(tr.Candidates)
	if _, err := p.ParseCandidates([]byte("package p\nfunc f() { a(); b(); c(d(e())) }\n"), kinds, nil); err != nil {
		t.Fatal(err)
	}
	if !c.Partial || !slices.Equal(c.Candidates, want) || len(want) != 2 {
		t.Fatalf("clone: partial %v, candidates %v, want %v (2)", c.Partial, c.Candidates, want)
	}
	for _, i := range c.Candidates {
		if got := string(c.Text(i)); got != "g(h(1))" && got != "h(1)" {
			t.Fatalf("candidate %d is %q", i, got)
		}
	}
}

// TestVendoredHeader: flatten.c includes include/tree_sitter/api.h, a copy of the header
// go-tree-sitter compiles the runtime with. A copy that drifted from the linked runtime
// (a go-tree-sitter bump without a new copy) could compile and still call functions with
// the wrong signature or read value types of the wrong layout, so the copy, its license
// and the version its README names must be the ones of the go-tree-sitter version this
// build selects. It needs the go command (present wherever this package builds).
func TestVendoredHeader(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-m", "-f", "{{.Version}} {{.Dir}}", "github.com/tree-sitter/go-tree-sitter").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/tree-sitter/go-tree-sitter: %v", err)
	}
	version, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || version == "" || dir == "" {
		t.Fatalf("go list -m gave %q: the module is not in the module cache (run go mod download)", out)
	}
	for _, f := range []struct{ module, copy string }{
		{"include/tree_sitter/api.h", "include/tree_sitter/api.h"},
		{"LICENSE", "include/LICENSE"},
	} {
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.module)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.FromSlash(f.copy))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not go-tree-sitter %s's %s (%d bytes, want %d): copy it from %s",
				f.copy, version, f.module, len(got), len(want), dir)
		}
	}
	readme, err := os.ReadFile(filepath.Join("include", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("at version "+version+" ")) {
		t.Errorf("include/README.md does not say the copy is of version %s", version)
	}
}
