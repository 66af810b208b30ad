package astsearch

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// astGrep returns the ast-grep 0.51.1 executable, or skips the test saying how to get it.
func astGrep(t testing.TB) string {
	t.Helper()
	exe := os.Getenv("HARNESSKIT_AST_GREP")
	if exe == "" {
		if p, err := exec.LookPath("ast-grep"); err == nil {
			exe = p
		}
	}
	if exe == "" {
		t.Skip("ast-grep not found: set HARNESSKIT_AST_GREP to the binary of `npm install @ast-grep/cli@0.51.1` (node_modules/@ast-grep/cli-linux-x64-gnu/ast-grep), or put ast-grep on PATH")
	}
	out, err := exec.Command(exe, "--version").Output()
	if err != nil {
		t.Skipf("ast-grep at %s does not run: %v", exe, err)
	}
	if v := strings.TrimSpace(string(out)); v != "ast-grep 0.51.1" {
		t.Skipf("the oracle must be ast-grep 0.51.1, %s is %q", exe, v)
	}
	return exe
}

// TestConformanceCLI runs every search case through the CLI backend (stdin mode): it checks
// the harness and the CLI backend against the recorded observations.
func TestConformanceCLI(t *testing.T) {
	exe := astGrep(t)
	b := CLI(exe)
	for _, c := range loadConformance(t) {
		t.Run(c.ID, func(t *testing.T) {
			s, _ := ParseStrictness(c.Strictness)
			out, err := b.Find(context.Background(), Query{Pattern: c.Pattern, Lang: Lang(c.Language), Strictness: s}, []Source{{Path: "case", Data: []byte(c.Source)}})
			var got []Match
			if err == nil {
				got = out[0]
			}
			why, _ := compareCase(c, got, err, "")
			if why != "" {
				t.Errorf("%s: %s", c.ID, why)
			}
		})
	}
}

type corpus struct {
	name, dir string
	lang      Lang
	patterns  []string
	quick     []string // the paths searched without -astsearch.corpus
}

var fullCorpus = flag.Bool("astsearch.corpus", false, "compare with ast-grep over whole corpora and every pattern (minutes)")

