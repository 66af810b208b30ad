package webfetch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/harnesskit/harnesskit/webfetch/internal/extract"
	"golang.org/x/net/html"
)

// pageBase is the URL every Readability test page is parsed as if it lived at.
const pageBase = "http://fakehost/test/page.html"

// tokens splits s the way the quality measurement does: lower-cased maximal runs of letters,
// digits and marks, with every Han, Hiragana, Katakana or Hangul character a token of its own.
func tokens(s string) map[string]int {
	bag := map[string]int{}
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			bag[string(cur)]++
			cur = cur[:0]
		}
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			bag[string(r)]++
		case unicode.In(r, unicode.L, unicode.N, unicode.M):
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return bag
}

// f1 is the bag-of-tokens F1 of pred against gold, with its precision and recall.
func f1(pred, gold map[string]int) (f, p, r float64) {
	np, ng, overlap := 0, 0, 0
	for t, c := range pred {
		np += c
		overlap += min(c, gold[t])
	}
	for _, c := range gold {
		ng += c
	}
	switch {
	case np == 0 && ng == 0:
		return 1, 1, 1
	case np == 0 || ng == 0:
		return 0, 0, 0
	}
	p = float64(overlap) / float64(np)
	r = float64(overlap) / float64(ng)
	if p+r == 0 {
		return 0, p, r
	}
	return 2 * p * r / (p + r), p, r
}

var (
	mdTarget   = regexp.MustCompile(`\]\([^)\s]*(?:\s+"[^"]*")?\)`)
	mdAutolink = regexp.MustCompile(`<https?:[^>\s]*>`)
)

// stripTargets removes Markdown link and image targets and autolinks before scoring.
func stripTargets(md string) string {
	md = mdTarget.ReplaceAllString(md, "]")
	return mdAutolink.ReplaceAllString(md, " ")
}

type pageScore struct {
	name               string
	node, text, md     float64
	nodeP, nodeR       float64
	goldTokens         int
	goldPre, fencedPre int
	title, wantTitle   string
	lang, wantLang     string
	hasLang            bool
}

func readabilityPages(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", "readability", "*", "source.html"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no readability pages under testdata/readability: %v", err)
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	slices.Sort(dirs)
	return dirs
}

func scorePage(t testing.TB, dir string) pageScore {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "source.html"))
	if err != nil {
		t.Fatal(err)
	}
	gold, err := os.ReadFile(filepath.Join(dir, "expected.html"))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(pageBase)
	// The pages are stored as UTF-8 (some still carry their original <meta> charset), as
	// upstream reads them.
	ex, err := extractHTML(src, "text/html; charset=utf-8", base, false, defaultMaxHeadings)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	goldDoc, err := html.Parse(bytes.NewReader(gold))
	if err != nil {
		t.Fatal(err)
	}
	g := tokens(extract.GoldText(goldDoc))
	s := pageScore{name: filepath.Base(dir), title: ex.title, lang: ex.lang}
	for _, c := range g {
		s.goldTokens += c
	}
	s.node, s.nodeP, s.nodeR = f1(tokens(extract.GoldText(ex.node)), g)
	s.text, _, _ = f1(tokens(ex.text), g)
	s.md, _, _ = f1(tokens(stripTargets(ex.markdown)), g)
	s.goldPre = countTag(goldDoc, "pre")
	var meta struct {
		Title string  `json:"title"`
		Lang  *string `json:"lang"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "expected-metadata.json")); err == nil && json.Unmarshal(b, &meta) == nil {
		s.wantTitle = strings.Join(strings.Fields(meta.Title), " ")
		s.hasLang = meta.Lang != nil
		if meta.Lang != nil {
			s.wantLang = *meta.Lang
		}
	}
	s.fencedPre = countFences(ex.markdown)
	return s
}

// countFences counts fenced code blocks, also inside block quotes.
func countFences(md string) int {
	n, open := 0, false
	for line := range strings.SplitSeq(md, "\n") {
		line = strings.TrimLeft(line, "> ")
		if strings.HasPrefix(line, "```") {
			if !open {
				n++
			}
			open = !open
		}
	}
	return n
}

func countTag(n *html.Node, tag string) int {
	c := 0
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d.Data == tag {
			c++
		}
	}
	return c
}

func TestReadabilityQuality(t *testing.T) {
	var scores []pageScore
	for _, dir := range readabilityPages(t) {
		scores = append(scores, scorePage(t, dir))
	}
	mean := func(f func(pageScore) float64) float64 {
		s := 0.0
		for _, p := range scores {
			s += f(p)
		}
		return s / float64(len(scores))
	}
	median := func(f func(pageScore) float64) float64 {
		v := make([]float64, len(scores))
		for i, p := range scores {
			v[i] = f(p)
		}
		slices.Sort(v)
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return (v[n/2-1] + v[n/2]) / 2
	}
	for _, p := range scores {
		t.Logf("%-24s node %.4f (P %.3f R %.3f)  text %.4f  md %.4f  gold %5d  pre %d/%d",
			p.name, p.node, p.nodeP, p.nodeR, p.text, p.md, p.goldTokens, p.fencedPre, p.goldPre)
	}
	node := func(p pageScore) float64 { return p.node }
	text := func(p pageScore) float64 { return p.text }
	md := func(p pageScore) float64 { return p.md }
	t.Logf("node mean %.4f median %.4f", mean(node), median(node))
	t.Logf("text mean %.4f median %.4f worst %s", mean(text), median(text), worst(scores, text))
	t.Logf("md   mean %.4f median %.4f worst %s", mean(md), median(md), worst(scores, md))
	if m := mean(text); m < 0.995 {
		t.Errorf("text rendering mean F1 %.4f, want >= 0.995", m)
	}
	if m := mean(md); m < 0.990 {
		t.Errorf("markdown rendering mean F1 %.4f, want >= 0.990", m)
	}
	titles := 0
	for _, p := range scores {
		if p.title == p.wantTitle {
			titles++
		} else {
			t.Logf("%s: title %q, expected %q", p.name, p.title, p.wantTitle)
		}
		if p.hasLang && p.lang != p.wantLang {
			t.Errorf("%s: lang %q, want %q", p.name, p.lang, p.wantLang)
		}
	}
	if titles*10 < len(scores)*9 {
		t.Errorf("titles equal on %d of %d pages, want at least 90 %%", titles, len(scores))
	}
	t.Logf("titles equal on %d of %d pages", titles, len(scores))
	for _, p := range scores {
		if p.fencedPre < p.goldPre {
			t.Errorf("%s: %d of %d gold <pre> blocks became fenced code", p.name, p.fencedPre, p.goldPre)
		}
	}
}

func worst(scores []pageScore, f func(pageScore) float64) string {
	s := slices.Clone(scores)
	slices.SortStableFunc(s, func(a, b pageScore) int {
		switch {
		case f(a) < f(b):
			return -1
		case f(a) > f(b):
			return 1
		}
		return 0
	})
	var parts []string
	for _, p := range s[:min(5, len(s))] {
		parts = append(parts, fmt.Sprintf("%s=%.4f", p.name, f(p)))
	}
	return strings.Join(parts, ", ")
}
