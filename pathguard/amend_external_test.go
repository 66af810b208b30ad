package pathguard_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
)

// countingResolver counts the calls reaching a Resolver.
type countingResolver struct {
	pathguard.SpellingResolver
	lstats atomic.Int64
}

func (c *countingResolver) Lstat(name string) (fs.FileInfo, error) {
	c.lstats.Add(1)
	return c.SpellingResolver.Lstat(name)
}

// TestContainmentPhysicalOS covers E76-E78 and E83-E84 on a real temp tree: ".." after a
// link is judged where the link leads, folding never widens containment, and a missing
// base is retried and only fails the targets that need it.
func TestContainmentPhysicalOS(t *testing.T) {
	posixOnDisk(t)
	tmp := realTempDir(t)
	P := filepath.Join(tmp, "ws", "proj")
	mkTree(t, tmp,
		"ws/proj/f.txt", "ws/proj/a/b/", "proj/f.txt", "elsewhere/",
		"ws/proj/out -> "+filepath.Join(tmp, "elsewhere"),
		"ws/proj/in -> "+filepath.Join(P, "a", "b"),
		"ws/src/", "ws/SRC/", "ws/src2/", "ws/ſrc2/",
	)
	posix := pathguard.POSIX("/")
	tests := []struct {
		name     string
		root     string
		fold     bool
		target   string
		wantKind pathguard.Kind
		wantReal string
		wantRel  string
	}{
		{name: "E76_dotdot_after_link_outside", root: P, target: "out/../proj/f.txt", wantKind: pathguard.KindOutside},
		// Lexically P/ws/proj/f.txt, physically P/f.txt: both inside; Real is where the
		// kernel writes, Rel stays lexical.
		{name: "E76_dotdot_after_link_back_into_root", root: P, target: "out/../ws/proj/f.txt", wantReal: P + "/f.txt", wantRel: "ws/proj/f.txt"},
		{name: "E76_dotdot_after_link_inside", root: P, target: "in/../c.txt", wantReal: P + "/a/c.txt", wantRel: "c.txt"},
		{name: "E76_absolute_dotdot_after_link", root: P, target: P + "/out/../proj/f.txt", wantKind: pathguard.KindOutside},
		{name: "E77_sibling_other_case_absolute", root: tmp + "/ws/src", fold: true, target: tmp + "/ws/SRC/x", wantKind: pathguard.KindOutside},
		{name: "E77_sibling_other_case_relative", root: tmp + "/ws/src", fold: true, target: "../SRC/x", wantKind: pathguard.KindOutside},
		{name: "E77_same_case_still_inside", root: tmp + "/ws/src", fold: true, target: tmp + "/ws/src/x", wantReal: tmp + "/ws/src/x", wantRel: "x"},
		{name: "E78_long_s_missing", root: tmp + "/ws/src", fold: true, target: tmp + "/ws/ſrc/x", wantKind: pathguard.KindOutside},
		{name: "E78_long_s_existing", root: tmp + "/ws/src2", fold: true, target: tmp + "/ws/ſrc2/x", wantKind: pathguard.KindOutside},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := pathguard.NewContainment(tc.root, pathguard.WithPathFlavor(posix), pathguard.WithCaseFold(tc.fold))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%q) = %+v, kind %v (%v), want %v", tc.target, got, k, err, tc.wantKind)
			}
			if tc.wantKind == 0 && (got.Real != tc.wantReal || got.Rel != tc.wantRel) {
				t.Errorf("Check(%q) Real %q Rel %q, want %q %q", tc.target, got.Real, got.Rel, tc.wantReal, tc.wantRel)
			}
		})
	}
}