// knownCorpus lists the corpus matches allowed to differ, as "corpus|pattern|file:start-end".
func knownCorpus(t testing.TB) map[string]string {
	b, err := os.ReadFile("testdata/known-differences.json")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Corpus []struct{ Corpus, Pattern, Match, Reason string } `json:"corpus"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range k.Corpus {
		out[c.Corpus+"|"+c.Pattern+"|"+c.Match] = c.Reason
	}
	return out
}

func corpora() []corpus {
	out := []corpus{
		{"GOROOT/src/net", filepath.Join(runtime.GOROOT(), "src", "net"), Go,
			[]string{"if err != nil { return $$$ }", "fmt.Errorf($A, $$$)", "$A == nil", "$F($$$ARGS)", "for $$$ { $$$ }", "return $A, $B", `$X == ""`, `strings.HasPrefix($S, "/")`, `$T.Errorf("%q: %v", $$$)`},
			[]string{"http/cookiejar", "rpc"}},
		{"python3.11 stdlib", "/usr/lib/python3.11", Python,
			[]string{"isinstance($A, $B)", "def $F($$$)", "raise $E($$$)", "$A.append($B)", `", ".join($A)`},
			[]string{"json", "email/mime"}},
		{"npm package tree", "/usr/lib/node_modules/npm", JavaScript,
			[]string{"require($A)", "function $NAME($$$) { $$$ }", "$A === undefined", "module.exports = $X"},
			[]string{"lib/commands"}},
		{"npm package tree (json)", "/usr/lib/node_modules/npm", JSON,
			[]string{`"version"`, `"git"`, "true", "[$$$]", "{}"},
			[]string{"package.json", "node_modules/@npmcli"}},
	}
	// Small programs written for this project (testdata/langs), one per language whose
	// grammar does not come from smacker's module; the walk picks each language's files.
	langs, _ := filepath.Abs(filepath.Join("testdata", "langs"))
	for _, c := range []struct {
		lang     Lang
		patterns []string
	}{
		{Haskell, []string{"putStrLn $A", "Map.lookup $K $M", "$A ++ $B", "print $X", "let $A = $B", "$F :: $T", "itemCount $I"}},
		{JSON, []string{`"name"`, `[$A, $B]`, "{}", "null", "true", `{"name": $N, $$$REST}`, `{"deep": $D}`, "[$$$]"}},
		{Nix, []string{"pkgs.$A", "$A ++ $B", "mkScript $A $B", "with $A; $B", "$A // $B", "if $C then $A else $B", "$F: $B"}},
		{PHP, []string{"return $A;", "new $C($$$ARGS)", "$A->name()", "sprintf($$$ARGS)", "foreach ($A as $B => $C) { $$$ }", "$this->$P", "$A ?? $B"}},
		{Solidity, []string{"function $F($$$) external onlyOwner { $$$ }", "event $E($$$);", "struct $S { $$$ }", "modifier $M() { $$$ }", "contract $C { $$$ }", "$A * $B"}},
		{Lua, []string{"local $A = $B", "$O:$M($$$)", "self.$F = $V", "io.$M($$$)", "if $C then $$$ end", "$A .. $B", "return $A"}},
	} {
		out = append(out, corpus{"testdata/langs " + string(c.lang), langs, c.lang, c.patterns, nil})
	}
	return out
}

// TestDifferentialCorpora compares the native backend with ast-grep on real trees: the same
// files (listed by our walk) go to both, and the match sets (file and byte range) must be
// equal. Skipped without ast-grep or cgo; each corpus is skipped when absent.
func TestDifferentialCorpora(t *testing.T) {
	exe := astGrep(t)
	nb, err := Native()
	if err != nil {
		t.Skip(err)
	}
	known := knownCorpus(t)
	for _, c := range corpora() {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.dir); err != nil {
				t.Skipf("%s not on this machine", c.dir)
			}
			fsys := os.DirFS(c.dir)
			var paths []string
			if !*fullCorpus {
				paths = c.quick // whole corpora take minutes on a loaded machine
			}
			for _, p := range c.patterns {
				base := Request{Pattern: p, Lang: c.lang, Paths: paths, Dir: c.dir, MaxMatches: math.MaxInt, MaxOutputBytes: math.MaxInt, Threads: 2}
				rn, rc := base, base
				rn.Backend, rc.Backend = nb, CLI(exe)
				t0 := time.Now()
				a, err := Search(context.Background(), fsys, rn)
				if err != nil {
					t.Fatalf("%s native: %v", p, err)
				}
				t1 := time.Now()
				b, err := Search(context.Background(), fsys, rc)
				if err != nil {
					t.Fatalf("%s ast-grep: %v", p, err)
				}
				t2 := time.Now()
				ka, kb := keys(a.Matches), keys(b.Matches)
				// A listed difference must still differ: found by one side only (or, in a
				// whole-corpus run, where every file was searched, by one side at least).
				for k := range known {
					m, ok := strings.CutPrefix(k, c.name+"|"+p+"|")
					if !ok {
						continue
					}
					_, inA := slices.BinarySearch(ka, m)
					_, inB := slices.BinarySearch(kb, m)
					if inA == inB && (inA || *fullCorpus) {
						t.Errorf("%s: %s is listed in known-differences.json but no longer differs: remove the entry", p, m)
					}
				}
				for _, side := range []*[]string{&ka, &kb} {
					*side = slices.DeleteFunc(*side, func(k string) bool {
						_, ok := known[c.name+"|"+p+"|"+k]
						return ok
					})
				}
				if !slices.Equal(ka, kb) {
					t.Errorf("%s: native %d matches, ast-grep %d; first differences: %v", p, len(ka), len(kb), firstDiffs(ka, kb, 5))
				}
				t.Logf("%-32q %5d matches in %4d files (%d files walked); native %v, ast-grep %v", p, len(ka), a.Files, a.Stats.Files, t1.Sub(t0).Round(time.Millisecond), t2.Sub(t1).Round(time.Millisecond))
			}
		})
	}
}

func keys(ms []Match) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.File+":"+itoa(m.Range.ByteOffset.Start)+"-"+itoa(m.Range.ByteOffset.End))
	}
	slices.Sort(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func firstDiffs(a, b []string, n int) []string {
	var out []string
	i, j := 0, 0
	for (i < len(a) || j < len(b)) && len(out) < n {
		switch {
		case j >= len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, "only native "+a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			out = append(out, "only ast-grep "+b[j])
			j++
		default:
			i++
			j++
		}
	}
	return out
}

// TestConformanceRewriteCLI plans and applies every rewrite case through the CLI backend:
// ast-grep computes the replacements (--rewrite with --json, which writes nothing) and
// astsearch writes them itself.
func TestConformanceRewriteCLI(t *testing.T) {
	exe := astGrep(t)
	b := CLI(exe)
	for _, c := range loadConformance(t) {
		if c.Kind != "rewrite" {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			if why := checkRewrite(t, c, b); why != "" {
				t.Errorf("%s %q -> %q: %s", c.ID, c.Pattern, c.Rewrite, why)
			}
		})
	}
}

// TestCRLFTemplateLineBreakOracle: the one listed rewrite difference. On a CRLF file, a line
// break written in the template becomes CRLF natively (the line ending of the line where
// the match starts) and a bare LF on ast-grep 0.51.1, which leaves the file with mixed line
// endings; everything else, captured `\r`s and re-indentation included, is the same.
func TestCRLFTemplateLineBreakOracle(t *testing.T) {
	reason := loadKnown(t, "native", "rewrite")["local:crlf-template-line-break"]
	if reason == "" {
		t.Fatal("known-differences.json lists no local:crlf-template-line-break entry")
	}
	exe := astGrep(t)
	nb, err := Native()
	if err != nil {
		t.Skip(err)
	}
	src := []byte("function f() {\r\n  if (a) {\r\n    b();\r\n  }\r\n}\r\n")
	for _, tmpl := range []string{"if ($C)\n  $S", "if (!($C)) $S", "x();\ny()"} {
		q := Query{Pattern: "if ($C) $S", Lang: JavaScript, Rewrite: &tmpl}
		in := []Source{{Path: "x.js", Data: src}}
		got, err := nb.Find(context.Background(), q, in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := CLI(exe).Find(context.Background(), q, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[0]) != 1 || len(want[0]) != 1 {
			t.Fatalf("%q: %d native and %d ast-grep matches, want 1 each", tmpl, len(got[0]), len(want[0]))
		}
		g, w := *got[0][0].Replacement, *want[0][0].Replacement
		// ast-grep's LFs from the template, made CRLF; its CRLFs (from the capture) kept.
		crlf := strings.ReplaceAll(strings.ReplaceAll(w, "\r\n", "\x00"), "\n", "\r\n")
		crlf = strings.ReplaceAll(crlf, "\x00", "\r\n")
		if g != crlf {
			t.Errorf("%q: native %q, ast-grep %q: the difference is not only the template's line break (%s)", tmpl, g, w, reason)
		}
		if strings.Contains(tmpl, "\n") == (g == w) {
			t.Errorf("%q: native %q, ast-grep %q: expected them to differ exactly when the template has a line break", tmpl, g, w)
		}
	}
}
