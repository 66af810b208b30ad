package match

// stopEvery is how many candidates FindAllStop tries between two calls of stop.
const stopEvery = 16

// FindAllStop is FindAll that keeps at most limit matches (all when limit < 0) and only
// counts the others (extra), without building their bindings, and that gives up when stop
// reports true (asked before every stopEvery-th candidate), returning complete false.
// Matching one file can take long (a pattern and a source both thousands of levels deep
// compare in quadratic time), so a search's timeout and cancellation must reach inside it;
// and `$A` matches every node, so what is found past a cap must cost nothing.
// On a partial tree only its candidates are tried.
func (p *Pattern) FindAllStop(t *Tree, stop func() bool, limit int) (found []Found, extra int, complete bool) {
	n := len(t.Nodes)
	if t.Partial {
		n = len(t.Candidates)
	}
	for k := range n {
		if k%stopEvery == 0 && stop() {
			return found, extra, false
		}
		i := int32(k)
		if t.Partial {
			i = t.Candidates[k]
		}
		if limit >= 0 && len(found) >= limit {
			if p.matches(t, i) {
				extra++
			}
			continue
		}
		if f, ok := p.MatchAt(t, i); ok {
			found = append(found, f)
		}
	}
	return found, extra, true
}

// matches reports whether the pattern matches node i, as MatchAt does, without computing
// the replaced range or the bindings' maps.
func (p *Pattern) matches(t *Tree, i int32) bool {
	if p.RootKind >= 0 && int32(t.Nodes[i].Kind) != p.RootKind {
		return false
	}
	m := matcher{t: t, s: p.Strictness}
	var st state
	return m.matchRoot(&p.Root, i, &st) == matchedBoth
}
