package astsearch

import "github.com/harnesskit/harnesskit/astsearch/internal/match"

// candidateParser is a treeParser that can flatten only the subtrees of candidate nodes
// (the cgo parser; recorded fixtures flatten whole trees).
type candidateParser interface {
	ParseCandidates(src []byte, kinds []byte) (*match.Tree, error)
}

// parseFor parses src for matching against a pattern whose candidate kinds are kinds
// (match.Pattern.CandidateKinds): only the candidates' subtrees when the parser can do
// that and the kinds are known, the whole tree otherwise. The matches are the same.
func parseFor(tp treeParser, kinds []byte, src []byte) (*match.Tree, error) {
	if cp, ok := tp.(candidateParser); ok && kinds != nil {
		return cp.ParseCandidates(src, kinds)
	}
	return tp.Parse(src)
}
