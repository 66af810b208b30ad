package format_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnesskit/harnesskit/format"
)

// Example formats the bytes an edit is about to write (the seam patch and astsearch call),
// then a file on disk, and prints what the model would be told.
func Example() {
	root, err := os.MkdirTemp("", "format-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)

	f, err := format.New(root) // automatic mode: the project's own formatters, gofmt in process
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// The seam: format before writing. No formatter applies to a text file.
	out, name, err := f.Format(ctx, "notes.txt", []byte("as  written\n"))
	fmt.Printf("%q %q %v\n", out, name, err)

	// A Go file on disk, written untidily.
	path := filepath.Join(root, "main.go")
	os.WriteFile(path, []byte("package main\nfunc main( ) {\nprintln(\"hi\")\n}\n"), 0o644)
	res := f.File(ctx, path)
	fmt.Print(res.Report())
	now, _ := os.ReadFile(path)
	fmt.Print(string(now))

	// A syntax error leaves the file as written and says why.
	os.WriteFile(filepath.Join(root, "broken.go"), []byte("package main\nfunc main() {\n"), 0o644)
	res = f.File(ctx, "broken.go") // relative to the root
	fmt.Println(res.Report())
	// Output:
	// "as  written\n" "" <nil>
	// formatted by gofmt, 5 lines changed (+3 -2):
	// --- a/main.go
	// +++ b/main.go
	// @@ -1,4 +1,5 @@
	//  package main
	// -func main( ) {
	// -println("hi")
	// +
	// +func main() {
	// +	println("hi")
	//  }
	// package main
	//
	// func main() {
	// 	println("hi")
	// }
	// not formatted, left as written: format broken.go: gofmt: the Go source does not parse: 2:15: expected '}', found 'EOF'; fix the syntax error
}
