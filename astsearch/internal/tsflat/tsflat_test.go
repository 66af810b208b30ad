//go:build cgo

package tsflat

import (
	"os/exec"
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
	p.buf = make([]match.Node, 0, 2) // force the grow path
	src := []byte("package p\nfunc f() { g(1, 2) }\n")
	tr, err := p.Parse(src)
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

// Only smacker's tree-sitter runtime is linked: the grammar packages of other modules must
// not bring github.com/tree-sitter/go-tree-sitter (a second runtime whose parsers would be
// handed this one's languages) into the build. Test binaries carry no dependency list, so
// this asks the go command.
func TestOneRuntimeLinked(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var smacker bool
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/tree-sitter/go-tree-sitter") {
			t.Errorf("%s is linked: a second tree-sitter runtime", p)
		}
		if p == "github.com/smacker/go-tree-sitter" {
			smacker = true
		}
	}
	if !smacker {
		t.Error("github.com/smacker/go-tree-sitter is not linked")
	}
}