// TestContainmentNoStickyBase covers E83 and E84.
func TestContainmentNoStickyBase(t *testing.T) {
	native := pathguard.Native()
	t.Run("E83_root_created_after_first_check", func(t *testing.T) {
		tmp := realTempDir(t)
		root := filepath.Join(tmp, "later")
		c, err := pathguard.NewContainment(root, pathguard.WithPathFlavor(native))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Check("x.txt")
		if kindOf(t, err) != pathguard.KindResolve || !strings.Contains(err.Error(), root) || !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("first Check = %v, want KindResolve naming %s", err, root)
		}
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := c.Check("x.txt")
		if err != nil || got.Real != filepath.Join(root, "x.txt") {
			t.Fatalf("second Check = %+v, %v", got, err)
		}
	})
	t.Run("E84_deleted_worktree", func(t *testing.T) {
		tmp := realTempDir(t)
		mkTree(t, tmp, "root/", "wt1/", "wt2/")
		root, wt1, wt2 := filepath.Join(tmp, "root"), filepath.Join(tmp, "wt1"), filepath.Join(tmp, "wt2")
		c, err := pathguard.NewContainment(root, pathguard.WithPathFlavor(native), pathguard.WithWorktrees(wt1, wt2))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(wt1); err != nil {
			t.Fatal(err)
		}
		for _, target := range []string{"a.txt", filepath.Join(wt2, "b.txt"), root} {
			if _, err := c.Check(target); err != nil {
				t.Errorf("Check(%q) = %v, want allowed (only %s is gone)", target, err, wt1)
			}
		}
		_, err = c.Check(filepath.Join(wt1, "c.txt"))
		if kindOf(t, err) != pathguard.KindResolve || !strings.Contains(err.Error(), wt1) {
			t.Fatalf("Check in the deleted worktree = %v, want KindResolve naming %s", err, wt1)
		}
		if _, err := c.Check(filepath.Join(tmp, "elsewhere")); kindOf(t, err) != pathguard.KindOutside {
			t.Errorf("Check outside every base = %v, want KindOutside", err)
		}
		if err := os.Mkdir(wt1, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Check(filepath.Join(wt1, "c.txt")); err != nil {
			t.Errorf("after the worktree is back: %v", err)
		}
	})
}

