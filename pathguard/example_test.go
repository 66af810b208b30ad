package pathguard_test

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/harnesskit/harnesskit/pathguard"
)

// The flavours reproduce Node's path.posix; note the kept trailing slash of Join.
func ExamplePOSIX() {
	f := pathguard.POSIX("/tmp")
	fmt.Println(f.Join("/ws/proj", "f.txt/"))
	fmt.Println(f.Resolve("/ws/proj", "f.txt/"))
	fmt.Println(f.Resolve("proj", "m"))
	fmt.Println(f.Within("/w/root", "/w/root/..cache/x"), f.Within("/w/root", "/w/rootx"))
	// Output:
	// /ws/proj/f.txt/
	// /ws/proj/f.txt
	// /tmp/proj/m
	// true false
}

// The Windows flavour runs on any OS; drive-relative paths use the injected per-drive
// directory, else the drive's root.
func ExampleWindows() {
	f := pathguard.Windows(`D:\workspace`, func(drive string) (string, bool) {
		if drive == "E:" {
			return `E:\work`, true
		}
		return "", false
	})
	fmt.Println(f.IsAbs(`\src`), f.IsAbs("C:src"))
	fmt.Println(f.Join(`D:\workspace`, "C:src"))
	fmt.Println(f.Resolve(`D:\workspace`, "C:src"))
	fmt.Println(f.Resolve(`D:\workspace`, "E:src"))
	fmt.Println(f.Resolve(`D:\workspace`, "//server/share/x"))
	// Output:
	// true false
	// D:\workspace\C:src
	// C:\src
	// E:\work\src
	// \\server\share\x
}

// A missing grep path is refused with a message the model can act on.
func ExampleSearchGuard_Check() {
	stat := func(name string) error {
		if name == "/ws/proj/src" {
			return nil
		}
		return &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	g := pathguard.NewSearchGuard(pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithStat(stat))
	fmt.Println(g.Check("grep", map[string]any{"path": "src", "pattern": "TODO"}, "/ws/proj"))
	err := g.Check("grep", map[string]any{"path": "scr"}, "/ws/proj")
	fmt.Println(errors.Is(err, pathguard.ErrMissing))
	fmt.Println(err)
	// Output:
	// <nil>
	// true
	// Search path does not exist: /ws/proj/scr (from "scr"). The grep search was blocked before ripgrep ran. Verify the target path, or list its parent directory to find the correct location.
}

// Rescue repairs an absolute path copied from another checkout.
func ExampleRescuer_Rescue() {
	stat := func(name string) error {
		if name == "/home/me/ws/src/a.ts" {
			return nil
		}
		return fs.ErrNotExist
	}
	r := pathguard.NewRescuer(pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithStat(stat))
	out, key, changed := r.Rescue("read", map[string]any{"filePath": "/home/someone/ws/src/a.ts"}, "/home/me/ws")
	fmt.Println(key, changed, out[key])
	// Output:
	// filePath true /home/me/ws/src/a.ts
}
