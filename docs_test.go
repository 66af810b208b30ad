package harnesskit_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
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

// faces bounds what a newcomer must hold to use a package: its exported types and the length of
// its `go doc -all` page. A row fails when the package grows past either bound; lower a bound
// when the face shrinks, never raise it without a reason in the commit.
var faces = []struct {
	pkg           string
	maxTypes      int
	maxGoDocLines int
}{
	{pkg: "taskboard", maxTypes: 35, maxGoDocLines: 650},
	{pkg: "wfs", maxTypes: 20, maxGoDocLines: 600},
	{pkg: "patch", maxTypes: 25, maxGoDocLines: 1130},
}

// exportedTypes returns the exported type names declared by the non-test Go files of dir (the
// package itself, not its sub-packages).
func exportedTypes(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				return false // a type declared inside a function is not part of the face
			case *ast.TypeSpec:
				if n.Name.IsExported() {
					names = append(names, n.Name.Name)
				}
			}
			return true
		})
	}
	return names
}

// TestFaces checks each row of faces: the exported types counted in the source, and the lines
// of `go doc -all` (skipped where the go command is missing, as under Wine).
func TestFaces(t *testing.T) {
	gobin, lookErr := exec.LookPath("go")
	for _, f := range faces {
		t.Run(f.pkg, func(t *testing.T) {
			types := exportedTypes(t, f.pkg)
			if len(types) == 0 {
				t.Fatalf("no exported type found in %s: the count is broken", f.pkg)
			}
			if len(types) > f.maxTypes {
				t.Errorf("%s exports %d types, more than %d: %s", f.pkg, len(types), f.maxTypes, strings.Join(types, " "))
			}
			if lookErr != nil {
				t.Skipf("go command not found (%v): go doc line count not checked", lookErr)
			}
			out, err := exec.Command(gobin, "doc", "-all", "./"+f.pkg).Output()
			if err != nil {
				t.Fatalf("go doc -all ./%s: %v", f.pkg, err)
			}
			lines := bytes.Count(out, []byte("\n"))
			if lines > f.maxGoDocLines {
				t.Errorf("go doc -all ./%s is %d lines, more than %d", f.pkg, lines, f.maxGoDocLines)
			}
			t.Logf("%s: %d exported types, go doc -all %d lines", f.pkg, len(types), lines)
		})
	}
}
