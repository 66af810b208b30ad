package patch_test

import (
	"fmt"

	"github.com/harnesskit/harnesskit/patch"
)

// ExampleApplyEdits applies two edits in order; the second one's old text lost the file's
// indentation and is still found, at one place, with the ladder.
func ExampleApplyEdits() {
	src := "func f() {\n\tx := 1\n\treturn x\n}\n"
	out, reps, err := patch.ApplyEdits("f.go", []byte(src), []patch.Edit{
		{Old: "x := 1", New: "x := 2"},
		{Old: "    return x\n}", New: "    return x + 1\n}"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	for _, r := range reps {
		fmt.Println(r.Chunk, r.Strategy, r.Start)
	}
	_, _, err = patch.ApplyEdits("f.go", []byte(src), []patch.Edit{{Old: "\tx := 1\n\treturn y", New: "\treturn z"}})
	fmt.Println(err)
	// Output:
	// func f() {
	// 	x := 2
	//     return x + 1
	// }
	// 1 exact 2
	// 2 trim 3
	// edit verification failed: old_string is not in f.go (compared as written, then line by line ignoring whitespace at the ends and typographic punctuation).
	// The closest place starts at line 2; first difference:
	//   old_string line 2: 	return y
	//   file line 3: 	return x
	// Read the file again and copy old_string exactly as it is now (without the read tool's line numbers).
}
