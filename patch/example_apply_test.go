//go:build !windows

// The examples root their in-memory trees at POSIX paths such as /work, which Windows does
// not take as absolute (a Windows host uses C:\work); the table tests run the same
// behaviour on Windows with OS-native roots.

package patch_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// exampleTree returns a MemFS with one Go file under /work (keep in sync with FuzzApply's
// first seed).
func exampleTree() *wfs.MemFS {
	m := wfs.NewMemFS()
	_ = m.MkdirAll("/work/src", 0o755)
	_ = m.WriteFile("/work/src/greet.go", []byte("package main\n\nfunc greet() string {\n\treturn \"hello\"\n}\n"), 0o644)
	return m
}

func ExampleApplier_Apply() {
	m := exampleTree()
	a, err := patch.New(m, "/work")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := a.Apply(context.Background(), `*** Begin Patch
*** Update File: src/greet.go
@@ func greet() string {
-	return "hello"
+	return "hello, world"
*** Add File: docs/greet.md
+greet returns a greeting.
*** End Patch`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Summary)
	data, _ := m.ReadFile("/work/src/greet.go")
	fmt.Print(string(data))
	// Output:
	// Success. Updated the following files:
	// A docs/greet.md
	// M src/greet.go
	// package main
	//
	// func greet() string {
	// 	return "hello, world"
	// }
}

// A chunk whose context leaves out a line of the file (here the blank line) is rescued: the
// patch lines are aligned with the file, the left-out line is kept, and only the line the
// patch names as removed is removed.
func ExampleApplier_Apply_rescued() {
	m := exampleTree()
	a, _ := patch.New(m, "/work")
	res, err := a.Apply(context.Background(), `*** Begin Patch
*** Update File: src/greet.go
@@
 package main
 func greet() string {
-	return "hello"
+	return "hi there"
 }
*** End Patch`)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res.Report[0]
	fmt.Println(r.Strategy, r.Start, r.Len, r.Pairing, r.Notes)
	data, _ := m.ReadFile("/work/src/greet.go")
	fmt.Print(string(data))
	// Output:
	// lcs 1 5 [1 3 4 5] [LCS 4/4, runner-up 0 1 file line not named by the patch kept]
	// package main
	//
	// func greet() string {
	// 	return "hi there"
	// }
}

// A removed line that changed since the model read the file is never removed: the refusal
// names the line and both versions, and nothing is written.
func ExampleApplier_Apply_changedLine() {
	a, _ := patch.New(exampleTree(), "/work")
	_, err := a.Apply(context.Background(), `*** Begin Patch
*** Update File: src/greet.go
@@
 func greet() string {
-	return "hi"
+	return "hi there"
 }
*** End Patch`)
	fmt.Println(errors.Is(err, patch.ErrNotFound))
	fmt.Println(err)
	// Output:
	// true
	// apply_patch verification failed: Failed to find expected lines in src/greet.go:
	// func greet() string {
	// 	return "hi"
	// }
	// line 4 of src/greet.go changed since the patch was written: the file has `	return "hello"`, the patch expects `	return "hi"`; read the file again.
}

// An ambiguous location is refused, never guessed, and nothing is written.
func ExampleApplier_Apply_ambiguous() {
	m := wfs.NewMemFS()
	_ = m.MkdirAll("/work", 0o755)
	_ = m.WriteFile("/work/config.yaml", []byte("a:\n  enabled: false\nb:\n    enabled: false\n"), 0o644)
	a, _ := patch.New(m, "/work")
	_, err := a.Apply(context.Background(), `*** Begin Patch
*** Update File: config.yaml
@@
-enabled: false
+enabled: true
*** End Patch`)
	var pe *patch.Error
	if errors.As(err, &pe) {
		fmt.Println(pe.Kind, pe.Candidates)
	}
	fmt.Println(err)
	// Output:
	// ambiguous [2 4]
	// apply_patch verification failed: Ambiguous match in config.yaml: chunk 1 matches 2 places when compared with trim (file lines 2, 4); add more context lines or an @@ line to choose one
}

// Plan first, look, then commit: a file edited in between is detected.
func ExampleApplier_Commit() {
	m := exampleTree()
	a, _ := patch.New(m, "/work")
	ctx := context.Background()
	pl, err := a.Plan(ctx, "*** Begin Patch\n*** Delete File: src/greet.go\n*** End Patch")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pl.Changes[0].Op, pl.Changes[0].Path)
	_ = m.WriteFile("/work/src/greet.go", []byte("edited meanwhile\n"), 0o644)
	_, err = a.Commit(ctx, pl)
	fmt.Println(errors.Is(err, patch.ErrChanged))
	// Output:
	// delete src/greet.go
	// true
}

// Rewrite gives a host that keeps its own (Codex-like) apply_patch a patch it applies to the
// same result: the chunk the model wrote with typographic quotes is rendered from the file's
// real lines.
func ExampleApplier_Rewrite() {
	a, _ := patch.New(exampleTree(), "/work")
	rw, err := a.Rewrite(context.Background(), `*** Begin Patch
*** Update File: /work/src/greet.go
@@
 func greet() string {
-	return “hello”
+	return "hi there"
 }
*** End Patch`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rw.Changed)
	fmt.Print(rw.Text)
	// Output:
	// true
	// *** Begin Patch
	// *** Update File: src/greet.go
	// @@
	//  func greet() string {
	// -	return "hello"
	// +	return "hi there"
	//  }
	// *** End Patch
}

// A host that wants only exact matches caps the ladder and turns the rescues off; a chunk
// whose indentation drifted is then refused instead of placed.
func ExampleWithRescue() {
	r := patch.DefaultRescue()
	r.MaxTolerance = patch.LevelExact
	r.PrefixSuffix, r.LCS, r.StaleEdges = false, false, false
	a, err := patch.New(exampleTree(), "/work", patch.WithRescue(r))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = a.Apply(context.Background(), "*** Begin Patch\n*** Update File: src/greet.go\n@@\n-    return \"hello\"\n+    return \"hi\"\n*** End Patch")
	var pe *patch.Error
	fmt.Println(errors.As(err, &pe), pe.Kind)
	// Output:
	// true not_found
}
