package astsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// selectorCase is a context pattern with a selector over a source. The expected matches are
// ast-grep 0.51.1's, recorded in testdata/selector.golden.json by TestSelectorOracle
// -update and checked by TestSelectorGolden on every run.
type selectorCase struct {
	name, lang, context, selector, strictness, source string
}

var selectorCases = []selectorCase{
	{name: "go_short_var", lang: "go", context: "func t() { $A := $B }", selector: "short_var_declaration",
		source: "package p\n\nfunc f() {\n\tx := 1\n\ty, z := g(), 2\n\tx = 3\n\tfor i := 0; i < 3; i++ {\n\t}\n}\n"},
	{name: "go_metavar_root_keeps_kind", lang: "go", context: "func t() { $A := $B }", selector: "expression_list",
		source: "package p\n\nfunc f() {\n\tx := 1\n\ty, z := g(), 2\n\tx = 3\n\tfor i := 0; i < 3; i++ {\n\t}\n}\n"},
	{name: "go_literal_from_selected_node", lang: "go", context: "func target() { x := compute($A) }", selector: "call_expression",
		source: "package p\n\nfunc f() {\n\ty := compute(2)\n\tcompute(3)\n\tother(4)\n}\n"},
	{name: "go_call_in_context", lang: "go", context: "func t() { fmt.Println($A) }", selector: "call_expression",
		source: "package main\n\nfunc main() {\n\tfmt.Println(greet(\"world\"))\n\tfmt.Println()\n\tfmt.Println(a, b)\n}\n"},
	{name: "go_kind_absent_from_context", lang: "go", context: "func t() { $A := $B }", selector: "call_expression",
		source: "package p\n\nfunc f() { g() }\n"},
	{name: "go_kind_unknown", lang: "go", context: "func t() { $A := $B }", selector: "no_such_kind",
		source: "package p\n\nfunc f() { g() }\n"},
	{name: "go_template_strictness", lang: "go", context: "func t() { $A := $B }", selector: "short_var_declaration", strictness: "template",
		source: "package p\n\nfunc f() {\n\tx := 1\n\tx = 1\n}\n"},
	{name: "js_method_definition", lang: "javascript", context: "class A { $M() {} }", selector: "method_definition",
		source: "class B {\n  foo() {}\n  bar(x) { return x }\n  static baz() {}\n  get q() {}\n}\nconst o = { m() {} };\n"},
	{name: "js_pair", lang: "javascript", context: "x = { a: $V }", selector: "pair",
		source: "const o = { a: 1, b: 2, c: { a: f() } };\nlet a = 3;\n"},
	{name: "ts_field", lang: "typescript", context: "class A { $P: $T; }", selector: "public_field_definition",
		source: "class C {\n  n: number;\n  s: string = \"x\";\n  private p: boolean;\n  m(): void {}\n}\n"},
	{name: "python_method", lang: "python", context: "class C:\n    def $F(self): $$$B", selector: "function_definition",
		source: "class K:\n    def a(self):\n        return 1\n\n    def b(self, x):\n        pass\n\ndef c(self):\n    pass\n"},
	{name: "python_pair", lang: "python", context: "x = {$K: $V}", selector: "pair",
		source: "d = {'a': 1, 'b': [2, 3]}\ne = dict(a=1)\n"},
	{name: "rust_method", lang: "rust", context: "impl S { fn $F(&self) -> $T { $$$ } }", selector: "function_item",
		source: "impl S {\n    fn a(&self) -> u8 { 1 }\n    fn b(&mut self) -> u8 { 2 }\n    fn c(&self) {}\n}\nfn d(&self) -> u8 { 3 }\n"},
	{name: "rust_match_arm", lang: "rust", context: "match x { $P => $E, }", selector: "match_arm",
		source: "fn f(x: Option<u8>) -> u8 {\n    match x {\n        Some(v) => v,\n        None => 0,\n    }\n}\n"},
}

// selectorGolden is one case's recorded outcome: ast-grep's matches, or that it rejected
// the pattern (exit status 8).
type selectorGolden struct {
	Matches  []Match `json:"matches"`
	Rejected bool    `json:"rejected,omitempty"`
}

const selectorGoldenPath = "testdata/selector.golden.json"

func (c selectorCase) query() Query {
	s, _ := ParseStrictness(c.strictness)
	return Query{Pattern: c.context, Lang: Lang(c.lang), Strictness: s, Selector: c.selector}
}

func runSelectorCase(b Backend, c selectorCase) (selectorGolden, error) {
	out, err := b.Find(context.Background(), c.query(), []Source{{Path: "case", Data: []byte(c.source)}})
	if errors.Is(err, ErrBadPattern) {
		return selectorGolden{Rejected: true}, nil
	}
	if err != nil {
		return selectorGolden{}, err
	}
	return selectorGolden{Matches: out[0]}, nil
}

