package astsearch

import (
	"context"
	"math"
	"os"
	"testing"
)

// replaceRangeCase is a rewrite whose replaced range ast-grep 0.51.1 was observed to give
// (replacementOffsets of `ast-grep run -p P -r X --json`). In every case it is the whole
// matched node: `ast-grep run` wraps the pattern in a rule, which does not pass on the
// pattern's own end of match, so the rewrite replaces the node's full range, trailing `;`,
// unnamed tokens, extra declarators and else/finally clauses the pattern does not mention
// included. A comment after the node is not part of it and stays.
type replaceRangeCase struct {
	name       string
	lang       Lang
	pattern    string
	source     string
	start, end int
}

var replaceRangeCases = []replaceRangeCase{
	{name: "js_if_trailing_else_clause", lang: JavaScript, pattern: "if ($C) $S", source: "if (a) f(); else g();\n", start: 0, end: 21},
	{name: "js_if_else_mentioned", lang: JavaScript, pattern: "if ($C) $S; else $E", source: "if (a) f(); else g();\n", start: 0, end: 21},
	{name: "js_if_block_trailing_else_clause", lang: JavaScript, pattern: "if ($C) { $$$B }", source: "if (a) { f(); }\nelse { g(); }\n", start: 0, end: 29},
	{name: "js_try_trailing_finally_clause", lang: JavaScript, pattern: "try { $$$A } catch (e) {}", source: "try { f() } catch (e) {} finally { g() }\n", start: 0, end: 40},
	{name: "python_if_trailing_else_clause", lang: Python, pattern: "if $C: $$$B", source: "if a:\n    f()\nelse:\n    g()\n", start: 0, end: 27},
	{name: "js_return_trailing_comment_outside", lang: JavaScript, pattern: "return $A", source: "function f() { return 1 // c\n}\n", start: 15, end: 23},
	{name: "js_if_comment_then_else_clause", lang: JavaScript, pattern: "if ($C) { $$$B }", source: "if (a) { f(); } /* c */ else { g(); }\n", start: 0, end: 37},
	{name: "E30_csharp_declaration_semicolon_stays", lang: CSharp, pattern: "int $A = 0", source: "class K { void M() { int a = 0; } }\n", start: 21, end: 30},
	// rw-13: the node of `const a = $V` is the lexical_declaration, `;` included.
	{name: "E31_js_call_statement_semicolon_stays", lang: JavaScript, pattern: "console.log($A)", source: "console.log(1);\n", start: 0, end: 14},
	{name: "js_const_trailing_semicolon", lang: JavaScript, pattern: "const a = $V", source: "const a = 5 + 3;\n", start: 0, end: 16},
	{name: "js_const_no_semicolon", lang: JavaScript, pattern: "const a = $V", source: "const a = 5 + 3\n", start: 0, end: 15},
	{name: "js_const_semicolon_in_pattern", lang: JavaScript, pattern: "const a = $V;", source: "const a = 5 + 3;\n", start: 0, end: 16},
	{name: "ts_const_trailing_semicolon", lang: TypeScript, pattern: "const a = $V", source: "const a = 5 + 3;\n", start: 0, end: 16},
	{name: "E30_tsx_const_includes_semicolon", lang: TSX, pattern: "const a = $V", source: "const a = 5 + 3;\n", start: 0, end: 16},
	{name: "js_let_second_declarator", lang: JavaScript, pattern: "let $A = $B", source: "let a = 1, b = 2;\n", start: 0, end: 17},
	{name: "js_do_while_semicolon", lang: JavaScript, pattern: "do { $$$B } while ($C)", source: "do { f(); } while (x);\n", start: 0, end: 22},
	{name: "js_last_node_metavariable", lang: JavaScript, pattern: "$A + $B", source: "1 + 2;\n", start: 0, end: 5},
	{name: "js_trailing_ellipsis_args", lang: JavaScript, pattern: "f($A, $$$)", source: "f(1, 2, 3);\n", start: 0, end: 10},
	{name: "js_trailing_ellipsis_body", lang: JavaScript, pattern: "function $F() { $$$ }", source: "function g() { a(); b(); }\n", start: 0, end: 26},
	{name: "rust_let_trailing_semicolon", lang: Rust, pattern: "let $A = $B", source: "fn f(){ let x = 1; }\n", start: 8, end: 18},
	{name: "rust_trailing_ellipsis", lang: Rust, pattern: "x.f($$$)", source: "fn g(){ x.f(1, 2); }\n", start: 8, end: 17},
	{name: "java_return_trailing_semicolon", lang: Java, pattern: "return $A", source: "class A { int f() { return 1; } }\n", start: 20, end: 29},
	{name: "java_second_declarator", lang: Java, pattern: "int $A = $B", source: "class A { void f() { int a = 1, b = 2; } }\n", start: 21, end: 38},
	{name: "c_return_trailing_semicolon", lang: C, pattern: "return $A", source: "int f() { return 1; }\n", start: 10, end: 19},
	{name: "c_return_semicolon_in_pattern", lang: C, pattern: "return $A;", source: "int f() { return 1; }\n", start: 10, end: 19},
	{name: "cpp_return_trailing_semicolon", lang: Cpp, pattern: "return $A", source: "int f() { return 1; }\n", start: 10, end: 19},
	{name: "go_return_no_semicolon", lang: Go, pattern: "return $A", source: "package p\nfunc g() int { return 1 }\n", start: 25, end: 33},
	{name: "go_short_var_semicolon_outside", lang: Go, pattern: "x := $A", source: "package p\nfunc g() { x := 1; y := 2 }\n", start: 21, end: 27},
	{name: "python_assignment_semicolon_outside", lang: Python, pattern: "x = $A", source: "x = 1; y = 2\n", start: 0, end: 5},
	{name: "python_empty_trailing_ellipsis", lang: Python, pattern: "f($$$A)", source: "f()\n", start: 0, end: 3},
	{name: "python_return_semicolon_outside", lang: Python, pattern: "return $A", source: "def f():\n    return 1;\n", start: 13, end: 21},
	{name: "kotlin_declaration_semicolon_outside", lang: Kotlin, pattern: "val $A = $B", source: "val a = 1;\n", start: 0, end: 9},
	{name: "kotlin_return_semicolon_outside", lang: Kotlin, pattern: "return $A", source: "fun f(): Int { return 1; }\n", start: 15, end: 23},
	{name: "swift_declaration_semicolon_outside", lang: Swift, pattern: "let $A = $B", source: "let a = 1;\n", start: 0, end: 9},
	{name: "ruby_return_semicolon_outside", lang: Ruby, pattern: "return $A", source: "def f\n  return 1;\nend\n", start: 8, end: 16},
}

