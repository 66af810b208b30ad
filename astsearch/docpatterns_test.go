//go:build cgo

package astsearch

import "testing"

// TestDocPatternsMatch: every example pattern in the package doc, the README and the CLI
// usage finds a match in a small source.
func TestDocPatternsMatch(t *testing.T) {
	tests := []struct {
		name, pattern, src string
		lang               Lang
	}{
		{name: "readme_errorf", lang: Go, pattern: "fmt.Errorf($MSG, $$$ARGS)", src: "package p\nfunc f() error { return fmt.Errorf(\"x %d\", 1) }\n"},
		{name: "doc_python_def", lang: Python, pattern: "def $F($$$)", src: "def f(a):\n    return a\n"},
		{name: "doc_sequence_in_block", lang: JavaScript, pattern: "{ $$$A; a; b; $$$B }", src: "function f(){ x(); a; b; y() }"},
		{name: "doc_go_any_call", lang: Go, pattern: "$F($$$ARGS)", src: "package p\nfunc f() { fmt.Println() }\n"},
		{name: "doc_go_selector_call", lang: Go, pattern: "fmt.Println($A, $$$)", src: "package p\nfunc f() { fmt.Println(x, y) }\n"},
		{name: "doc_function", lang: JavaScript, pattern: "function $NAME($$$) { $$$ }", src: "function f(a) { return a }"},
		{name: "error_example", lang: JavaScript, pattern: "foo($A)", src: "foo(1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.pattern, tc.lang)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := p.FindAll([]byte(tc.src))
			if err != nil || len(ms) == 0 {
				t.Fatalf("no match (%v)", err)
			}
		})
	}
}
