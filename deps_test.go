package harnesskit_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/harnesskit/harnesskit"

// allowed lists, for each package of the module, the harnesskit packages it may import
// (DESIGN §2). Packages under internal/ may be imported by any package and import no public
// one; a package may import its own sub-packages.
var allowed = map[string][]string{
	".":         nil, // the doc-only root package
	"patch":     {"pathguard", "wfs"},
	"astsearch": {"pathguard", "wfs"},
	"pathguard": nil,
	"loopguard": nil,
	"taskboard": nil,
	"webfetch":  {"wfs"},
	"format":    {"wfs"},
	"wfs":       nil,
}

// testOnly lists edges allowed only from a package's external tests (package x_test), which
// the package itself never links: format's tests check its diffs by applying them with patch.
var testOnly = map[string][]string{
	"format": {"patch"},
}

// TestDependencyDAG reads the imports of every Go file of the root module (tests included,
// build tags ignored, so a cgo-only or Windows-only file is checked too) and fails on any edge
// between harnesskit packages that the design does not allow, and on a package the table does
// not know. It parses the files itself rather than asking "go list", so that "go test" notices
// when a file changes and does not answer from its cache.
func TestDependencyDAG(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || name == "examples" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := path.Dir(filepath.ToSlash(p))
		top, _, _ := strings.Cut(pkg, "/")
		isInternal := top == "internal"
		if _, known := allowed[top]; !known && !isInternal {
			t.Errorf("%s: package %s is not in the dependency table of DESIGN §2", p, pkg)
			return nil
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			depTop, _, _ := strings.Cut(dep, "/")
			switch {
			case depTop == top, depTop == "internal":
			case isInternal:
				t.Errorf("%s imports public package %s: internal packages import no public one", p, imp)
			case depTop == "examples":
				t.Errorf("%s imports %s: nothing imports the examples module", p, imp)
			case strings.HasSuffix(name, "_test.go") && strings.HasSuffix(f.Name.Name, "_test") && slices.Contains(testOnly[top], depTop):
			case !slices.Contains(allowed[top], depTop):
				t.Errorf("%s imports %s: not an edge of DESIGN §2", p, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("found no Go file in the module")
	}
}
