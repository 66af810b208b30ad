package patch_test

import (
	"errors"
	"fmt"

	"github.com/harnesskit/harnesskit/patch"
)

// examplePatch is the text ExampleParse reads; FuzzParse uses it as a seed.
const examplePatch = `*** Begin Patch
*** Add File: docs/hello.txt
+Hello, world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
-    print("hi")
+    print("hello")
*** Delete File: obsolete.txt
*** End Patch
`

func ExampleParse() {
	p, err := patch.Parse(examplePatch)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range p.Hunks {
		fmt.Printf("%s %s (line %d)\n", h.Kind, h.Path, h.Line)
	}
	upd := p.Hunks[1]
	fmt.Printf("move to %s, anchors %q\n", upd.MoveTo, upd.Chunks[0].Anchors)
	fmt.Printf("old %q\nnew %q\n", upd.Chunks[0].Old(), upd.Chunks[0].New())
	// Output:
	// add docs/hello.txt (line 2)
	// update src/app.py (line 4)
	// delete obsolete.txt (line 9)
	// move to src/main.py, anchors ["def main():"]
	// old ["    print(\"hi\")"]
	// new ["    print(\"hello\")"]
}

func ExampleParse_error() {
	_, err := patch.Parse("*** Begin Patch\n*** Update File: a.txt\n@@\n*** End Patch")
	var pe *patch.Error
	if errors.As(err, &pe) {
		fmt.Println(pe.Kind, pe.Line)
	}
	fmt.Println(errors.Is(err, patch.ErrInvalid))
	fmt.Println(err)
	// Output:
	// invalid 4
	// true
	// apply_patch validation failed: Invalid patch hunk on line 4: Update hunk does not contain any lines
}

func ExampleFormat() {
	// A model's patch in a heredoc, with CRLF line breaks, padded markers and an "@@" without
	// a space comes out in canonical form.
	text := "<<'EOF'\r\n *** Begin Patch\r\n*** Update File:  a.txt\r\n@@greet\r\n-hi\r\n+hello\r\n*** End Patch \r\nEOF\r\n"
	p, err := patch.Parse(text)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(patch.Format(p))
	// Output:
	// *** Begin Patch
	// *** Update File: a.txt
	// @@ greet
	// -hi
	// +hello
	// *** End Patch
}

func ExampleParseCommand() {
	argv := []string{"bash", "-lc", "cd src && apply_patch <<'PATCH'\n*** Begin Patch\n*** Delete File: old.go\n*** End Patch\nPATCH"}
	inv, err := patch.ParseCommand(argv)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("workdir %q\n%s", inv.Workdir, inv.Patch)

	_, err = patch.ParseCommand([]string{"*** Begin Patch\n*** Delete File: old.go\n*** End Patch"})
	fmt.Println(err)
	// Output:
	// workdir "src"
	// *** Begin Patch
	// *** Delete File: old.go
	// *** End Patch
	// patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]
}
