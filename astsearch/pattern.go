package astsearch

import (
	"errors"
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// Strictness is ast-grep's matching strictness. The zero value is Smart, ast-grep's
// default.
type Strictness uint8

// Strictness levels, from ast-grep: cst compares every token; smart (the default) skips
// unnamed tokens and comments in the source; ast also ignores unnamed tokens in the
// pattern; relaxed also skips comments; signature ignores the text of named leaves;
// template ignores kinds and compares text.
const (
	Smart Strictness = iota
	CST
	AST
	Relaxed
	Signature
	Template
)

var strictnessNames = []string{"smart", "cst", "ast", "relaxed", "signature", "template"}

// String returns ast-grep's name of the level.
func (s Strictness) String() string {
	if int(s) < len(strictnessNames) {
		return strictnessNames[s]
	}
	return fmt.Sprintf("Strictness(%d)", uint8(s))
}

// ParseStrictness parses ast-grep's names ("" is smart). An unknown name gives an error
// wrapping [ErrBadPattern].
func ParseStrictness(s string) (Strictness, error) {
	if s == "" {
		return Smart, nil
	}
	for i, n := range strictnessNames {
		if strings.EqualFold(s, n) {
			return Strictness(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown strictness %q; use one of: %s", ErrBadPattern, s, strings.Join(strictnessNames, ", "))
}

// treeParser parses one language into flat trees. Implementations: the cgo parser, and
// recorded fixtures in tests.
type treeParser interface {
	Parse(src []byte) (*match.Tree, error)
	Grammar() *match.Grammar
	Close()
}

// parserFactory makes a parser for a language (ErrLangUnavailable when there is none).
type parserFactory func(l Lang) (treeParser, error)

// A PatternOption configures [Compile].
type PatternOption func(*patternConfig)

type patternConfig struct {
	strictness Strictness
	selector   string
}

// WithStrictness sets the strictness (default Smart).
func WithStrictness(s Strictness) PatternOption {
	return func(c *patternConfig) { c.strictness = s }
}

// WithSelector makes the pattern text a context (ast-grep's --selector): the whole text is
// parsed, its first node of the given kind (in pre-order) becomes the pattern, and only
// nodes of that kind match. Use it when the code you mean is not a complete node on its own:
// `func t() { $A := $B }` with kind short_var_declaration finds `x := f()` in any function.
// The literal that skips files before parsing comes from the selected node only. A kind
// that names no node of the context is a [*PatternError] listing the kinds it has.
func WithSelector(kind string) PatternOption {
	return func(c *patternConfig) { c.selector = kind }
}

// Pattern is a compiled pattern for one language. It is immutable and safe for concurrent
// use.
type Pattern struct {
	text    string
	lang    Lang
	p       *match.Pattern
	newTree parserFactory
	grammar *match.Grammar // the grammar the pattern was parsed with (a tree cache's key)
}

// Compile compiles an ast-grep pattern for a language with the native backend. It returns
// an error wrapping [ErrUnknownLang] for an invalid language, [ErrLangUnavailable] when
// there is no native grammar for it, [ErrUnavailable] when built without cgo, and a
// [*PatternError] (wrapping [ErrBadPattern]) for a pattern that is empty, parses to
// several nodes, or is a lone $$$NAME.
func Compile(pattern string, lang Lang, opts ...PatternOption) (*Pattern, error) {
	var cfg patternConfig
	for _, o := range opts {
		o(&cfg)
	}
	return compileSel(nativeParser, pattern, lang, cfg.strictness, cfg.selector)
}

func compileWith(newTree parserFactory, pattern string, lang Lang, s Strictness) (*Pattern, error) {
	return compileSel(newTree, pattern, lang, s, "")
}

// compileSel compiles pattern, or with a selector the node of that kind in it.
func compileSel(newTree parserFactory, pattern string, lang Lang, s Strictness, selector string) (*Pattern, error) {
	if !lang.valid() {
		l, err := ParseLang(string(lang))
		if err != nil {
			return nil, err
		}
		lang = l
	}
	if s > Template {
		return nil, fmt.Errorf("%w: invalid strictness %d", ErrBadPattern, s)
	}
	if !utf8.ValidString(pattern) || strings.ContainsRune(pattern, 0) {
		return nil, &PatternError{Pattern: pattern, Lang: lang, Cause: "the pattern is not UTF-8 text or holds a NUL byte, so no searched file can contain it"}
	}
	tp, err := newTree(lang)
	if err != nil {
		return nil, err
	}
	defer tp.Close()
	g := tp.Grammar()
	pre := match.Preprocess(pattern, g.Expando)
	t, err := tp.Parse([]byte(pre))
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Lang: lang, Cause: err.Error()}
	}
	var mp *match.Pattern
	if selector != "" {
		mp, err = match.CompileSelector(t, g, match.Strictness(s), strings.TrimSpace(selector))
	} else {
		mp, err = match.Compile(t, g, match.Strictness(s))
	}
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Lang: lang, Cause: err.Error()}
	}
	return &Pattern{text: pattern, lang: lang, p: mp, newTree: newTree, grammar: g}, nil
}

// HasError reports whether the pattern's syntax tree contains an ERROR node: it was not
// complete code. It may still match (a Python `def $F($$$)` finds functions).
func (p *Pattern) HasError() bool { return p.p.HasError }

// Literal returns a text every match must contain: the longest of the pattern's literals
// (a search skips, before parsing, files that lack one of them; see the package doc).
// There is none under signature and template strictness.
func (p *Pattern) Literal() (string, bool) { return p.p.Literal() }

// Lang returns the pattern's language.
func (p *Pattern) Lang() Lang { return p.lang }

// FindAll parses src and returns every match in pre-order (outer matches first; a match
// inside another is reported too). File is left empty. It fails only when src cannot be
// parsed (the grammar's timeout).
func (p *Pattern) FindAll(src []byte) ([]Match, error) {
	var out []Match
	for m, err := range p.All(src) {
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// All is [Pattern.FindAll] as an iterator.
func (p *Pattern) All(src []byte) iter.Seq2[Match, error] {
	return func(yield func(Match, error) bool) {
		tp, err := p.newTree(p.lang)
		if err != nil {
			yield(Match{}, err)
			return
		}
		defer tp.Close()
		t, err := parseFor(tp, newFilter(p.p, true), src)
		if err != nil {
			yield(Match{}, err)
			return
		}
		text := string(src)
		for _, f := range p.p.FindAll(t) {
			if !yield(buildMatch(t, p.lang, p.p, f, 0, text), nil) {
				return
			}
		}
	}
}

var errNoCgo = errors.New("astsearch: the native backend needs cgo; this binary was built with CGO_ENABLED=0 (install ast-grep and use the CLI backend)")
