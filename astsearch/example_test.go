//go:build cgo

package astsearch_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/wfs"
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

	w, err := wfs.NewOSFS(dir)
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
	// Found 1 match in 1 file
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
	// [APPLIED] 1 replacement in 1 file
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

// Match a node that is not complete code on its own: parse a larger context and select the
// node by its kind. In Go, `fmt.Println($A)` alone parses as a type conversion; inside a
// function body it is a call.
func ExampleWithSelector() {
	p, err := astsearch.Compile("func t() { fmt.Println($A) }", astsearch.Go, astsearch.WithSelector("call_expression"))
	if err != nil {
		log.Fatal(err)
	}
	ms, err := p.FindAll([]byte("package main\n\nfunc main() {\n\tfmt.Println(greet(\"world\"))\n}\n"))
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range ms {
		fmt.Printf("line %d: %s ($A = %s)\n", m.Range.Start.Line+1, m.Text, m.MetaVariables.Single["A"].Text)
	}
	lit, _ := p.Literal()
	fmt.Println("prefilter literal:", lit)
	// Output:
	// line 4: fmt.Println(greet("world")) ($A = greet("world"))
	// prefilter literal: Println
}

// Stream the matches of a search as the files are done, and stop at the first one: the
// workers stop too.
func ExampleStream() {
	dir, err := os.MkdirTemp("", "astsearch-stream")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for i, name := range []string{"a.go", "b.go", "c.go"} {
		src := fmt.Sprintf("package p\n\nfunc f%d() error { return fmt.Errorf(\"f%d: %%w\", err) }\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	req := astsearch.Request{Pattern: "fmt.Errorf($MSG, $$$ARGS)", Lang: astsearch.Go}
	for m, err := range astsearch.Stream(context.Background(), os.DirFS(dir), req) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.File, m.MetaVariables.Single["MSG"].Text)
		break
	}
	// Output:
	// a.go "f0: %w"
}

// Search a tree twice with one cache: the second search parses nothing; a file changed in
// between is parsed again.
func ExampleTreeCache() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "astsearch-cache")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, src := range map[string]string{
		"a.go": "package a\nfunc f(err error) bool { return err == nil }\n",
		"b.go": "package a\nfunc g(p *int) bool { return p == nil }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	cache := astsearch.NewTreeCache(astsearch.DefaultTreeCacheBytes)
	search := func() {
		res, err := astsearch.Search(ctx, os.DirFS(dir), astsearch.Request{Pattern: "$A == nil", Lang: astsearch.Go, Dir: dir, Cache: cache})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d matches, %d trees reused, %d parsed\n", res.TotalMatches, res.Stats.CacheHits, res.Stats.CacheMisses)
	}
	search()
	search()
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package a\nfunc g(p, q *int) bool { return p == nil || q == nil }\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	search()
	// Output:
	// 2 matches, 0 trees reused, 2 parsed
	// 2 matches, 2 trees reused, 0 parsed
	// 3 matches, 1 trees reused, 1 parsed
}
