package astsearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

type confCapture struct {
	Text      string `json:"text"`
	ByteStart int    `json:"byte_start"`
	ByteEnd   int    `json:"byte_end"`
}

type confMatch struct {
	Text                 string  `json:"text"`
	ByteStart            int     `json:"byte_start"`
	ByteEnd              int     `json:"byte_end"`
	StartLine            int     `json:"start_line"`
	StartColumn          int     `json:"start_column"`
	EndLine              int     `json:"end_line"`
	EndColumn            int     `json:"end_column"`
	Replacement          *string `json:"replacement"`
	ReplacementByteStart int     `json:"replacement_byte_start"`
	ReplacementByteEnd   int     `json:"replacement_byte_end"`
	Captures             *struct {
		Single map[string]confCapture   `json:"single"`
		Multi  map[string][]confCapture `json:"multi"`
	} `json:"captures"`
}

type confCase struct {
	ID           string      `json:"id"`
	Kind         string      `json:"kind"`
	Language     string      `json:"language"`
	Strictness   string      `json:"strictness"`
	Pattern      string      `json:"pattern"`
	Rewrite      string      `json:"rewrite"`
	FileName     string      `json:"file_name"`
	Source       string      `json:"source"`
	Expect       string      `json:"expect"`
	MatchCount   int         `json:"match_count"`
	ErrorCause   string      `json:"error_cause"`
	Matches      []confMatch `json:"matches"`
	ExpectedFile string      `json:"expected_file"`
	Note         string      `json:"note"`
}

func loadConformance(t testing.TB) []confCase {
	t.Helper()
	b, err := os.ReadFile("testdata/astsearch-conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []confCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

// checkCase runs one case's search on factory and returns "" or the reason it fails.
func checkCase(c confCase, factory parserFactory) (string, error) {
	s, err := ParseStrictness(c.Strictness)
	if err != nil {
		return "", err
	}
	p, err := compileWith(factory, c.Pattern, Lang(c.Language), s)
	if err != nil {
		return compareCase(c, nil, err, "")
	}
	got, err := p.FindAll([]byte(c.Source))
	return compareCase(c, got, err, p.p.String())
}

// compareCase compares a backend's answer for a case with what ast-grep reported.
func compareCase(c confCase, got []Match, err error, tree string) (string, error) {
	if c.Expect == "error" {
		if errors.Is(err, ErrBadPattern) {
			return "", nil
		}
		return fmt.Sprintf("want ErrBadPattern, got err=%v", err), nil
	}
	if err != nil {
		if errors.Is(err, ErrLangUnavailable) || errors.Is(err, ErrUnavailable) {
			return "", err
		}
		return fmt.Sprintf("search: %v", err), nil
	}
	if len(got) != len(c.Matches) {
		var texts []string
		for _, m := range got {
			texts = append(texts, fmt.Sprintf("%q@%d-%d", m.Text, m.Range.ByteOffset.Start, m.Range.ByteOffset.End))
		}
		return fmt.Sprintf("want %d matches, got %d: %s (pattern tree %s)", len(c.Matches), len(got), strings.Join(texts, ", "), tree), nil
	}
	for i, w := range c.Matches {
		g := got[i]
		r := g.Range
		if g.Text != w.Text || r.ByteOffset.Start != w.ByteStart || r.ByteOffset.End != w.ByteEnd ||
			r.Start.Line != w.StartLine || r.Start.Column != w.StartColumn || r.End.Line != w.EndLine || r.End.Column != w.EndColumn {
			return fmt.Sprintf("match %d: got %q %+v, want %q %d-%d (%d:%d-%d:%d)", i, g.Text, r, w.Text, w.ByteStart, w.ByteEnd, w.StartLine, w.StartColumn, w.EndLine, w.EndColumn), nil
		}
		if (w.Captures == nil) != (g.MetaVariables == nil) {
			return fmt.Sprintf("match %d: captures present %v, want %v", i, g.MetaVariables != nil, w.Captures != nil), nil
		}
		if w.Captures == nil {
			continue
		}
		if d := diffCaptures(w.Captures.Single, w.Captures.Multi, g.MetaVariables); d != "" {
			return fmt.Sprintf("match %d: %s", i, d), nil
		}
	}
	return "", nil
}

func capStr(c Capture) string {
	return fmt.Sprintf("%q@%d-%d", c.Text, c.Range.ByteOffset.Start, c.Range.ByteOffset.End)
}
func confStr(c confCapture) string { return fmt.Sprintf("%q@%d-%d", c.Text, c.ByteStart, c.ByteEnd) }

func diffCaptures(single map[string]confCapture, multi map[string][]confCapture, mv *MetaVariables) string {
	want, got := map[string]string{}, map[string]string{}
	for k, v := range single {
		want["$"+k] = confStr(v)
	}
	for k, vs := range multi {
		var s []string
		for _, v := range vs {
			s = append(s, confStr(v))
		}
		want["$$$"+k] = "[" + strings.Join(s, " ") + "]"
	}
	for k, v := range mv.Single {
		got["$"+k] = capStr(v)
	}
	for k, vs := range mv.Multi {
		var s []string
		for _, v := range vs {
			s = append(s, capStr(v))
		}
		got["$$$"+k] = "[" + strings.Join(s, " ") + "]"
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return fmt.Sprintf("captures %v, want %v", got, want)
	}
	return ""
}

func TestConformanceNative(t *testing.T) {
	if !haveNative {
		t.Skip("built without cgo: the native backend is absent (fixture-based conformance runs instead)")
	}
	runConformance(t, nativeParser)
}

type knownDiffs struct {
	Differences []struct {
		Case, Backend, Aspect, Reason string
	} `json:"differences"`
}

func loadKnown(t testing.TB, backend, aspect string) map[string]string {
	t.Helper()
	b, err := os.ReadFile("testdata/known-differences.json")
	if err != nil {
		t.Fatal(err)
	}
	var k knownDiffs
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range k.Differences {
		if d.Backend == backend && d.Aspect == aspect {
			out[d.Case] = d.Reason
		}
	}
	return out
}

func runConformance(t *testing.T, factory parserFactory) {
	known := loadKnown(t, "native", "search")
	pass := map[string]int{}
	total := map[string]int{}
	for _, c := range loadConformance(t) {
		t.Run(c.ID, func(t *testing.T) {
			why, err := checkCase(c, factory)
			if err != nil {
				t.Skipf("%s: %v", c.Language, err)
			}
			total[c.Language]++
			if reason, ok := known[c.ID]; ok {
				if why == "" {
					t.Errorf("%s is listed in known-differences.json (%s) but now passes: remove the entry", c.ID, reason)
				} else {
					t.Logf("known difference: %s", why)
				}
				return
			}
			if why != "" {
				t.Errorf("%s [%s %s] %q on %q: %s", c.ID, c.Language, c.Strictness, c.Pattern, c.Source, why)
				return
			}
			pass[c.Language]++
		})
	}
	var langs []string
	for l := range total {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	var parts []string
	for _, l := range langs {
		parts = append(parts, fmt.Sprintf("%s %d/%d", l, pass[l], total[l]))
	}
	t.Logf("conformance pass counts: %s", strings.Join(parts, ", "))
}
