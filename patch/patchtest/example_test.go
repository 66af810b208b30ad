package patchtest_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/patch/patchtest"
)

// InjectFault makes chosen calls fail, to test that a failed commit changes nothing.
func ExampleMemFS_InjectFault() {
	m := patchtest.NewMemFS()
	m.WriteFile("/w/a.txt", []byte("a\n"), 0o644)
	m.WriteFile("/w/b.txt", []byte("b\n"), 0o644)
	// The second file's rename fails as a full disk would.
	m.InjectFault(func(op, name string) bool { return op == "rename" && name == "/w/b.txt" }, syscall.ENOSPC)
	a, _ := patch.New(m, "/w")
	_, err := a.Apply(context.Background(), `*** Begin Patch
*** Update File: a.txt
@@
-a
+A
*** Update File: b.txt
@@
-b
+B
*** End Patch`)
	fmt.Println(errors.Is(err, patch.ErrIO), errors.Is(err, syscall.ENOSPC))
	for _, name := range []string{"/w/a.txt", "/w/b.txt"} {
		b, _ := m.ReadFile(name)
		fmt.Printf("%s %q\n", name, b)
	}
	fmt.Println(len(m.TreeUnder("/w")), "entries")
	// Output:
	// true true
	// /w/a.txt "a\n"
	// /w/b.txt "b\n"
	// 2 entries
}
