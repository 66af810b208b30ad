package astsearch

import (
	"bytes"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// candidateParser is a treeParser that can flatten only the subtrees of candidate nodes
// (the cgo parser; recorded fixtures flatten whole trees).
type candidateParser interface {
	ParseCandidates(src []byte, kinds []byte, lits [][]byte) (*match.Tree, error)
}

// filter is what a search knows of where its matches can be: the kinds they have
// (match.Pattern.CandidateKinds; nil for any kind) and texts they all contain
// (match.Pattern.Literals, longest first; none with the prefilter off).
type filter struct {
	kinds []byte
	lits  [][]byte
}

func newFilter(p *match.Pattern, prefilter bool) filter {
	f := filter{kinds: p.CandidateKinds()}
	if prefilter {
		for _, l := range p.Literals(1) {
			f.lits = append(f.lits, []byte(l))
		}
	}
	return f
}

// admits reports whether src can hold a match: it contains every literal of at least
// minLiteral bytes (shorter ones are too common to be worth a scan of the file; the C
// side still uses them to skip subtrees). GOROOT/src, 7,712 Go files: 1,688 hold "Errorf",
// 1,021 "Errorf" and "fmt"; 4,065 hold "nil" (60 MB), 3,046 "nil" and "==" (51 MB).
func (f filter) admits(src []byte) bool {
	for _, l := range f.lits {
		if len(l) < minLiteral {
			break // longest first: the rest are shorter
		}
		if !bytes.Contains(src, l) {
			return false
		}
	}
	return true
}

// parseFor parses src for matching: only the subtrees of candidates that can match when
// the parser can do that and the kinds are known, the whole tree otherwise. The matches
// are the same.
func parseFor(tp treeParser, f filter, src []byte) (*match.Tree, error) {
	if cp, ok := tp.(candidateParser); ok && f.kinds != nil {
		return cp.ParseCandidates(src, f.kinds, f.lits)
	}
	return tp.Parse(src)
}
