//go:build !windows

// The examples root their in-memory trees at POSIX paths such as /proj, which Windows does
// not take as absolute (a Windows host uses C:\proj); the table tests run the same behaviour
// on Windows with OS-native roots.

package wfs_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnesskit/harnesskit/wfs"
)

// Example reads two files, changes both in one transaction, and shows that a writer whose
// snapshot is stale is refused instead of overwriting the change.
func Example() {
	ctx := context.Background()
	m := wfs.NewMemFS()
	_ = m.WriteFile("/proj/a.txt", []byte("alpha\n"), 0o644)
	_ = m.WriteFile("/proj/b.txt", []byte("beta\n"), 0o644)

	a, _ := wfs.Read(ctx, m, "/proj/a.txt", wfs.DefaultMaxFileSize)
	b, _ := wfs.Read(ctx, m, "/proj/b.txt", wfs.DefaultMaxFileSize)
	stale := a

	tx, _ := wfs.Begin(m, "/proj")
	tx.Write(a, []byte("ALPHA\n"))
	tx.Write(b, []byte("BETA\n"))
	tx.Create("/proj/docs/c.txt", []byte("gamma\n"), 0o644)
	if _, err := tx.Commit(ctx); err != nil {
		fmt.Println(err)
	}
	got, _ := m.ReadFile("/proj/a.txt")
	fmt.Printf("a.txt: %s", got)

	late, _ := wfs.Begin(m, "/proj")
	late.Write(stale, []byte("alpha, edited from an old read\n"))
	_, err := late.Commit(ctx)
	fmt.Println(errors.Is(err, wfs.ErrChanged))
	// Output:
	// a.txt: ALPHA
	// true
}

// ExampleTempName shows the one temporary-name scheme: hidden, the target's name kept (cut
// to 200 bytes), a random part, a suffix.
func ExampleTempName() {
	name, _ := wfs.TempName("/proj/app.rb", ".rb", zeros{})
	fmt.Println(name)
	fmt.Println(wfs.IsLeftover(".app.rb.hk-0000000000000000.rb"), wfs.IsLeftover("app.rb"))
	// Output:
	// /proj/.app.rb.hk-0000000000000000.rb
	// true false
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// ExampleRecover: a tree with no interrupted commit costs one Lstat and reports nothing.
func ExampleRecover() {
	m := wfs.NewMemFS()
	_ = m.MkdirAll("/proj", 0o755)
	recs, err := wfs.Recover(context.Background(), m, "/proj")
	fmt.Println(len(recs), err)
	// Output:
	// 0 <nil>
}
