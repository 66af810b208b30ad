package patch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnesskit/harnesskit/patch"
)

// The whole happy path of a host: open an Applier on a workspace, apply the model's patch,
// show the summary. Copy it as is.
func Example() {
	dir, err := os.MkdirTemp("", "workspace")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		panic(err)
	}

	a, err := patch.Open(dir)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	res, err := a.Apply(context.Background(), `*** Begin Patch
*** Update File: hello.txt
@@
-hello
+hello, world
*** Add File: notes/todo.txt
+write more tests
*** End Patch`)
	if err != nil {
		fmt.Println(err) // a message the model can act on; nothing was written
		return
	}
	fmt.Print(res.Summary)
	b, _ := os.ReadFile(filepath.Join(dir, "hello.txt"))
	fmt.Printf("%q\n", b)
	// Output:
	// Success. Updated the following files:
	// A notes/todo.txt
	// M hello.txt
	// "hello, world\n"
}
