package astsearch

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

var update = flag.Bool("update", false, "rewrite golden files and the flattened-tree fixtures")

// The flattened trees of every text the fixture-backed tests parse (conformance patterns and
// sources, and the sources below) are committed in testdata/trees.json.gz, so that the
// matcher, templates, diffs and apply are tested without cgo. TestFixturesCurrent (cgo)
// regenerates them with -update and checks that they are current.
const fixturePath = "testdata/trees.json.gz"

type fixtureGrammar struct {
	Kinds   []string `json:"kinds"`
	Expando string   `json:"expando"`
}

type fixtureFile struct {
	Grammars map[string]fixtureGrammar `json:"grammars"`
	// Trees maps lang + "\x00" + text to the flat nodes, one array of 12 numbers each.
	Trees map[string][][12]int64 `json:"trees"`
}

func encodeTree(t *match.Tree) [][12]int64 {
	out := make([][12]int64, len(t.Nodes))
	for i, n := range t.Nodes {
		out[i] = [12]int64{int64(n.Kind), int64(n.Flags), int64(n.Start), int64(n.End), int64(n.StartRow), int64(n.StartCol),
			int64(n.EndRow), int64(n.EndCol), int64(n.Parent), int64(n.FirstChild), int64(n.NextSibling), int64(n.ChildCount)}
	}
	return out
}

func decodeTree(src []byte, rows [][12]int64) *match.Tree {
	t := &match.Tree{Src: src, Nodes: make([]match.Node, len(rows))}
	for i, r := range rows {
		t.Nodes[i] = match.Node{Kind: uint16(r[0]), Flags: uint8(r[1]), Start: uint32(r[2]), End: uint32(r[3]), StartRow: uint32(r[4]),
			StartCol: uint32(r[5]), EndRow: uint32(r[6]), EndCol: uint32(r[7]), Parent: int32(r[8]), FirstChild: int32(r[9]),
			NextSibling: int32(r[10]), ChildCount: uint32(r[11])}
	}
	return t
}

var (
	fixturesOnce sync.Once
	fixtures     *fixtureFile
	fixturesErr  error
)

func loadFixtures() (*fixtureFile, error) {
	fixturesOnce.Do(func() {
		f, err := os.Open(fixturePath)
		if err != nil {
			fixturesErr = err
			return
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			fixturesErr = err
			return
		}
		var ff fixtureFile
		fixturesErr = json.NewDecoder(zr).Decode(&ff)
		fixtures = &ff
	})
	return fixtures, fixturesErr
}

// fixtureParser answers from the committed trees; an unknown text is an error.
type fixtureParser struct {
	lang Lang
	g    *match.Grammar
	ff   *fixtureFile
}

func fixtureFactory(l Lang) (treeParser, error) {
	ff, err := loadFixtures()
	if err != nil {
		return nil, err
	}
	fg, ok := ff.Grammars[string(l)]
	if !ok {
		return nil, fmt.Errorf("%w: no fixture grammar for %s", ErrLangUnavailable, l)
	}
	// One grammar value per language, as the cgo parsers have (a tree cache keys on it).
	g, _ := fixtureGrammars.LoadOrStore(l, &match.Grammar{Name: string(l), Kinds: fg.Kinds, Expando: []rune(fg.Expando)[0]})
	return &fixtureParser{lang: l, ff: ff, g: g.(*match.Grammar)}, nil
}

var fixtureGrammars sync.Map // Lang → *match.Grammar

func (p *fixtureParser) Grammar() *match.Grammar { return p.g }
func (p *fixtureParser) Close()                  {}
func (p *fixtureParser) Parse(src []byte) (*match.Tree, error) {
	rows, ok := p.ff.Trees[string(p.lang)+"\x00"+string(src)]
	if !ok {
		return nil, fmt.Errorf("no fixture tree for %s text %q: run go test -update ./astsearch with cgo", p.lang, src)
	}
	return decodeTree(src, rows), nil
}

// recorder wraps a real factory and keeps every tree it produces.
type recorder struct {
	mu    sync.Mutex
	inner parserFactory
	ff    fixtureFile
}

type recordingParser struct {
	treeParser
	r    *recorder
	lang Lang
}

func (r *recorder) factory(l Lang) (treeParser, error) {
	tp, err := r.inner(l)
	if err != nil {
		return nil, err
	}
	g := tp.Grammar()
	r.mu.Lock()
	r.ff.Grammars[string(l)] = fixtureGrammar{Kinds: g.Kinds, Expando: string(g.Expando)}
	r.mu.Unlock()
	return &recordingParser{treeParser: tp, r: r, lang: l}, nil
}

func (p *recordingParser) Parse(src []byte) (*match.Tree, error) {
	t, err := p.treeParser.Parse(src)
	if err == nil {
		p.r.mu.Lock()
		p.r.ff.Trees[string(p.lang)+"\x00"+string(src)] = encodeTree(t)
		p.r.mu.Unlock()
	}
	return t, err
}
