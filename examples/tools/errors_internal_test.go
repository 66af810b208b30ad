package tools

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEverySentinelIsSorted reads the exported Err… variables of the packages the tools
// call and of this package, and checks that each one is sorted on purpose: listed as a tool
// error or as a host error, never both, never neither.
func TestEverySentinelIsSorted(t *testing.T) {
	sorted := map[error]string{}
	for _, e := range toolSentinels() {
		sorted[e] = "tool"
	}
	for _, e := range hostSentinels() {
		if sorted[e] != "" {
			t.Errorf("%v is listed as both a tool and a host error", e)
		}
		sorted[e] = "host"
	}
	names := map[string]bool{}
	for _, e := range append(toolSentinels(), hostSentinels()...) {
		names[e.Error()] = true
	}
	for _, dir := range []string{"../../patch", "../../pathguard", "../../loopguard", "../../webfetch", "../../astsearch", "../../wfs", "."} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if !n.IsExported() || !strings.HasPrefix(n.Name, "Err") || i >= len(vs.Values) {
							continue
						}
						msg := sentinelMessage(vs.Values[i])
						if msg != "" && !names[msg] {
							t.Errorf("%s.%s (%q) is neither a tool nor a host error: add it to toolSentinels or hostSentinels", filepath.Base(dir), n.Name, msg)
						}
					}
				}
			}
		}
	}
}

// sentinelMessage returns the text of errors.New("…"), or "".
func sentinelMessage(e ast.Expr) string {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return ""
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok {
		return ""
	}
	s := lit.Value
	if len(s) >= 2 {
		s = s[1 : len(s)-1]
	}
	return strings.ReplaceAll(s, `\"`, `"`)
}

func TestChannels(t *testing.T) {
	for _, e := range toolSentinels() {
		if !isToolError(errors.Join(errors.New("ctx"), e)) {
			t.Errorf("%v: not a tool error", e)
		}
	}
	for _, e := range hostSentinels() {
		if isToolError(e) {
			t.Errorf("%v: not a host error", e)
		}
	}
}