func loadSelectorGolden(t *testing.T) map[string]selectorGolden {
	t.Helper()
	data, err := os.ReadFile(selectorGoldenPath)
	if err != nil {
		t.Fatalf("%v (run go test -run TestSelectorOracle -update ./astsearch with ast-grep 0.51.1)", err)
	}
	var g map[string]selectorGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func sameJSON(a, b any) (string, string, bool) {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja), string(jb), bytes.Equal(ja, jb)
}

// TestSelectorGolden runs every selector case through the native pipeline on the committed
// trees (no cgo needed) and compares with ast-grep's recorded answers.
func TestSelectorGolden(t *testing.T) {
	golden := loadSelectorGolden(t)
	for _, c := range selectorCases {
		t.Run(c.name, func(t *testing.T) {
			want, ok := golden[c.name]
			if !ok {
				t.Fatalf("no golden entry for %s (run TestSelectorOracle -update)", c.name)
			}
			got, err := runSelectorCase(fixtureBackend, c)
			if err != nil {
				t.Fatal(err)
			}
			if g, w, ok := sameJSON(got, want); !ok {
				t.Errorf("native:\n got %s\nwant %s", g, w)
			}
		})
	}
}

// TestSelectorOracle runs the cases through ast-grep 0.51.1 (--selector) and the native
// backend with the real grammars; -update records ast-grep's answers as the golden file.
func TestSelectorOracle(t *testing.T) {
	exe := astGrep(t)
	cli := CLI(exe)
	native, nerr := Native()
	got := map[string]selectorGolden{}
	for _, c := range selectorCases {
		t.Run(c.name, func(t *testing.T) {
			want, err := runSelectorCase(cli, c)
			if err != nil {
				t.Fatalf("ast-grep: %v", err)
			}
			got[c.name] = want
			if nerr != nil {
				t.Logf("native backend unavailable (%v): only ast-grep ran", nerr)
				return
			}
			n, err := runSelectorCase(native, c)
			if err != nil {
				t.Fatal(err)
			}
			if g, w, ok := sameJSON(n, want); !ok {
				t.Errorf("native differs from ast-grep:\n native %s\nast-grep %s", g, w)
			}
		})
	}
	data, _ := json.MarshalIndent(got, "", "  ")
	data = append(data, '\n')
	if *update {
		if err := os.WriteFile(selectorGoldenPath, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if cur, _ := os.ReadFile(selectorGoldenPath); !bytes.Equal(cur, data) {
		t.Errorf("%s differs from ast-grep's answers; run go test -run TestSelectorOracle -update ./astsearch", selectorGoldenPath)
	}
}

// E56: with a selector the prefilter's literal comes from the selected node only: a file
// holding `compute(…)` but not the context's `target` is still searched and matched, with
// the prefilter on as off.
func TestE56_selector_literal_from_selected_node(t *testing.T) {
	c := selectorCases[2]
	p, err := compileSel(fixtureFactory, c.context, Go, Smart, c.selector)
	if err != nil {
		t.Fatal(err)
	}
	if lit, ok := p.Literal(); !ok || lit != "compute" {
		t.Errorf("literal %q %v, want \"compute\" (from the call, not the function name)", lit, ok)
	}
	fsys := mapFS(map[string]string{"a.go": c.source})
	for _, off := range []bool{false, true} {
		r, err := Search(context.Background(), fsys, Request{Pattern: c.context, Selector: c.selector, Lang: Go, Backend: fixtureBackend, NoPrefilter: off})
		if err != nil {
			t.Fatal(err)
		}
		if got := matchKeys(r); len(got) != 2 || got[0] != "a.go:28-38" || got[1] != "a.go:40-50" || r.Stats.Prefiltered != 0 {
			t.Errorf("prefilter off=%v: matches %v, prefiltered %d; want a.go:28-38 and a.go:40-50", off, got, r.Stats.Prefiltered)
		}
	}
}

// A selector naming no node of the context is a PatternError that lists the kinds the
// context has, so the caller can pick one.
func TestSelectorErrors(t *testing.T) {
	tests := []struct {
		name, selector string
		wantIn         []string
	}{
		{name: "absent", selector: "call_expression", wantIn: []string{`"call_expression"`, "function_declaration", "short_var_declaration", "expression_list"}},
		{name: "unknown", selector: "no_such_kind", wantIn: []string{`"no_such_kind"`, "source_file", "block"}},
		{name: "unnamed_token", selector: ":=", wantIn: []string{`":="`, "short_var_declaration"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileSel(fixtureFactory, "func t() { $A := $B }", Go, Smart, tc.selector)
			var pe *PatternError
			if !errors.As(err, &pe) || !errors.Is(err, ErrBadPattern) {
				t.Fatalf("err = %v, want a *PatternError wrapping ErrBadPattern", err)
			}
			for _, w := range tc.wantIn {
				if !bytes.Contains([]byte(err.Error()), []byte(w)) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
}
