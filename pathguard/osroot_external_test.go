package pathguard_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
	"pgregory.net/rapid"
)

// TestPropMatchesOSRoot is the differential test against os.Root actually opening the
// path (STYLE §8). On trees whose symlinks are relative and never leave the root only to
// come back, and on relative targets without "..", Containment and os.Root must agree:
// allowed exactly when os.Root's Stat does not report an escape, refused as outside
// exactly when it does, and unresolvable exactly on a symlink loop. (Where they differ by
// design — absolute in-root links, links that leave and re-enter, ".." after a link — the
// soundness property covers Containment alone.)
func TestPropMatchesOSRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlink creation needs privileges on windows; the os.Root differential runs on Unix-like systems")
	}
	top := realTempDir(t)
	n := 0
	agreed := map[string]int{}
	defer func() { t.Logf("agreements by verdict: %v", agreed) }()
	rapid.Check(t, func(t *rapid.T) {
		n++
		tmp := filepath.Join(top, fmt.Sprint(n))
		root := filepath.Join(tmp, "root")
		for _, d := range []string{root + "/a/b", root + "/..cache", tmp + "/out/a"} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(root+"/f", nil, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs := []string{root, root + "/a", root + "/a/b", root + "/..cache"}
		linkTargets := []string{"a", "b", "..", "../..", "../out", "../../out/a", "l1", "l2/..", "f/x", "missing", "l1/b"}
		for i := range rapid.IntRange(0, 6).Draw(t, "nlinks") {
			dir := rapid.SampledFrom(dirs).Draw(t, fmt.Sprint("dir", i))
			name := rapid.SampledFrom([]string{"l1", "l2", "l3"}).Draw(t, fmt.Sprint("name", i))
			_ = os.Symlink(rapid.SampledFrom(linkTargets).Draw(t, fmt.Sprint("dest", i)), filepath.Join(dir, name))
		}
		r, err := os.OpenRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		c, err := pathguard.NewContainment(root, pathguard.WithPathFlavor(pathguard.POSIX("/")), pathguard.WithCaseFold(false))
		if err != nil {
			t.Fatal(err)
		}
		segs := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "..cache", "l1", "l2", "l3", "f", "x", "."}), 1, 5).Draw(t, "target")
		target := strings.Join(segs, "/")
		_, rootErr := r.Stat(target)
		want := "allowed"
		switch {
		case rootErr == nil, errors.Is(rootErr, fs.ErrNotExist), errors.Is(rootErr, syscall.ENOTDIR):
		case errors.Is(rootErr, syscall.ELOOP):
			want = "resolve"
		case strings.Contains(rootErr.Error(), "escapes"):
			want = "outside"
		default:
			t.Fatalf("os.Root Stat(%q): unexpected %v", target, rootErr)
		}
		_, err = c.Check(target)
		got := "allowed"
		switch {
		case errors.Is(err, pathguard.ErrOutside):
			got = "outside"
		case errors.Is(err, pathguard.ErrResolve):
			got = "resolve"
		case err != nil:
			t.Fatalf("Check(%q): %v", target, err)
		}
		if got != want {
			t.Fatalf("Check(%q) = %s (%v); os.Root says %s (%v)", target, got, err, want, rootErr)
		}
		agreed[got]++
	})
}
