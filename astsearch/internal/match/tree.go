// Package match is the pure-Go half of astsearch: flat syntax trees, pattern compilation and
// ast-grep's matching algorithm. It makes no cgo calls; trees come from the tsflat package
// (cgo) or from fixtures.
package match

// Node flags.
const (
	FlagNamed   = 1 << 0 // a named node
	FlagExtra   = 1 << 1 // an extra node (comments, usually)
	FlagMissing = 1 << 2 // inserted by error recovery; it covers no bytes
	FlagError   = 1 << 3 // an ERROR node
)

// ErrorKind is tree-sitter's symbol for ERROR nodes.
const ErrorKind = 0xFFFF

// Node is one record of a flat tree. The layout mirrors the C record filled by tsflat
// field for field; it holds no pointers, so the garbage collector never scans a tree.
type Node struct {
	Kind        uint16 // tree-sitter symbol
	Flags       uint8
	_           uint8
	Start, End  uint32 // byte offsets, end exclusive
	StartRow    uint32
	StartCol    uint32 // byte column
	EndRow      uint32
	EndCol      uint32
	Parent      int32 // -1 for the root
	FirstChild  int32 // -1 for none
	NextSibling int32 // -1 for none
	ChildCount  uint32
}

// Named reports whether the node is named.
func (n *Node) Named() bool { return n.Flags&FlagNamed != 0 }

// Extra reports whether the node is an extra (a comment, usually).
func (n *Node) Extra() bool { return n.Flags&FlagExtra != 0 }

// Missing reports whether the node was inserted by error recovery.
func (n *Node) Missing() bool { return n.Flags&FlagMissing != 0 }

// Grammar describes one language's symbol table.
type Grammar struct {
	Name  string   // canonical language name
	Kinds []string // symbol → kind name
	// Expando is the character that replaces a metavariable's '$' before the pattern is
	// parsed; '$' when patterns are parsed as written.
	Expando rune
	// Exact marks, by symbol, the anonymous tokens whose nodes always have the kind name as
	// their text: never an alias's, an external scanner's, nor one error recovery can
	// insert as missing (see [Pattern.Literals]). Nil when none are known.
	Exact []bool
}

// KindName returns the name of symbol k ("ERROR" for the error symbol).
func (g *Grammar) KindName(k uint16) string {
	if k == ErrorKind {
		return "ERROR"
	}
	if int(k) < len(g.Kinds) {
		return g.Kinds[k]
	}
	return ""
}

// Tree is a parsed source as a flat array of nodes in pre-order; Nodes[0] is the root.
//
// A partial tree holds only the subtrees a pattern can match: each outermost candidate's
// subtree in pre-order, one after the other, its root without parent or siblings (Parent
// and NextSibling -1), and Candidates lists the candidates, nested ones included, in
// pre-order. Candidates that cannot match may be left out (those whose text lacks a
// literal of the pattern, outside the kept subtrees). The matcher never looks outside the
// subtree of the node it matches, so it finds the same matches in either tree.
type Tree struct {
	Src        []byte
	Nodes      []Node
	Partial    bool
	Candidates []int32 // when Partial: the nodes to try, in pre-order
}

// Children calls fn for each child index of node i, in order.
func (t *Tree) Children(i int32) []int32 {
	n := &t.Nodes[i]
	out := make([]int32, 0, n.ChildCount)
	for c := n.FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
		out = append(out, c)
	}
	return out
}

// Text returns the source text of node i.
func (t *Tree) Text(i int32) []byte {
	n := &t.Nodes[i]
	return t.Src[n.Start:n.End]
}
