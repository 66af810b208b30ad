package all_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const tsflatPath = "github.com/harnesskit/harnesskit/astsearch/internal/tsflat"

// TestEachPackageLinksOneGrammar reads the packages beside this one: each imports nothing
// but its grammar's own Go package and tsflat, and only from a cgo file (so that without cgo
// it is a doc-only package a program can still import); tsx imports typescript; all imports
// every one of them.
func TestEachPackageLinksOneGrammar(t *testing.T) {
	dirs, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "all" {
			continue
		}
		pkgs = append(pkgs, d.Name())
		var imports, untagged []string
		files, _ := filepath.Glob(filepath.Join("..", d.Name(), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			cgoOnly := strings.HasPrefix(string(src), "//go:build cgo\n")
			for _, spec := range pf.Imports {
				p, _ := strconv.Unquote(spec.Path.Value)
				imports = append(imports, p)
				if !cgoOnly {
					untagged = append(untagged, p)
				}
			}
		}
		slices.Sort(imports)
		var grammars []string
		for _, p := range imports {
			if p != tsflatPath {
				grammars = append(grammars, p)
			}
		}
		switch {
		case d.Name() == "tsx":
			if !slices.Equal(imports, []string{"github.com/harnesskit/harnesskit/astsearch/lang/typescript"}) {
				t.Errorf("tsx imports %v, want lang/typescript alone", imports)
			}
		case len(grammars) != 1 || !slices.Contains(imports, tsflatPath) ||
			!(strings.HasPrefix(grammars[0], "github.com/tree-sitter") || strings.HasPrefix(grammars[0], "github.com/alexaandru/go-sitter-forest/")):
			t.Errorf("%s imports %v, want tsflat and one grammar package", d.Name(), imports)
		case len(untagged) > 0:
			t.Errorf("%s imports %v from a file built without cgo", d.Name(), untagged)
		}
	}
	src, err := os.ReadFile("all.go")
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parser.ParseFile(token.NewFileSet(), "all.go", src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, spec := range pf.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		got = append(got, strings.TrimPrefix(p, "github.com/harnesskit/harnesskit/astsearch/lang/"))
	}
	if !slices.Equal(got, pkgs) || len(pkgs) != 25 {
		t.Errorf("all imports %v, want the %d packages beside it %v (25)", got, len(pkgs), pkgs)
	}
}
