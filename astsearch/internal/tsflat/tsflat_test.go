//go:build cgo

package tsflat

import (
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
