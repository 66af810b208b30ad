package astsearch

import (
	"context"
	"testing"
)

// replaceRangeCase is a rewrite whose replaced range ast-grep 0.51.1 was observed to give
// (replacementOffsets of `ast-grep run -r X --json`): trailing children of the match that
// the pattern does not mention are replaced too when they are named (an else or finally
// clause), and left in place when they are punctuation or comments.
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
	{name: "csharp_declaration", lang: CSharp, pattern: "int $A = 0", source: "class K { void M() { int a = 0; } }\n", start: 21, end: 30},
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

// TestReplaceRangeOracle checks the table against ast-grep 0.51.1 itself.
func TestReplaceRangeOracle(t *testing.T) {
	cli := CLI(astGrep(t))
	for _, c := range replaceRangeCases {
		t.Run(c.name, func(t *testing.T) { checkReplaceRange(t, cli, c) })
	}
}
