package match

// stopEvery is how many candidates FindAllStop tries between two calls of stop.
const stopEvery = 16

// FindAllStop is FindAll that gives up when stop reports true (asked before every
// stopEvery-th candidate), returning what it found and false. Matching one file can take
// long (a pattern and a source both thousands of levels deep compare in quadratic time),
// so a search's timeout and cancellation must reach inside it.
func (p *Pattern) FindAllStop(t *Tree, stop func() bool) ([]Found, bool) {
	var out []Found
	for i := range t.Nodes {
		if i%stopEvery == 0 && stop() {
			return out, false
		}
		if f, ok := p.MatchAt(t, int32(i)); ok {
			out = append(out, f)
		}
	}
	return out, true
}
