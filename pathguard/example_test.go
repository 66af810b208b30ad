package pathguard_test

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/pathguard"
)

// A host checks a grep path before running ripgrep, and a write target before writing.
func Example() {
	tmp, err := os.MkdirTemp("", "pathguard-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	tmp, err = filepath.EvalSymlinks(tmp) // the temp directory may itself be a symlink (macOS)
	if err != nil {
		log.Fatal(err)
	}
	// A workspace with src/main.go and a symlink "escape" that leads out of it.
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.Symlink(tmp, filepath.Join(ws, "escape")); err != nil {
		log.Fatal(err)
	}

	// Before a grep or glob call: can the path the model gave be searched?
	guard := pathguard.NewSearchGuard()
	fmt.Println(guard.Check("grep", map[string]any{"path": "src", "pattern": "main"}, ws))
	err = guard.Check("grep", map[string]any{"path": "scr", "pattern": "main"}, ws)
	fmt.Println(errors.Is(err, pathguard.ErrMissing))
	fmt.Println(strings.ReplaceAll(err.Error(), ws, "$WS"))

	// Before a write: is the target inside the workspace, also after symlinks? ".."
	// after a symlink applies where the link led; a link that leaves and comes back in
	// is inside.
	c, err := pathguard.NewContainment(ws)
	if err != nil {
		log.Fatal(err)
	}
	t, err := c.Check("src/new/file.go")
	fmt.Println(t.Rel, t.InRoot, err)
	for _, target := range []string{"../outside.txt", "escape/ws/../secret.txt", "escape/ws/src/main.go"} {
		_, err := c.Check(target)
		fmt.Printf("%s: outside=%v\n", target, errors.Is(err, pathguard.ErrOutside))
	}
	// Output:
	// <nil>
	// true
	// Search path does not exist: $WS/scr (from "scr"). The grep search was blocked before ripgrep ran. Verify the target path, or list its parent directory to find the correct location.
	// src/new/file.go true <nil>
	// ../outside.txt: outside=true
	// escape/ws/../secret.txt: outside=true
	// escape/ws/src/main.go: outside=false
}

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

// A symlink is judged where it leads: "out/.." is the parent of the directory "out" points
// to, not the root.
func ExampleContainment_Check() {
	tmp, err := os.MkdirTemp("", "pathguard-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		log.Fatal(err)
	}
	root := filepath.Join(tmp, "proj")
	for _, d := range []string{"proj/src", "elsewhere/proj"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			log.Fatal(err)
		}
	}
	// proj/out -> elsewhere/proj: "out/../proj" is elsewhere/proj, outside the root.
	if err := os.Symlink(filepath.Join(tmp, "elsewhere", "proj"), filepath.Join(root, "out")); err != nil {
		log.Fatal(err)
	}
	c, err := pathguard.NewContainment(root)
	if err != nil {
		log.Fatal(err)
	}
	t, err := c.Check("src/app.go")
	fmt.Println(strings.TrimPrefix(t.Real, tmp), t.Rel, err)
	_, err = c.Check("out/../proj/src/app.go")
	fmt.Println(errors.Is(err, pathguard.ErrOutside))
	fmt.Println(strings.ReplaceAll(err.Error(), tmp, "$TMP"))
	// Output:
	// /proj/src/app.go src/app.go <nil>
	// true
	// path is outside the workspace root and worktrees: out/../proj/src/app.go (resolves to $TMP/elsewhere/proj/src/app.go)
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
