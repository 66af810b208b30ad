package pathguard_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
)

func BenchmarkSearchCheck(b *testing.B) {
	P := searchTree(b)
	g := pathguard.NewSearchGuard(pathguard.WithFlavor(pathguard.POSIX("/")))
	args := map[string]any{"path": "sub", "pattern": "x"}
	b.Run("hit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := g.Check("grep", args, P); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("skip", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := g.Check("read", args, P); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkFlavor(b *testing.B) {
	posix := pathguard.POSIX("/tmp")
	win := pathguard.Windows(`D:\ws`, func(string) (string, bool) { return `C:\Users\me`, true })
	rel := "a/./b/../c/d/./e/../f/g/h"
	b.Run("posix-join", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = posix.Join("/ws/proj", rel)
		}
	})
	b.Run("posix-resolve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = posix.Resolve("/ws/proj", rel)
		}
	})
	b.Run("windows-resolve-drive-relative", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = win.Resolve(`D:\ws`, `C:`+strings.ReplaceAll(rel, "/", `\`))
		}
	})
}

func BenchmarkContainment(b *testing.B) {
	fl := pathguard.POSIX("/")
	nodes := map[string]fakeNode{"/": {dir: true}, "/ws": {dir: true}}
	// A 32-component target whose walk crosses 4 symlinks (each to a sibling directory).
	dir := "/ws"
	var target strings.Builder
	target.WriteString("/ws")
	for i := range 32 {
		name := fmt.Sprintf("d%d", i)
		if i%8 == 7 {
			nodes[dir+"/"+name] = fakeNode{link: fmt.Sprintf("r%d", i)}
			name = fmt.Sprintf("r%d", i)
			nodes[dir+"/"+name] = fakeNode{dir: true}
			target.WriteString(fmt.Sprintf("/d%d", i))
		} else {
			nodes[dir+"/"+name] = fakeNode{dir: true}
			target.WriteString("/" + name)
		}
		dir += "/" + name
	}
	res := newFakeFS(fl, false, nodes)
	c, err := pathguard.NewContainment("/ws", pathguard.WithPathFlavor(fl), pathguard.WithResolver(res))
	if err != nil {
		b.Fatal(err)
	}
	deep := target.String()
	if got, err := c.Check(deep); err != nil || got.Real == got.Abs {
		b.Fatalf("setup: %+v %v", got, err)
	}
	b.Run("deep-32", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Check(deep); err != nil {
				b.Fatal(err)
			}
		}
	})
	targets := make([]string, 100)
	for i := range targets {
		targets[i] = fmt.Sprintf("d0/d1/d2/new%d/file%d.txt", i%10, i)
	}
	b.Run("checkall-100", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.CheckAll(targets...); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkRescue(b *testing.B) {
	ws := "/home/me/src/org/team/proj/ws"
	stat := func(name string) error {
		if name == "/home/me/src/org/team/proj/ws/pkg/sub/dir/file.go" {
			return nil
		}
		return errNotExist
	}
	r := pathguard.NewRescuer(pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithStat(stat))
	args := map[string]any{"filePath": "/Users/other/code/org/team/proj/ws/pkg/sub/dir/file.go"}
	b.Run("anchor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, ok := r.Rescue("read", args, ws); !ok {
				b.Fatal("not rescued")
			}
		}
	})
}

// BenchmarkContainmentLong measures the two adversarial shapes of the linear-walk rule:
// a 100,000-segment target through one symlink (refused as too long once the limits
// apply), and a 1,000-component target of existing directories, under a root reached
// through a symlink (macOS's /tmp -> /private/tmp) and, for comparison, under the same
// root named directly. The fake resolver keeps the file system out of the numbers.
func BenchmarkContainmentLong(b *testing.B) {
	fl := pathguard.POSIX("/")
	nodes := map[string]fakeNode{
		"/": {dir: true}, "/ws": {dir: true}, "/ws/l": {link: "/ws/d"}, "/ws/d": {dir: true},
		"/tmp": {link: "private/tmp"}, "/private": {dir: true}, "/private/tmp": {dir: true},
		"/private/tmp/ws": {dir: true},
	}
	dir := "/private/tmp/ws"
	for range 999 {
		dir += "/d"
		nodes[dir] = fakeNode{dir: true}
	}
	res := newFakeFS(fl, false, nodes)
	seg100k := "l/" + strings.Repeat("x/", 99_999)
	deep1000 := strings.Repeat("d/", 999) + "f"
	for _, bc := range []struct {
		name, root, target string
	}{
		{"segments-100k-through-symlink", "/ws", seg100k},
		{"components-1000-symlinked-root", "/tmp/ws", deep1000},
		{"components-1000-plain-root", "/private/tmp/ws", deep1000},
	} {
		c, err := pathguard.NewContainment(bc.root, pathguard.WithPathFlavor(fl), pathguard.WithResolver(res), pathguard.WithCaseFold(false))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = c.Check(bc.target)
			}
		})
	}
}
