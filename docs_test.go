package harnesskit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docRef matches what a user of the module cannot follow: a section of a behaviour document
// they do not have, the design notes, or a rule number of such a document.
var docRef = regexp.MustCompile(`spec §|§ ?[0-9]|DESIGN(\.md| §)|\bR[0-9]+\b`)

// TestDocsStandAlone fails when a non-test Go file of either module, or the README, points at a
// document outside the repository. Test files may keep their edge-case ids (E<n>).
func TestDocsStandAlone(t *testing.T) {
	checked := 0
	check := func(p string) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(data), "\n") {
			if m := docRef.FindString(line); m != "" {
				t.Errorf("%s:%d mentions %q, which a user cannot look up; say the rule in the project's own words: %s", p, i+1, m, strings.TrimSpace(line))
			}
		}
	}
	check("README.md")
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			check(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files; the walk is broken", checked)
	}
}

// TestEveryPackageHasExample fails when a public package of the module lacks a package-level
// func Example() with an output comment: the example pkg.go.dev shows first, run by go test.
func TestEveryPackageHasExample(t *testing.T) {
	for pkg := range allowed {
		if pkg == "." {
			continue
		}
		if _, err := os.Stat(pkg); err != nil {
			t.Errorf("package %s is in the dependency table but has no directory", pkg)
			continue
		}
		files, err := filepath.Glob(filepath.Join(pkg, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range files {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range file.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Name.Name != "Example" || fn.Recv != nil {
					continue
				}
				for _, cg := range file.Comments {
					if cg.Pos() > fn.Body.Lbrace && cg.End() < fn.Body.Rbrace && strings.HasPrefix(strings.TrimSpace(cg.Text()), "Output:") {
						found = true
					}
				}
			}
		}
		if !found {
			t.Errorf("package %s has no func Example() with an // Output: comment", pkg)
		}
	}
}
