package match

import (
	"errors"
	"fmt"
	"strings"
)

// Strictness is ast-grep's matching strictness; the zero value is Smart.
type Strictness uint8

const (
	Smart Strictness = iota
	CST
	AST
	Relaxed
	Signature
	Template
)

// MetaKind says what a metavariable pattern node stands for.
type MetaKind uint8

const (
	NotMeta      MetaKind = iota
	Capture               // $A, $$A
	Dropped               // $_, $$_X
	Multiple              // $$$, $$$_X
	MultiCapture          // $$$A
)

// PNode is one node of a compiled pattern.
type PNode struct {
	Meta     MetaKind
	Name     string // metavariable name (Capture, MultiCapture)
	Named    bool   // Terminal: the node is named; Capture/Dropped: binds named nodes only
	Kind     uint16
	Text     string // Terminal text
	Internal bool
	Children []PNode
}

func (p *PNode) isEllipsis() bool { return p.Meta == Multiple || p.Meta == MultiCapture }

// trivial: an unnamed terminal, skipped after an ellipsis.
func (p *PNode) trivial() bool { return p.Meta == NotMeta && !p.Internal && !p.Named }

// Pattern is a compiled pattern.
type Pattern struct {
	Root       PNode
	Strictness Strictness
	RootKind   int32 // candidate kind filter; -1 for none
	HasError   bool  // the pattern tree contains an ERROR node
	Vars       []string
	exact      []bool // the grammar's exact tokens (Grammar.Exact)
}

// Reasons a pattern is rejected.
var (
	ErrNoRoot    = errors.New("no AST root is detected; the pattern is empty")
	ErrMultiple  = errors.New("multiple AST nodes are detected; a pattern must be one node (wrap a sequence in its parent, e.g. { $$$A; a; b; $$$B })")
	ErrRootMulti = errors.New("a standalone multi metavariable ($$$NAME) is not a valid pattern; use $VAR, or put $$$VAR inside a larger pattern")
)

// Preprocess replaces each metavariable '$' of pattern with the expando character, as
// ast-grep does before parsing: a run of '$' is replaced when it is followed by A-Z or '_',
// or when the run is exactly three long.
func Preprocess(pattern string, expando rune) string {
	if expando == '$' {
		return pattern
	}
	var b strings.Builder
	dollars := 0
	flush := func(replace bool) {
		c := '$'
		if replace {
			c = expando
		}
		for range dollars {
			b.WriteRune(c)
		}
		dollars = 0
	}
	for _, c := range pattern {
		if c == '$' {
			dollars++
			continue
		}
		flush(c >= 'A' && c <= 'Z' || c == '_' || dollars == 3)
		b.WriteRune(c)
	}
	flush(dollars == 3)
	return b.String()
}

func validFirst(c rune) bool { return c >= 'A' && c <= 'Z' || c == '_' }
func validVar(c rune) bool   { return validFirst(c) || c >= '0' && c <= '9' }

func allValid(s string) bool {
	for _, c := range s {
		if !validVar(c) {
			return false
		}
	}
	return true
}

// ExtractMeta classifies a node's text as a metavariable written with the given sigil.
func ExtractMeta(src string, sigil rune) (MetaKind, string, bool) {
	s := string(sigil)
	ell := s + s + s
	if src == ell {
		return Multiple, "", true
	}
	if rest, ok := strings.CutPrefix(src, ell); ok {
		if !allValid(rest) {
			return NotMeta, "", false
		}
		if strings.HasPrefix(rest, "_") {
			return Multiple, "", true
		}
		return MultiCapture, rest, true
	}
	rest, ok := strings.CutPrefix(src, s)
	if !ok {
		return NotMeta, "", false
	}
	named := true
	if r, ok := strings.CutPrefix(rest, s); ok {
		rest, named = r, false
	}
	if rest == "" || !validFirst([]rune(rest)[0]) || !allValid(rest) {
		return NotMeta, "", false
	}
	if strings.HasPrefix(rest, "_") {
		return Dropped, "", named
	}
	return Capture, rest, named
}

// singleNode: exactly one child, or two where the second is MISSING or has an empty kind.
func (t *Tree) singleNode(g *Grammar, i int32) bool {
	n := &t.Nodes[i]
	switch n.ChildCount {
	case 1:
		return true
	case 2:
		c := &t.Nodes[t.Nodes[n.FirstChild].NextSibling]
		return c.Missing() || g.KindName(c.Kind) == ""
	}
	return false
}

