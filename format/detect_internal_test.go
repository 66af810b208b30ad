package format

import (
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestDirsUpStopsAtRoot: a rooted directory (what a Windows path without a drive letter
// became before locate read it on the root's drive) ends the walk instead of looping on "/".
func TestDirsUpStopsAtRoot(t *testing.T) {
	for _, tc := range []struct {
		name, dir string
		want      []string
	}{
		{name: "relative", dir: "a/b", want: []string{"a/b", "a", "."}},
		{name: "root", dir: ".", want: []string{"."}},
		{name: "rooted", dir: "/x", want: []string{"/x", "/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dirsUp(tc.dir); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("dirsUp(%q) = %q, want %q", tc.dir, got, tc.want)
			}
		})
	}
}

// locateProp: for any path string (separators of both kinds, drive letters, dot segments),
// locate either says outside or gives a slash path that fs.ValidPath accepts, whose
// absolute form is under the root; and the walk up from it is at most its depth plus one.
func locateProp(t *rapid.T) {
	root := "/proj/w"
	if runtime.GOOS == "windows" {
		root = `C:\proj\w`
	}
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{"/", `\`, ".", "..", "a", "C:", "proj", "w", "x.go", " ", "c:"}), 0, 12).Draw(t, "parts")
	p := strings.Join(parts, "")
	rel, abs, inside := Env{Root: root}.locate(p)
	if !inside {
		return
	}
	if !fs.ValidPath(rel) {
		t.Fatalf("locate(%q) = %q: not a valid slash path under the root", p, rel)
	}
	if got := filepath.Join(root, filepath.FromSlash(rel)); got != abs {
		t.Fatalf("locate(%q): rel %q joins to %q, abs %q", p, rel, got, abs)
	}
	if n, depth := len(dirsUp(path.Dir(rel))), strings.Count(rel, "/")+1; n > depth {
		t.Fatalf("locate(%q) = %q: walk of %d directories for depth %d", p, rel, n, depth)
	}
}

func TestLocateProperty(t *testing.T) { t.Run("p", rapid.MakeCheck(locateProp)) }

// FuzzLocate runs the same property under go test -fuzz.
func FuzzLocate(f *testing.F) { f.Fuzz(rapid.MakeFuzz(locateProp)) }
