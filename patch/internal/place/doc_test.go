package place

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestPure checks what doc.go promises of the core's code: the standard library only, and of
// it nothing that reaches the file system, the clock, the network or other goroutines.
func TestPure(t *testing.T) {
	pkg, err := build.ImportDir(".", build.ImportComment)
	if err != nil || len(pkg.GoFiles) == 0 || len(pkg.Imports) == 0 {
		t.Fatalf("reading the package: %v (%d files, %d imports): the check is broken", err, len(pkg.GoFiles), len(pkg.Imports))
	}
	banned := map[string]bool{"os": true, "io/fs": true, "io/ioutil": true, "time": true, "sync": true,
		"sync/atomic": true, "net": true, "os/exec": true, "syscall": true, "unsafe": true, "math/rand": true, "math/rand/v2": true}
	for _, p := range pkg.Imports {
		if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") || banned[p] {
			t.Errorf("the core imports %q", p)
		}
	}
	fset := token.NewFileSet()
	for _, name := range pkg.GoFiles {
		file, perr := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if perr != nil {
			t.Fatal(perr)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if _, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s starts a goroutine at %s", name, fset.Position(n.Pos()))
			}
			return true
		})
	}
}
