//go:build cgo

package astsearch_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/harnesskit/harnesskit/astsearch"
)

// Search a project for a pattern, look at the dry-run diff of a rewrite, then apply it.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "astsearch-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := "package main\nimport \"fmt\"\nfunc main() {\n\tfmt.Println(\"hello\", 42)\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		log.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer root.Close()

	req := astsearch.Request{Pattern: "fmt.Println($A, $$$REST)", Lang: astsearch.Go}
	res, err := astsearch.Search(ctx, root.FS(), req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(astsearch.FormatSearch(res, 0))

	plan, err := astsearch.Rewrite(ctx, root.FS(), req, "fmt.Printf(\"%v %v\\n\", $A, $$$REST)")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(plan.Diff()))

	w, err := astsearch.NewOSFS(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	applied, err := plan.Apply(ctx, w, dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(astsearch.FormatRewrite(plan, applied))
	// Output:
	// main.go:
	//   4: fmt.Println("hello", 42)
	//
	// Found 1 matches in 1 files
	// --- a/main.go
	// +++ b/main.go
	// @@ -1,5 +1,5 @@
	//  package main
	//  import "fmt"
	//  func main() {
	// -	fmt.Println("hello", 42)
	// +	fmt.Printf("%v %v\n", "hello", 42)
	//  }
	// main.go:
	//   4: "fmt.Println(\"hello\", 42)" → "fmt.Printf(\"%v %v\\n\", \"hello\", 42)"
	//
	// [APPLIED] 1 replacements in 1 files
}

// Compile a pattern once and match it against source in memory.
func ExampleCompile() {
	p, err := astsearch.Compile("if err != nil { return $$$ }", astsearch.Go)
	if err != nil {
		log.Fatal(err)
	}
	ms, err := p.FindAll([]byte("package p\n\nfunc f() error {\n\tif err != nil { return err }\n\treturn nil\n}\n"))
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range ms {
		fmt.Printf("line %d: %s\n", m.Range.Start.Line+1, m.Text)
	}
	lit, _ := p.Literal()
	fmt.Println("prefilter literal:", lit)
	// Output:
	// line 4: if err != nil { return err }
	// prefilter literal: err
}