func checkReplaceRange(t *testing.T, b Backend, c replaceRangeCase) {
	t.Helper()
	tmpl := "X"
	out, err := b.Find(context.Background(), Query{Pattern: c.pattern, Lang: c.lang, Rewrite: &tmpl}, []Source{{Path: "x", Data: []byte(c.source)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out[0]) == 0 || out[0][0].ReplacementOffsets == nil {
		t.Fatalf("%s: no match with a replacement", b.Name())
	}
	if r := out[0][0].ReplacementOffsets; r.Start != c.start || r.End != c.end {
		t.Errorf("%s: replaced %d-%d %q, want %d-%d %q", b.Name(), r.Start, r.End, c.source[r.Start:r.End], c.start, c.end, c.source[c.start:c.end])
	}
}

// TestReplaceRange checks the replaced range of the first match on the committed trees (no
// cgo needed).
func TestReplaceRange(t *testing.T) {
	for _, c := range replaceRangeCases {
		t.Run(c.name, func(t *testing.T) { checkReplaceRange(t, fixtureBackend, c) })
	}
}

// TestReplaceRangeEqualsMatch checks, on the committed trees, that the replaced range is
// the match's range: the rule the table was observed to follow.
func TestReplaceRangeEqualsMatch(t *testing.T) {
	for _, c := range replaceRangeCases {
		tmpl := "X"
		out, err := fixtureBackend.Find(context.Background(), Query{Pattern: c.pattern, Lang: c.lang, Rewrite: &tmpl}, []Source{{Path: "x", Data: []byte(c.source)}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out[0] {
			if r := m.ReplacementOffsets; r == nil || *r != m.Range.ByteOffset {
				t.Errorf("%s: replaced %v, matched %v", c.name, r, m.Range.ByteOffset)
			}
		}
	}
}

// TestReplaceRangeOracle checks the table against ast-grep 0.51.1 itself.
func TestReplaceRangeOracle(t *testing.T) {
	cli := CLI(astGrep(t))
	for _, c := range replaceRangeCases {
		t.Run(c.name, func(t *testing.T) { checkReplaceRange(t, cli, c) })
	}
}

// TestReplaceRangeOracleCorpora checks the rule behind the table on real trees: for every
// pattern of the differential corpora, each replacementOffsets ast-grep reports equals its
// match's range, which is the range the native backend replaces. Skipped without ast-grep;
// each corpus is skipped when absent.
func TestReplaceRangeOracleCorpora(t *testing.T) {
	cli := CLI(astGrep(t))
	for _, c := range corpora() {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.dir); err != nil {
				t.Skipf("%s not on this machine", c.dir)
			}
			n := 0
			for _, p := range c.patterns {
				req := Request{Pattern: p, Lang: c.lang, Paths: c.quick, Dir: c.dir, Backend: cli, MaxMatches: math.MaxInt, MaxOutputBytes: math.MaxInt}
				_, outs, err := run(context.Background(), os.DirFS(c.dir), &req, &rewriteSpec{template: "X"})
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				for _, o := range outs {
					for _, m := range o.matches {
						n++
						if r := m.ReplacementOffsets; r == nil || *r != m.Range.ByteOffset {
							t.Errorf("%s in %s: ast-grep replaces %v of the match %v %q", p, o.path, r, m.Range.ByteOffset, m.Text)
						}
					}
				}
			}
			t.Logf("%d replaced ranges checked", n)
		})
	}
}
