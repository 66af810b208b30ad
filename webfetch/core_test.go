package webfetch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// sourceFiles parses the package's non-test files (and its internal packages').
func sourceFiles(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.go", "internal/*/*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	var out []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return fset, out
}

// Issue 23: session.go started a goroutine that outlived the call and slept between
// deletion attempts. The core starts no goroutine and never sleeps or sets its own timers:
// waiting is the context's, time is the injected clock's.
func TestDeterministicCore(t *testing.T) {
	fset, files := sourceFiles(t)
	forbidden := map[string]bool{"Sleep": true, "After": true, "AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: go statement", fset.Position(x.Pos()))
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "time" && forbidden[x.Sel.Name] {
					t.Errorf("%s: time.%s", fset.Position(x.Pos()), x.Sel.Name)
				}
			}
			return true
		})
	}
}

// Issue 23: the core held host-adapter pieces: the tool description and schema, argument
// parsing, the model-chain helpers and the session summarizer. They belong to the adapter
// (examples/tools); the package keeps the Summarizer seam.
func TestCoreHasNoHostAdapterPieces(t *testing.T) {
	adapter := map[string]bool{"Description": true, "Schema": true, "ParseArgs": true, "ModelRef": true, "ParseModelRef": true,
		"ModelFromSetting": true, "ResolveModelChain": true, "Candidate": true, "Chain": true, "SessionHost": true,
		"NewSessionSummarizer": true, "SessionOption": true, "WithSessionTitle": true, "WithSessionLogger": true, "WithSessionRetryDelay": true}
	fset, files := sourceFiles(t)
	for _, f := range files {
		if f.Name.Name != "webfetch" {
			continue
		}
		for _, d := range f.Decls {
			var names []*ast.Ident
			switch x := d.(type) {
			case *ast.FuncDecl:
				if x.Recv == nil {
					names = append(names, x.Name)
				}
			case *ast.GenDecl:
				for _, s := range x.Specs {
					switch sp := s.(type) {
					case *ast.TypeSpec:
						names = append(names, sp.Name)
					case *ast.ValueSpec:
						names = append(names, sp.Names...)
					}
				}
			}
			for _, id := range names {
				if adapter[id.Name] {
					t.Errorf("%s: %s belongs to the host adapter", fset.Position(id.Pos()), id.Name)
				}
			}
		}
	}
}

// E41: Fetch never opens a file for reading and nothing resolves configuration at call time.
// Checked by inspecting the package source: no read API of os or io/ioutil is referenced.
func TestEdgeNoFileReads(t *testing.T) {
	t.Run("E41_no_file_reads_in_package", func(t *testing.T) {
		files, _ := filepath.Glob("*.go")
		forbidden := map[string]bool{"Open": true, "ReadFile": true, "ReadDir": true, "DirFS": true, "Getenv": true, "LookupEnv": true, "Environ": true}
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "os" || id.Name == "ioutil") && forbidden[sel.Sel.Name] {
					t.Errorf("%s: %s.%s", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
				}
				return true
			})
		}
	})
}
