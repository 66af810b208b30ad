package match

import "bytes"

// binding is one metavariable binding; Multi is set for $$$NAME (possibly empty).
type binding struct {
	name    string
	node    int32
	multi   []int32
	isMulti bool
}

// state is ast-grep's aggregator: the metavariable environment. Copies are cheap and
// never share appends: binds is always clipped before it is copied.
type state struct {
	binds []binding
}

func (s state) clone() state {
	s.binds = s.binds[:len(s.binds):len(s.binds)]
	return s
}

type matcher struct {
	t *Tree
	s Strictness
}

// outcome of matching one pattern node against one candidate.
type outcome uint8

const (
	matchedBoth outcome = iota
	skipBoth
	skipGoal
	skipCand
	noMatch
)

func (m *matcher) named(c int32) bool { return m.t.Nodes[c].Named() }
func (m *matcher) extra(c int32) bool { return m.t.Nodes[c].Extra() }

func (m *matcher) skipComment() bool {
	switch m.s {
	case CST, AST:
		return false
	}
	return true
}

func (m *matcher) namedChildCount(c int32) int {
	k := 0
	for x := m.t.Nodes[c].FirstChild; x >= 0; x = m.t.Nodes[x].NextSibling {
		if m.named(x) {
			k++
		}
	}
	return k
}

// sameNode is ast-grep's exact comparison of two bindings of one name.
func (m *matcher) sameNode(a, b int32) bool {
	if a == b {
		return true
	}
	if m.namedChildCount(a) == 0 || m.namedChildCount(b) == 0 {
		return bytes.Equal(m.t.Text(a), m.t.Text(b))
	}
	na, nb := &m.t.Nodes[a], &m.t.Nodes[b]
	if na.Kind != nb.Kind || na.ChildCount != nb.ChildCount {
		return false
	}
	x, y := na.FirstChild, nb.FirstChild
	for x >= 0 && y >= 0 {
		if !m.sameNode(x, y) {
			return false
		}
		x, y = m.t.Nodes[x].NextSibling, m.t.Nodes[y].NextSibling
	}
	return true
}

func (m *matcher) insert(st *state, name string, c int32) bool {
	for _, b := range st.binds {
		if b.name == name && !b.isMulti {
			if !m.sameNode(b.node, c) {
				return false
			}
			break
		}
	}
	st.binds = append(st.binds, binding{name: name, node: c})
	return true
}

func (m *matcher) insertMulti(st *state, name string, cs []int32) bool {
	for _, b := range st.binds {
		if b.name == name && b.isMulti {
			var xs, ys []int32
			for _, x := range b.multi {
				if m.named(x) {
					xs = append(xs, x)
				}
			}
			for _, y := range cs {
				if m.named(y) {
					ys = append(ys, y)
				}
			}
			if len(xs) != len(ys) {
				return false
			}
			for i := range xs {
				if !m.sameNode(xs[i], ys[i]) {
					return false
				}
			}
			break
		}
	}
	st.binds = append(st.binds, binding{name: name, multi: cs, isMulti: true})
	return true
}

func (m *matcher) aggMeta(st *state, p *PNode, c int32) bool {
	switch p.Meta {
	case Capture:
		if p.Named && !m.named(c) {
			return false
		}
		return m.insert(st, p.Name, c)
	case Dropped:
		return !p.Named || m.named(c)
	case MultiCapture:
		return m.insertMulti(st, p.Name, []int32{c})
	}
	return true
}

func (m *matcher) aggEllipsis(st *state, name string, nodes []int32, skipped int) bool {
	if name == "" {
		return true
	}
	keep := len(nodes) - skipped
	if keep < 0 {
		keep = 0
	}
	return m.insertMulti(st, name, nodes[:keep:keep])
}

func (m *matcher) matchRoot(p *PNode, c int32, st *state) outcome {
	if p.Meta != NotMeta && m.s == Smart {
		if m.aggMeta(st, p, c) {
			return matchedBoth
		}
		return noMatch
	}
	return m.matchNode(p, c, st)
}

func (m *matcher) matchTerminal(p *PNode, c int32) outcome {
	n := &m.t.Nodes[c]
	kindOK := p.Kind == n.Kind || p.Kind == ErrorKind
	if kindOK && (!p.Named || p.Text == string(m.t.Text(c))) {
		return matchedBoth
	}
	if m.skipComment() && n.Extra() {
		return skipCand
	}
	var sg, sc bool
	switch m.s {
	case CST:
	case Smart:
		sc = !n.Named()
	case AST, Relaxed:
		sg, sc = !p.Named, !n.Named()
	case Signature:
		if kindOK {
			return matchedBoth
		}
		sg, sc = !p.Named, !n.Named()
	case Template:
		if p.Text == string(m.t.Text(c)) {
			return matchedBoth
		}
		sc = !n.Named()
	}
	switch {
	case sg && sc:
		return skipBoth
	case sg:
		return skipGoal
	case sc:
		return skipCand
	}
	return noMatch
}