// Compile builds a pattern from the flat tree of the preprocessed pattern text.
func Compile(t *Tree, g *Grammar, s Strictness) (*Pattern, error) {
	if len(t.Nodes) == 0 || t.Nodes[0].ChildCount == 0 {
		return nil, ErrNoRoot
	}
	if !t.singleNode(g, 0) {
		return nil, ErrMultiple
	}
	i := int32(0)
	for t.singleNode(g, i) {
		i = t.Nodes[i].FirstChild
	}
	p := &Pattern{Strictness: s, RootKind: -1, exact: g.Exact}
	p.Root = p.convert(t, g, i)
	if p.Root.isEllipsis() {
		return nil, ErrRootMulti
	}
	if s != Template {
		switch {
		case p.Root.Meta != NotMeta:
		case !p.Root.Internal:
			p.RootKind = int32(p.Root.Kind)
		case p.Root.Kind != ErrorKind:
			p.RootKind = int32(p.Root.Kind)
		}
	}
	return p, nil
}

// ErrNoSelector: the selector kind names no node of the pattern's context.
var ErrNoSelector = errors.New("the selector kind matches no node in the pattern")

// CompileSelector builds a pattern from the node of kind selector found first (in
// pre-order, the root included) in the flat tree of the preprocessed context: ast-grep's
// contextual pattern. Candidates must have that kind, even when the selected node is a
// metavariable. Only named kinds can be selected. The error names the named kinds the
// context has.
func CompileSelector(t *Tree, g *Grammar, s Strictness, selector string) (*Pattern, error) {
	if len(t.Nodes) == 0 || t.Nodes[0].ChildCount == 0 {
		return nil, ErrNoRoot
	}
	var kinds []string
	seen := map[string]bool{}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if !n.Named() || n.Missing() {
			continue
		}
		k := g.KindName(n.Kind)
		if k == selector {
			p := &Pattern{Strictness: s, RootKind: int32(n.Kind), exact: g.Exact}
			p.Root = p.convert(t, g, int32(i))
			if p.Root.isEllipsis() {
				return nil, ErrRootMulti
			}
			return p, nil
		}
		if k != "" && !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	return nil, fmt.Errorf("%w: %q is not the kind of a named node of the pattern, whose named kinds are, in order of appearance: %s", ErrNoSelector, selector, strings.Join(kinds, ", "))
}

func (p *Pattern) convert(t *Tree, g *Grammar, i int32) PNode {
	n := &t.Nodes[i]
	if n.Kind == ErrorKind {
		p.HasError = true
	}
	if mk, name, named := ExtractMeta(string(t.Text(i)), g.Expando); mk != NotMeta {
		if name != "" {
			p.addVar(name)
		}
		return PNode{Meta: mk, Name: name, Named: named && (mk == Capture || mk == Dropped)}
	}
	if n.ChildCount == 0 {
		return PNode{Kind: n.Kind, Named: n.Named(), Text: string(t.Text(i))}
	}
	out := PNode{Kind: n.Kind, Named: n.Named(), Internal: true}
	for c := n.FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
		if t.Nodes[c].Missing() {
			continue
		}
		out.Children = append(out.Children, p.convert(t, g, c))
	}
	return out
}

func (p *Pattern) addVar(name string) {
	for _, v := range p.Vars {
		if v == name {
			return
		}
	}
	p.Vars = append(p.Vars, name)
}

// Literal returns the longest of [Pattern.Literals]: every match contains it. There is
// none under signature and template.
func (p *Pattern) Literal() (string, bool) {
	lits := p.Literals(1) // longest first, none under signature and template
	if len(lits) == 0 {
		return "", false
	}
	return lits[0], true
}

// String renders the pattern tree for debugging.
func (p *Pattern) String() string {
	var b strings.Builder
	var walk func(n *PNode)
	walk = func(n *PNode) {
		switch {
		case n.Meta != NotMeta:
			fmt.Fprintf(&b, "<meta %d %s>", n.Meta, n.Name)
		case n.Internal:
			fmt.Fprintf(&b, "(%d", n.Kind)
			for i := range n.Children {
				b.WriteByte(' ')
				walk(&n.Children[i])
			}
			b.WriteByte(')')
		default:
			fmt.Fprintf(&b, "%q", n.Text)
		}
	}
	walk(&p.Root)
	return b.String()
}