// TestContainmentFoldFake covers E79 and E80 with fake resolvers: the Windows flavour does
// not fold the Kelvin sign into "k", and a root spelled in other case on a case-insensitive
// volume is inside with Real carrying the on-disk spelling.
func TestContainmentFoldFake(t *testing.T) {
	win := pathguard.Windows(`C:\proc`, nil)
	posix := pathguard.POSIX("/")
	winFS := newFakeFS(win, true, map[string]fakeNode{
		`D:\`: {dir: true}, `D:\work`: {dir: true}, `D:\work\sub`: {dir: true},
	})
	ciFS := newFakeFS(posix, true, map[string]fakeNode{
		"/": {dir: true}, "/ws": {dir: true}, "/ws/src": {dir: true}, "/ws/src/a.txt": {},
	})
	csFS := newFakeFS(posix, false, map[string]fakeNode{
		"/": {dir: true}, "/ws": {dir: true}, "/ws/src": {dir: true}, "/ws/SRC": {dir: true},
	})
	tests := []struct {
		name     string
		flavor   pathguard.Flavor
		res      pathguard.Resolver
		root     string
		target   string
		wantKind pathguard.Kind
		wantReal string
	}{
		{name: "E79_kelvin_sign_not_k", flavor: win, res: winFS, root: `D:\work`, target: `D:\wor` + "\u212A" + `\evil.txt`, wantKind: pathguard.KindOutside},
		{name: "E79_kelvin_sign_relative", flavor: win, res: winFS, root: `D:\work`, target: `..\wor` + "\u212A" + `\evil.txt`, wantKind: pathguard.KindOutside},
		{name: "E79_ascii_case_still_folds", flavor: win, res: winFS, root: `D:\work`, target: `d:\WORK\Sub\x.txt`, wantReal: `D:\work\Sub\x.txt`},
		{name: "E79_long_s_not_s", flavor: win, res: newFakeFS(win, true, map[string]fakeNode{`D:\`: {dir: true}, `D:\src`: {dir: true}}), root: `D:\src`, target: `D:\ſrc\x`, wantKind: pathguard.KindOutside},
		{name: "E80_root_other_case_case_insensitive", flavor: posix, res: ciFS, root: "/WS/SRC", target: "a.txt", wantReal: "/ws/src/a.txt"},
		{name: "E80_target_other_case_case_insensitive", flavor: posix, res: ciFS, root: "/ws/src", target: "/WS/Src/new.txt", wantReal: "/ws/src/new.txt"},
		{name: "E80_other_case_case_sensitive", flavor: posix, res: csFS, root: "/ws/src", target: "/ws/SRC/x", wantKind: pathguard.KindOutside},
		{name: "E80_backslash_name_kept_posix", flavor: posix, res: ciFS, root: "/WS/src", target: `\a\b`, wantReal: `/ws/src/\a\b`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := pathguard.NewContainment(tc.root, pathguard.WithPathFlavor(tc.flavor), pathguard.WithResolver(tc.res), pathguard.WithCaseFold(true))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%q) = %+v, kind %v (%v), want %v", tc.target, got, k, err, tc.wantKind)
			}
			if tc.wantKind == 0 && got.Real != tc.wantReal {
				t.Errorf("Real = %q, want %q", got.Real, tc.wantReal)
			}
		})
	}
}

// TestContainmentLimits covers E81 and E82: the input limits are enforced before any
// file-system call, and a root behind a symlink costs one Lstat per component like a
// plain one.
func TestContainmentLimits(t *testing.T) {
	posix := pathguard.POSIX("/")
	nodes := map[string]fakeNode{
		"/": {dir: true}, "/ws": {dir: true}, "/ws/l": {link: "/ws/d"}, "/ws/d": {dir: true},
		"/tmp": {link: "private/tmp"}, "/private": {dir: true}, "/private/tmp": {dir: true}, "/private/tmp/ws": {dir: true},
	}
	dir := "/private/tmp/ws"
	for range 999 {
		dir += "/d"
		nodes[dir] = fakeNode{dir: true}
	}
	deep := strings.Repeat("d/", 999) + "f"
	tests := []struct {
		name       string
		root       string
		target     string
		wantKind   pathguard.Kind
		maxLstats  int64
		wantSubstr string
	}{
		{name: "E81_100k_segments_through_symlink", root: "/ws", target: "l/" + strings.Repeat("x/", 99_999), wantKind: pathguard.KindResolve, wantSubstr: "path too long"},
		{name: "E81_4097_bytes", root: "/ws", target: strings.Repeat("x", 4097), wantKind: pathguard.KindResolve, wantSubstr: "path too long"},
		{name: "E81_4096_bytes_accepted", root: "/ws", target: strings.Repeat("x", 4096), maxLstats: 3},
		{name: "E81_1025_components", root: "/ws", target: strings.Repeat("a/", 1025), wantKind: pathguard.KindResolve, wantSubstr: "path too long"},
		{name: "E81_1024_components_accepted", root: "/ws", target: strings.Repeat("a/", 1024), maxLstats: 3},
		{name: "E82_1000_components_symlinked_root", root: "/tmp/ws", target: deep, maxLstats: 1000 + 10},
		{name: "E82_1000_components_plain_root", root: "/private/tmp/ws", target: deep, maxLstats: 1000 + 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := &countingResolver{SpellingResolver: newFakeFS(posix, false, nodes)}
			c, err := pathguard.NewContainment(tc.root, pathguard.WithPathFlavor(posix), pathguard.WithResolver(res), pathguard.WithCaseFold(false))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("kind %v (%v), want %v", k, err, tc.wantKind)
			}
			n := res.lstats.Load()
			if tc.wantKind != 0 {
				if !strings.Contains(err.Error(), tc.wantSubstr) {
					t.Errorf("message %q does not say %q", err, tc.wantSubstr)
				}
				if n != 0 {
					t.Errorf("%d Lstat calls before refusing; want none", n)
				}
				return
			}
			if n > tc.maxLstats {
				t.Errorf("%d Lstat calls, want at most %d (one per component)", n, tc.maxLstats)
			}
			if strings.HasPrefix(tc.root, "/tmp") || strings.HasPrefix(tc.root, "/private") {
				if want := "/private/tmp/ws/" + deep; got.Real != want {
					t.Errorf("Real = %q…, want %q…", got.Real[:40], want[:40])
				}
			}
		})
	}
}

// TestContainmentWindowsNames covers E85: names the Windows kernel rewrites are refused
// with a message naming the rule; near misses pass.
func TestContainmentWindowsNames(t *testing.T) {
	win := pathguard.Windows(`C:\proc`, nil)
	res := newFakeFS(win, true, map[string]fakeNode{`D:\`: {dir: true}, `D:\ws`: {dir: true}})
	c, err := pathguard.NewContainment(`D:\ws`, pathguard.WithPathFlavor(win), pathguard.WithResolver(res))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target, wantSubstr string
	}{
		{"E85_trailing_dot", `x.`, "ends with a dot or a space"},
		{"E85_trailing_space", `x `, "ends with a dot or a space"},
		{"E85_trailing_dot_mid_path", `sub.\x.txt`, "ends with a dot or a space"},
		{"E85_device_CON", `CON`, "DOS device CON"},
		{"E85_device_with_extension", `nul.txt`, "DOS device NUL"},
		{"E85_device_in_subdir", `a\com1.log`, "DOS device COM1"},
		{"E85_device_lower_case_lpt", `lpt9`, "DOS device LPT9"},
		{"E85_stream", `a:stream`, "alternate data stream"},
		{"E85_stream_long_name", `name:stream`, "alternate data stream"},
		{"E85_stream_in_subdir", `sub\f.txt:x`, "alternate data stream"},
		{"E85_stream_absolute", `D:\ws\a.txt:$DATA`, "alternate data stream"},
		{"ok_dot_dirs", `.\a\..\b.txt`, ""},
		{"ok_console", `console.txt`, ""},
		{"ok_com10", `com10`, ""},
		{"ok_dotted_name", `..cache\v1.2\x`, ""},
		{"ok_drive_prefix", `D:\ws\f.txt`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Check(tc.target)
			if tc.wantSubstr == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want allowed", tc.target, err)
				}
				return
			}
			if kindOf(t, err) != pathguard.KindResolve || !strings.Contains(err.Error(), tc.wantSubstr) {
				t.Fatalf("Check(%q) = %v, want KindResolve saying %q", tc.target, err, tc.wantSubstr)
			}
		})
	}
	posixC, err := pathguard.NewContainment("/ws", pathguard.WithPathFlavor(pathguard.POSIX("/")),
		pathguard.WithResolver(newFakeFS(pathguard.POSIX("/"), false, map[string]fakeNode{"/": {dir: true}, "/ws": {dir: true}})))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"x.", "CON", "a:b"} {
		if _, err := posixC.Check(target); err != nil {
			t.Errorf("POSIX flavour Check(%q) = %v; the Windows rules apply to the Windows flavour only", target, err)
		}
	}
}

// TestOSResolverSpelling: the OS resolver reports the exact entry when it exists, the
// entry a case-insensitive volume matched when only that one exists, and not-exist for a
// name no entry matches. Which volume the temp directory is on is found out, not assumed:
// Linux's are case-sensitive, NTFS (and Wine's view of any directory) and APFS by default
// are not.
func TestOSResolverSpelling(t *testing.T) {
	tmp := realTempDir(t)
	mkTree(t, tmp, "src/", "file.txt")
	a, errA := os.Lstat(filepath.Join(tmp, "src"))
	b, errB := os.Lstat(filepath.Join(tmp, "SRC"))
	insensitive := errA == nil && errB == nil && os.SameFile(a, b)
	want := map[string]string{"src": "src", "file.txt": "file.txt", "FILE.TXT": "file.txt"}
	if insensitive {
		want["SRC"] = "src"
	} else {
		mkTree(t, tmp, "SRC/")
		want["SRC"] = "SRC"
		delete(want, "FILE.TXT")
	}
	sp, ok := pathguard.OSResolver().(pathguard.SpellingResolver)
	if !ok {
		t.Fatal("OSResolver is not a SpellingResolver")
	}
	for name, w := range want {
		if got, err := sp.Spelling(tmp, name); err != nil || got != w {
			t.Errorf("Spelling(%q) = %q, %v; want %q (case-insensitive volume: %v)", name, got, err, w, insensitive)
		}
	}
	if _, err := sp.Spelling(tmp, "ſrc"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Spelling of a missing name = %v, want not-exist", err)
	}
}
