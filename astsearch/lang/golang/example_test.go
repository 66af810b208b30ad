//go:build cgo

package golang_test

import (
	"context"
	"errors"
	"fmt"
	"testing/fstest"

	"github.com/harnesskit/harnesskit/astsearch"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/golang" // the only grammar this program compiles
)

// A host that searches Go imports this package; a Python search then fails with the import
// to add. (The native backend is named here so that an ast-grep executable on PATH, which
// Default would fall back on, does not change the output.)
func Example() {
	native, _ := astsearch.Native()
	fsys := fstest.MapFS{"main.go": {Data: []byte("package main\n\nfunc main() { println(1) }\n")}}
	res, err := astsearch.Search(context.Background(), fsys, astsearch.Request{Pattern: "println($A)", Lang: astsearch.Go, Backend: native})
	fmt.Println(len(res.Matches), err)
	fmt.Println(astsearch.NativeLangs())

	_, err = astsearch.Search(context.Background(), fsys, astsearch.Request{Pattern: "print($A)", Lang: astsearch.Python, Backend: native})
	var nl *astsearch.LangNotLinkedError
	fmt.Println(errors.As(err, &nl), nl.Lang.ImportPath())
	// Output:
	// 1 <nil>
	// [go]
	// true github.com/harnesskit/harnesskit/astsearch/lang/python
}
