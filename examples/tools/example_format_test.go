package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/format"
)

// Formatting what apply_patch writes: the project's formatter (here gofmt, which runs in
// process) tidies the file before the commit, and the result shows the model the change.
func ExampleWithFormatter() {
	dir, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(dir)

	f, err := format.New(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	box, err := tools.New(dir, tools.WithFormatter(f))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer box.Close()

	patchText := "*** Begin Patch\n*** Add File: add.go\n+package add\n+func Add(a,b int)int{\n+return a+b\n+}\n*** End Patch\n"
	args, _ := json.Marshal(map[string]string{"patchText": patchText})
	out, err := box.Tool("apply_patch").Call(context.Background(), args)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out)
	written, _ := os.ReadFile(filepath.Join(dir, "add.go"))
	fmt.Print(string(written))
	// Output:
	// Success. Updated the following files:
	// A add.go
	//
	// add.go: formatted by gofmt, 5 lines changed:
	// --- a/add.go
	// +++ b/add.go
	// @@ -1,4 +1,5 @@
	//  package add
	// -func Add(a,b int)int{
	// -return a+b
	// +
	// +func Add(a, b int) int {
	// +	return a + b
	//  }
	// package add
	//
	// func Add(a, b int) int {
	// 	return a + b
	// }
}
