package match

import "slices"

// Found is one match in a tree.
type Found struct {
	Node   int32
	Single map[string]int32
	Multi  map[string][]int32
}

// MatchAt matches the pattern against node i of t.
func (p *Pattern) MatchAt(t *Tree, i int32) (Found, bool) {
	if p.RootKind >= 0 && int32(t.Nodes[i].Kind) != p.RootKind {
		return Found{}, false
	}
	m := matcher{t: t, s: p.Strictness}
	var st state
	if m.matchRoot(&p.Root, i, &st) != matchedBoth {
		return Found{}, false
	}
	f := Found{Node: i}
	for _, b := range st.binds {
		if b.isMulti {
			if f.Multi == nil {
				f.Multi = make(map[string][]int32)
			}
			f.Multi[b.name] = b.multi
		} else {
			if f.Single == nil {
				f.Single = make(map[string]int32)
			}
			f.Single[b.name] = b.node
		}
	}
	return f, true
}

// FindAll returns every match in t, in pre-order (outer matches first, reentrant). In a
// partial tree only its candidates are tried.
func (p *Pattern) FindAll(t *Tree) []Found {
	out, _, _ := p.FindAllStop(t, func() bool { return false }, -1)
	return out
}

// CandidateKinds returns the kinds a match can have, as a bitmap over the grammar's symbols
// (bit k of the byte k/8), for flattening only the subtrees of candidates; nil when a match
// can have any kind (a metavariable or ERROR root, template strictness).
func (p *Pattern) CandidateKinds() []byte {
	if p.RootKind < 0 {
		return nil
	}
	b := make([]byte, p.RootKind/8+1)
	b[p.RootKind/8] |= 1 << (p.RootKind % 8)
	return b
}

// Literals returns the distinct texts, at least min bytes long, that every match
// contains in full, longest first, so that a source lacking any one of them has no match:
//
//   - the texts of the pattern's named, non-metavariable leaves, under cst, smart, ast and
//     relaxed strictness (a named leaf is never skipped and compares its text exactly);
//   - under cst and smart, also the texts of its exact anonymous tokens
//     ([Grammar.Exact]): such a leaf is never skipped there (except right after an
//     ellipsis, so those are left out), it matches only a node of its kind, and every
//     node of that kind has that text.
//
// There are none under signature and template.
func (p *Pattern) Literals(min int) []string {
	if p.Strictness == Signature || p.Strictness == Template {
		return nil
	}
	tokens := p.Strictness == CST || p.Strictness == Smart
	var out []string
	var walk func(n *PNode, afterEllipsis bool)
	walk = func(n *PNode, afterEllipsis bool) {
		switch {
		case n.Meta != NotMeta:
		case n.Internal:
			// An anonymous leaf that follows an ellipsis, directly or after others like it,
			// may be skipped (see matcher.ellipsis).
			after := false
			for i := range n.Children {
				c := &n.Children[i]
				switch {
				case c.isEllipsis():
					after = true
				case !c.trivial():
					after = false
				}
				walk(c, after)
			}
		case len(n.Text) < max(min, 1) || slices.Contains(out, n.Text):
		case n.Named,
			tokens && !afterEllipsis && int(n.Kind) < len(p.exact) && p.exact[n.Kind]:
			out = append(out, n.Text)
		}
	}
	walk(&p.Root, false)
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
