package place

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPure checks what doc.go promises of the core's code: the standard library only, and of
// it nothing that reaches the file system, the clock, the network or other goroutines.
func TestPure(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := map[string]bool{"os": true, "io/fs": true, "io/ioutil": true, "time": true, "sync": true,
		"sync/atomic": true, "net": true, "os/exec": true, "syscall": true, "unsafe": true, "math/rand": true, "math/rand/v2": true}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") || banned[p] {
				t.Errorf("%s imports %q", f, p)
			}
			checked++
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if _, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s starts a goroutine", f)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no import checked: the file list is broken")
	}
}