func (m *matcher) matchNode(p *PNode, c int32, st *state) outcome {
	switch {
	case p.Meta != NotMeta:
		if m.skipComment() && m.extra(c) {
			return skipCand
		}
		if m.aggMeta(st, p, c) {
			return matchedBoth
		}
		return noMatch
	case !p.Internal:
		return m.matchTerminal(p, c)
	}
	if m.s != Template && p.Kind != m.t.Nodes[c].Kind && p.Kind != ErrorKind {
		return noMatch
	}
	if m.matchChildren(p.Children, m.t.Nodes[c].FirstChild, st) {
		return matchedBoth
	}
	return noMatch
}

func (m *matcher) next(c int32) int32 { return m.t.Nodes[c].NextSibling }

func (m *matcher) skipTrailing(c int32) bool {
	switch m.s {
	case CST:
		return false
	case Smart:
		return true
	case AST:
		return !m.named(c)
	case Relaxed, Signature:
		return !m.named(c) || m.extra(c)
	}
	return m.extra(c) // Template
}

func (m *matcher) skipGoals(goals []PNode) bool {
	for i := range goals {
		p := &goals[i]
		var ok bool
		switch m.s {
		case CST:
		case Smart, Template:
			ok = p.isEllipsis()
		default:
			switch {
			case p.isEllipsis():
				ok = true
			case p.Meta == Capture || p.Meta == Dropped:
				ok = !p.Named
			case !p.Internal:
				ok = !p.Named
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

type flow uint8

const (
	flowContinue flow = iota
	flowFallthrough
	flowReturn
	flowFail
)

// matchChildren is ast-grep's sequence matcher over goals and the sibling chain from c.
func (m *matcher) matchChildren(goals []PNode, c int32, st *state) bool {
	if c < 0 {
		return false
	}
	g := 0
	for {
		switch f := m.ellipsis(goals, &g, &c, st); f {
		case flowFail:
			return false
		case flowReturn:
			return true
		case flowContinue:
			continue
		}
		switch f := m.single(goals, &g, &c, st); f {
		case flowFail:
			return false
		case flowReturn:
			return true
		case flowContinue:
			continue
		}
		if g < len(goals) {
			g++
			if c >= 0 {
				c = m.next(c)
			}
		}
		if g >= len(goals) {
			for ; c >= 0; c = m.next(c) {
				if !m.skipTrailing(c) {
					return false
				}
			}
			return true
		}
		if c < 0 {
			return false
		}
	}
}

func (m *matcher) rest(c int32) []int32 {
	var out []int32
	for ; c >= 0; c = m.next(c) {
		out = append(out, c)
	}
	return out
}

func (m *matcher) ellipsis(goals []PNode, g *int, c *int32, st *state) flow {
	if *g >= len(goals) {
		return flowReturn
	}
	cur := &goals[*g]
	if !cur.isEllipsis() {
		return flowFallthrough
	}
	name := cur.Name
	var matched []int32
	*g++
	if *g >= len(goals) {
		if !m.aggEllipsis(st, name, append(matched, m.rest(*c)...), 0) {
			return flowFail
		}
		*c = -1
		return flowReturn
	}
	skipped := 0
	for goals[*g].trivial() {
		*g++
		skipped++
		if *g >= len(goals) {
			if !m.aggEllipsis(st, name, append(matched, m.rest(*c)...), skipped) {
				return flowFail
			}
			*c = -1
			return flowReturn
		}
	}
	if goals[*g].isEllipsis() {
		matched = append(matched, *c)
		*c = m.next(*c)
		if *c < 0 {
			return flowFail
		}
		if !m.aggEllipsis(st, name, matched, skipped) {
			return flowFail
		}
		return flowContinue
	}
	for {
		probe := st.clone()
		if m.matchNode(&goals[*g], *c, &probe) == matchedBoth {
			if !m.aggEllipsis(st, name, matched, skipped) {
				return flowFail
			}
			return flowFallthrough
		}
		matched = append(matched, *c)
		*c = m.next(*c)
		if *c < 0 {
			return flowFail
		}
	}
}

func (m *matcher) single(goals []PNode, g *int, c *int32, st *state) flow {
	for {
		if *c < 0 {
			if m.skipGoals(goals[*g:]) {
				*g = len(goals)
				return flowFallthrough
			}
			return flowFail
		}
		switch m.matchNode(&goals[*g], *c, st) {
		case matchedBoth:
			return flowFallthrough
		case skipGoal:
			*g++
			if *g >= len(goals) {
				return flowFallthrough
			}
		case skipBoth:
			*c = m.next(*c)
			*g++
			if *g >= len(goals) {
				return flowFallthrough
			}
		case skipCand:
			*c = m.next(*c)
		default:
			return flowFail
		}
	}
}
