//go:build cgo

package astsearch

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"pgregory.net/rapid"
)

// stringCases: string literal patterns. The ranges are what ast-grep 0.51.1 reports
// (checked against it when it is present): where the grammar gives the content a node (Go's
// interpreted_string_literal, CSS's string_value) the content must be equal, blanks and
// their place included, and a metavariable can stand for it; where the grammar hides the
// content (Python, Lua, YAML, Scala), an internal node is compared by its children alone and
// strings differing only in hidden content match. (With smacker's older Go and CSS grammars,
// which had no content node, the matcher had to compare the text no child covered; the
// grammars ast-grep uses make that unnecessary.)
var stringCases = []struct {
	name     string
	lang     Lang
	pat, src string
	want     string
}{
	{name: "go_inner_blank_counts", lang: Go, pat: `g("Hello")`,
		src: "package p\nfunc f() { g(\"Hi\"); g(\"Hello\"); g(\"Hel lo\") }\n", want: "30-40"},
	{name: "go_blank_string_is_not_empty", lang: Go, pat: `g(" ")`,
		src: "package p\nfunc f() { g(\" \"); g(\"\"); g(\"  \") }\n", want: "21-27"},
	{name: "go_blanks_around_escape_count", lang: Go, pat: `g("a\tb")`,
		src: "package p\nfunc f() { g(\"a\\tb\"); g(\"a \\t b\"); g(\" a\\tb\") }\n", want: "21-30"},
	{name: "go_content_place_around_escape", lang: Go, pat: `g("a\tb")`,
		src: "package p\nfunc f() { g(\"ab\\t\"); g(\"\\tab\"); g(\"a\\tb\") }\n", want: "43-52"},
	{name: "go_import_path", lang: Go, pat: `import "fmt"`,
		src: "package p\nimport \"fmt\"\nimport \"fm t\"\n", want: "10-22"},
	{name: "css_string_inner_blank", lang: CSS, pat: `a { content: "x y"; }`,
		src: "a { content: \"xy\"; }\na { content: \"x y\"; }\n", want: "21-42"},
	{name: "css_string_blank_before_escape", lang: CSS, pat: `a { content: "a\n"; }`,
		src: "a { content: \"b\\n\"; }\na { content: \"a\\n\"; }\na { content: \"a \\n\"; }\n", want: "22-43"},
	{name: "python_hidden_content_ignored", lang: Python, pat: `print("a\n")`,
		src: "print(\"b\\n\")\nprint(\"a\\n\")\n", want: "0-12,13-25"},
	{name: "lua_hidden_content_ignored", lang: Lua, pat: `f("a\n")`,
		src: "f(\"b\\n\")\nf(\"a\\n\")\nf(\"a \\n\")\n", want: "0-8,9-17,18-27"},
	{name: "yaml_hidden_content_ignored", lang: YAML, pat: `k: "a\n"`,
		src: "k: \"b\\n\"\n---\nk: \"a\\n\"\n---\nk: \"a \\n\"\n", want: "0-8,13-21,26-35"},
	{name: "go_metavariable_as_content", lang: Go, pat: `g(x, "$NAME")`,
		src: "package p\nfunc f() { g(x, \"hello\"); g(x, \"\"); g(y, \"a\") }\n", want: "21-34"},
	{name: "css_metavariable_as_content", lang: CSS, pat: `a { content: "$C"; }`,
		src: "a { content: \"x\"; }\nb { content: \"y\"; }\n", want: "0-19"},
	{name: "scala_hidden_content_ignored", lang: Scala, pat: `f("a\n")`,
		src: "object O { f(\"a\\n\"); f(\"b\\n\"); f(\"a\\t\") }\n", want: "11-19,21-29"},
}

func byteRanges(ms []Match) string {
	var s []string
	for _, m := range ms {
		s = append(s, fmt.Sprintf("%d-%d", m.Range.ByteOffset.Start, m.Range.ByteOffset.End))
	}
	return strings.Join(s, ",")
}

// TestStringContent: the native backend finds ast-grep's matches for string patterns, with
// and without the prefilter.
func TestStringContent(t *testing.T) {
	for _, tc := range stringCases {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"x." + tc.lang.Extensions()[0]: {Data: []byte(tc.src), Mode: 0o644}}
			for _, off := range []bool{false, true} {
				r, err := Search(context.Background(), fsys, Request{Pattern: tc.pat, Lang: tc.lang, NoPrefilter: off})
				if err != nil {
					t.Fatal(err)
				}
				if got := byteRanges(r.Matches); got != tc.want {
					t.Errorf("%s %q (prefilter off: %v): matches %s, ast-grep 0.51.1 finds %s", tc.lang, tc.pat, off, got, tc.want)
				}
			}
		})
	}
}

// TestStringContentOracle checks the table against ast-grep itself.
func TestStringContentOracle(t *testing.T) {
	exe := astGrep(t)
	for _, tc := range stringCases {
		ms, err := CLI(exe).Find(context.Background(), Query{Pattern: tc.pat, Lang: tc.lang}, []Source{{Path: "x", Data: []byte(tc.src)}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := byteRanges(ms[0]); got != tc.want {
			t.Errorf("%s: ast-grep finds %s, the table says %s", tc.name, got, tc.want)
		}
	}
}

// TestStringProperty: with ast-grep's grammars a Go or CSS string's content is
// leaves (content and escape sequences) compared exactly, so a string pattern matches a
// string exactly when their texts are equal, blanks and escapes included.
func TestStringProperty(t *testing.T) {
	pieces := []string{"a", "b", " ", "  ", `\t`, `\n`, `\\`, "x y"}
	matched := 0
	rapid.Check(t, func(t *rapid.T) {
		draw := func(label string) string {
			n := rapid.IntRange(0, 4).Draw(t, label+" pieces")
			var b strings.Builder
			for range n {
				b.WriteString(rapid.SampledFrom(pieces).Draw(t, label))
			}
			return b.String()
		}
		a, b := draw("pattern"), draw("source")
		if rapid.Bool().Draw(t, "same") {
			b = a
		}
		for _, tc := range []struct {
			lang     Lang
			pat, src string
		}{
			{Go, `g(x, "` + a + `")`, "package p\nfunc f() { g(x, \"" + b + "\") }\n"},
			{CSS, `a { content: "` + a + `"; }`, "a { content: \"" + b + "\"; }\n"},
		} {
			p, err := Compile(tc.pat, tc.lang)
			if err != nil {
				t.Fatalf("%s %q: %v", tc.lang, tc.pat, err)
			}
			ms, err := p.FindAll([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(ms) == 1; got != (a == b) {
				t.Fatalf("%s: pattern %q on %q: matched %v, want %v", tc.lang, tc.pat, tc.src, got, a == b)
			}
			if len(ms) == 1 {
				matched++
			}
		}
	})
	t.Logf("%d matches", matched)
}
