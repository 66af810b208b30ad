//go:build !windows

// The examples root their in-memory trees at POSIX paths such as /work, which Windows does
// not take as absolute (a Windows host uses C:\work); the table tests run the same
// behaviour on Windows with OS-native roots.

package patch_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// A MemFS stands in for the disk in tests and in hosts without one.
func Example_memFS() {
	m := wfs.NewMemFS()
	m.WriteFile("/w/greeting.txt", []byte("hello\n"), 0o644)
	a, err := patch.New(m, "/w")
	if err != nil {
		panic(err)
	}
	res, err := a.Apply(context.Background(), `*** Begin Patch
*** Update File: greeting.txt
@@
-hello
+hello, world
*** End Patch`)
	if err != nil {
		panic(err)
	}
	fmt.Print(res.Summary)
	b, _ := m.ReadFile("/w/greeting.txt")
	fmt.Printf("%q\n", b)
	_, err = m.Stat("/w/missing.txt")
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	// Output:
	// Success. Updated the following files:
	// M greeting.txt
	// "hello, world\n"
	// true
}
