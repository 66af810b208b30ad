package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/astsearch"
)

func TestSearchableLangs(t *testing.T) {
	found := func(string) (string, error) { return "/usr/bin/x", nil }
	missing := func(string) (string, error) { return "", fs.ErrNotExist }
	var asked string
	record := func(exe string) (string, error) { asked = exe; return "", fs.ErrNotExist }
	goPy := []astsearch.Lang{astsearch.Go, astsearch.Python}
	tests := []struct {
		name   string
		native []astsearch.Lang
		exe    string
		look   func(string) (string, error)
		want   []astsearch.Lang
	}{
		{"native_only", goPy, "", missing, goPy},
		{"native_and_cli", goPy, "", found, astsearch.Langs()},
		{"cli_only", nil, "", found, astsearch.Langs()},
		{"neither", nil, "", missing, nil},
		{"neither_named", nil, "/opt/ast-grep", missing, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := searchableLangs(tc.native, tc.exe, tc.look); !slices.Equal(got, tc.want) {
				t.Fatalf("languages = %v, want %v", got, tc.want)
			}
		})
	}
	searchableLangs(nil, "", record)
	if asked != "ast-grep" {
		t.Errorf("looked up %q, want ast-grep (never sg)", asked)
	}
	searchableLangs(nil, "/opt/sg2", record)
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
