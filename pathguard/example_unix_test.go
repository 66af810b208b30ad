//go:build unix

package pathguard_test

// These examples build symbolic links on a real disk, which Windows allows only with a
// privilege or developer mode (and Wine not at all); their Windows counterparts are
// TestContainmentOSWindows and TestSearchCheckOSWindows.

import (
	"errors"
	"fmt"
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
