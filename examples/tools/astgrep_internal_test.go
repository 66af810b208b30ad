package tools

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestAstBackendAvailable(t *testing.T) {
	found := func(string) (string, error) { return "/usr/bin/x", nil }
	missing := func(string) (string, error) { return "", fs.ErrNotExist }
	var asked string
	record := func(exe string) (string, error) { asked = exe; return "", fs.ErrNotExist }
	tests := []struct {
		name      string
		nativeErr error
		exe       string
		look      func(string) (string, error)
		want      bool
	}{
		{"native", nil, "", missing, true},
		{"cli_only", errors.New("no cgo"), "", found, true},
		{"neither", errors.New("no cgo"), "", missing, false},
		{"neither_named", errors.New("no cgo"), "/opt/ast-grep", missing, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := astBackendAvailable(tc.nativeErr, tc.exe, tc.look); got != tc.want {
				t.Fatalf("available = %v, want %v", got, tc.want)
			}
		})
	}
	astBackendAvailable(errors.New("no cgo"), "", record)
	if asked != "ast-grep" {
		t.Errorf("looked up %q, want ast-grep (never sg)", asked)
	}
	astBackendAvailable(errors.New("no cgo"), "/opt/sg2", record)
	if asked != "/opt/sg2" {
		t.Errorf("looked up %q, want the executable named by the environment", asked)
	}
}

// TestAstSentinelsSorted: every exported sentinel of astsearch is sorted into the tool or
// the host channel on purpose.
func TestAstSentinelsSorted(t *testing.T) {
	names := map[string]bool{}
	for _, e := range append(toolSentinels(), hostSentinels()...) {
		names[e.Error()] = true
	}
	files, _ := filepath.Glob("../../astsearch/*.go")
	n := 0
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
				for i, id := range vs.Names {
					if !id.IsExported() || !strings.HasPrefix(id.Name, "Err") || i >= len(vs.Values) {
						continue
					}
					n++
					if msg := sentinelMessage(vs.Values[i]); msg != "" && !names[msg] {
						t.Errorf("astsearch.%s (%q) is neither a tool nor a host error", id.Name, msg)
					}
				}
			}
		}
	}
	if n != len(astToolSentinels())+len(astHostSentinels()) {
		t.Errorf("astsearch has %d sentinels, %d sorted", n, len(astToolSentinels())+len(astHostSentinels()))
	}
}
