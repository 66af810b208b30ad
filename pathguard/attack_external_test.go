package pathguard_test

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
	"pgregory.net/rapid"
)

// nestedLinkTree returns a fake tree under /ws in which following /ws/L1 stacks n link
// targets of about 4,000 bytes each: Li leads to "L(i+1)/" followed by a zig-zag of
// "a/../b/../" that ends where it started, and the last link holds the zig-zag alone.
// Every name of a zig-zag exists, so the walk looks each one up.
func nestedLinkTree(n int) (nodes map[string]fakeNode, linkBytes int) {
	nodes = map[string]fakeNode{"/": {dir: true}, "/ws": {dir: true}, "/ws/a": {dir: true}, "/ws/b": {dir: true}}
	zigzag := strings.Repeat("a/../b/../", 399)
	for i := 1; i <= n; i++ {
		dest := zigzag
		if i < n {
			dest = fmt.Sprintf("L%d/", i+1) + zigzag
		}
		nodes[fmt.Sprintf("/ws/L%d", i)] = fakeNode{link: dest}
		linkBytes += len(dest)
	}
	return nodes, linkBytes
}

// TestContainmentNestedLinksLinear attacks the claim that a walk costs time linear in the
// target plus the link targets it follows. Links that stack their targets (each one met
// inside the previous one's target) must not make every lookup copy all the pending
// targets again: the bytes one Check allocates stay within a small multiple of what it
// reads.
func TestContainmentNestedLinksLinear(t *testing.T) {
	posix := pathguard.POSIX("/")
	for _, n := range []int{1, 4, pathguard.MaxSymlinks} {
		t.Run(fmt.Sprintf("links-%d", n), func(t *testing.T) {
			nodes, linkBytes := nestedLinkTree(n)
			c, err := pathguard.NewContainment("/ws", pathguard.WithPathFlavor(posix),
				pathguard.WithResolver(newFakeFS(posix, false, nodes)), pathguard.WithCaseFold(false))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Check("a"); err != nil { // computes the root's real path
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := c.Check("L1/f.txt")
			runtime.ReadMemStats(&after)
			if err != nil || got.Real != "/ws/f.txt" {
				t.Fatalf("Check = %+v, %v; want /ws/f.txt allowed", got, err)
			}
			// Each lookup may allocate a little (the fake's FileInfo, the name it is
			// given); copying the pending link targets per lookup is what must not
			// happen. 64 bytes per byte read is far above the first and far below the
			// second.
			read := len("L1/f.txt") + linkBytes
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(64*read) {
				t.Errorf("one Check through %d stacked links (%d bytes of targets) allocated %d bytes; want at most %d (64 per byte read)",
					n, linkBytes, alloc, 64*read)
			}
		})
	}
}

// BenchmarkContainmentNestedLinks measures a Check through n stacked links of about 4,000
// bytes each (see nestedLinkTree), with a fake resolver so that only the walk is
// measured.
func BenchmarkContainmentNestedLinks(b *testing.B) {
	posix := pathguard.POSIX("/")
	for _, n := range []int{1, 4, pathguard.MaxSymlinks} {
		nodes, _ := nestedLinkTree(n)
		c, err := pathguard.NewContainment("/ws", pathguard.WithPathFlavor(posix),
			pathguard.WithResolver(newFakeFS(posix, false, nodes)), pathguard.WithCaseFold(false))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("links-%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Check("L1/f.txt"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestContainmentFoldNeverWidensLexically attacks the claim that case folding only ever
// makes a decision stricter. On a case-sensitive volume, "SRC" next to the root "src" is
// another entry; when it is a symlink into a base, the kernel lands inside, but the
// target is lexically inside only because two different names were folded together. Every
// case here is refused with folding off, so it must be refused with folding on; and Rel,
// "Abs relative to the root", must not treat "SRC" as the root.
func TestContainmentFoldNeverWidensLexically(t *testing.T) {
	posix := pathguard.POSIX("/")
	win := pathguard.Windows(`C:\proc`, nil)
	csFS := newFakeFS(posix, false, map[string]fakeNode{
		"/": {dir: true}, "/ws": {dir: true}, "/ws/src": {dir: true}, "/ws/src/sub": {dir: true},
		"/ws/wt": {dir: true}, "/ws/SRC": {link: "src/sub"}, "/ws/Src": {link: "/ws/wt"},
	})
	// A Windows volume whose directory holds two entries that simple upper-casing does
	// not join (NTFS keeps "work" and "wor\u212A" apart), the second a link into the root.
	winFS := newFakeFS(win, false, map[string]fakeNode{
		`D:\`: {dir: true}, `D:\work`: {dir: true}, `D:\work\sub`: {dir: true}, `D:\WORK`: {link: `D:\work\sub`},
	})
	tests := []struct {
		name    string
		flavor  pathguard.Flavor
		res     pathguard.Resolver
		root    string
		wts     []string
		target  string
		wantRel string // with folding off, and with it on
	}{
		{name: "link_other_case_into_root_absolute", flavor: posix, res: csFS, root: "/ws/src", target: "/ws/SRC/x", wantRel: "../SRC/x"},
		{name: "link_other_case_into_root_relative", flavor: posix, res: csFS, root: "/ws/src", target: "../SRC/x", wantRel: "../SRC/x"},
		{name: "link_other_case_into_worktree", flavor: posix, res: csFS, root: "/ws/src", wts: []string{"/ws/wt"}, target: "/ws/Src/x", wantRel: "../Src/x"},
		{name: "windows_second_entry_other_case", flavor: win, res: winFS, root: `D:\work`, target: `D:\WORK\x`, wantRel: `../WORK/x`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, fold := range []bool{false, true} {
				c, err := pathguard.NewContainment(tc.root, pathguard.WithPathFlavor(tc.flavor), pathguard.WithResolver(tc.res),
					pathguard.WithWorktrees(tc.wts...), pathguard.WithCaseFold(fold))
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.Check(tc.target)
				if tc.flavor.Name() == "windows" && !fold {
					continue // the Windows flavour always folds
				}
				if k := kindOf(t, err); k != pathguard.KindOutside {
					t.Errorf("fold %v: Check(%q) = %+v, kind %v (%v); want outside", fold, tc.target, got, k, err)
				}
				if got.Rel != tc.wantRel {
					t.Errorf("fold %v: Rel = %q, want %q", fold, got.Rel, tc.wantRel)
				}
			}
		})
	}
}

// TestContainmentAttackHeldOS keeps, as regressions, adversarial inputs that containment
// withstood on a real tree: links to "/", to the root's parent, with many "..", chains,
// loops, links between the root and a worktree, links to files, dangling links, "." and
// ".." mixes, empty components, trailing separators, NUL bytes, a root that is itself a
// symlink (to the tree, and to "/"). wantReal is relative to the temp dir unless it starts
// with "/".
func TestContainmentAttackHeldOS(t *testing.T) {
	posixOnDisk(t)
	T := realTempDir(t)
	P, W := T+"/ws/proj", T+"/ws/wt"
	mkTree(t, T, "ws/proj/f.txt", "ws/proj/a/b/", "ws/proj/..cache/", "ws/wt/g.txt", "outside/secret",
		"ws/proj/toroot -> /", "ws/proj/toparent -> ..", "ws/proj/up -> "+strings.Repeat("../", 30),
		"ws/proj/c1 -> c2", "ws/proj/c2 -> c3", "ws/proj/c3 -> "+T+"/outside",
		"ws/proj/la -> lb", "ws/proj/lb -> la", "ws/proj/self -> self", "ws/proj/dot -> .",
		"ws/proj/towt -> ../wt", "ws/wt/toproj -> ../proj", "ws/wt/back -> "+P+"/a",
		"ws/proj/file -> f.txt", "ws/proj/dangle -> "+T+"/outside/new", "ws/proj/rel-dangle -> ../../outside/new2",
		"ws/proj/a/up2 -> ../..", "rootlink -> ws/proj", "slash -> /",
	)
	const (
		ok      = pathguard.Kind(0)
		outside = pathguard.KindOutside
		resolve = pathguard.KindResolve
	)
	tests := []struct {
		name     string
		root     string // "" means P
		target   string
		wantKind pathguard.Kind
		wantReal string
	}{
		{"link_to_slash", "", "toroot/etc/passwd", outside, "/etc/passwd"},
		{"link_to_parent_back_into_root", "", "toparent/proj/f.txt", ok, "ws/proj/f.txt"},
		{"link_to_parent_into_worktree", "", "toparent/wt/g.txt", ok, "ws/wt/g.txt"},
		{"link_to_parent_escape", "", "toparent/secret", outside, "ws/secret"},
		{"relative_link_30_dotdots", "", "up/etc/x", outside, "/etc/x"},
		{"relative_link_30_dotdots_itself", "", "up", outside, "/"},
		{"chain_of_three_leaving", "", "c1/secret", outside, "outside/secret"},
		{"loop_of_two", "", "la/x", resolve, ""},
		{"loop_of_one", "", "self", resolve, ""},
		{"dot_link_40_times", "", strings.Repeat("dot/", 40) + "f.txt", ok, "ws/proj/f.txt"},
		{"dot_link_41_times", "", strings.Repeat("dot/", 41) + "f.txt", resolve, ""},
		{"root_and_worktree_link_to_each_other", "", "towt/toproj/f.txt", ok, "ws/proj/f.txt"},
		{"worktree_link_then_dotdots_escape", "", "towt/back/../../outside/x", outside, "ws/outside/x"},
		{"dotdot_after_link_into_worktree", "", "towt/../proj/f.txt", ok, "ws/proj/f.txt"},
		{"dotdot_after_link_to_worktree_parent", "", "towt/..", outside, "ws"},
		{"trailing_slash_on_file", "", "f.txt/", ok, "ws/proj/f.txt"},
		{"empty_components_trailing_slash", "", "a//b/", ok, "ws/proj/a/b"},
		{"dot_slash", "", "./", ok, "ws/proj"},
		{"dot_dotdot_mix", "", "a/./../a/./b/..", ok, "ws/proj/a"},
		{"dotdot_alone", "", "..", outside, "ws"},
		{"dotdot_prefixed_name", "", "..cache/x", ok, "ws/proj/..cache/x"},
		{"link_to_file_then_dotdot", "", "file/../f.txt", ok, "ws/proj/f.txt"},
		{"dangling_absolute_link", "", "dangle", outside, "outside/new"},
		{"dangling_relative_link", "", "rel-dangle", outside, "outside/new2"},
		{"link_two_up_back_in", "", "a/up2/proj/f.txt", ok, "ws/proj/f.txt"},
		{"missing_then_dotdots_escape", "", "missing/../../outside", outside, "ws/outside"},
		{"missing_then_dotdot_back", "", "missing/../f.txt", ok, "ws/proj/f.txt"},
		{"absolute_doubled_slashes", "", "//" + P + "//f.txt", ok, "ws/proj/f.txt"},
		{"absolute_dotdot_through_link", "", P + "/toparent/../x", outside, "x"},
		{"backslashes_are_names", "", `a\..\..\x`, ok, `ws/proj/a\..\..\x`},
		{"nul_byte", "", "a\x00/../../etc", resolve, ""},
		{"empty", "", "", resolve, ""},
		{"root_is_symlink_relative", T + "/rootlink", "f.txt", ok, "ws/proj/f.txt"},
		// Abs must lie in a base as configured: the root's real spelling is not a base.
		{"root_is_symlink_real_spelling", T + "/rootlink", P + "/f.txt", outside, "ws/proj/f.txt"},
		{"root_is_symlink_dotdot", T + "/rootlink", "../secret", outside, "ws/secret"},
		// A root that is a link to "/" would contain everything: it is not a base.
		{"root_symlink_to_slash", T + "/slash", "etc/x", resolve, ""},
		{"root_symlink_to_slash_dotdot", T + "/slash", "../x", outside, "/x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := tc.root
			if root == "" {
				root = P
			}
			c, err := pathguard.NewContainment(root, pathguard.WithPathFlavor(pathguard.POSIX("/")),
				pathguard.WithWorktrees(W), pathguard.WithCaseFold(false))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%q) = %+v, kind %v (%v), want %v", tc.target, got, k, err, tc.wantKind)
			}
			want := tc.wantReal
			if want != "" && want[0] != '/' {
				want = T + "/" + want
			}
			if want != "" && got.Real != want {
				t.Errorf("Real = %q, want %q", got.Real, want)
			}
		})
	}
}

// TestContainmentRootReplacedBetweenChecks: the root's real path is kept after the first
// check; repointing the root (a symlink) at "/" afterwards must not let targets follow it
// out, since every check walks the target afresh.
func TestContainmentRootReplacedBetweenChecks(t *testing.T) {
	posixOnDisk(t)
	T := realTempDir(t)
	mkTree(t, T, "proj/f.txt", "rootlink -> proj")
	c, err := pathguard.NewContainment(T+"/rootlink", pathguard.WithPathFlavor(pathguard.POSIX("/")), pathguard.WithCaseFold(false))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Check("f.txt"); err != nil || got.Real != T+"/proj/f.txt" {
		t.Fatalf("before: %+v, %v", got, err)
	}
	if err := os.Remove(T + "/rootlink"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", T+"/rootlink"); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"etc/passwd", T + "/rootlink/etc/passwd", "tmp"} {
		if got, err := c.Check(target); !errors.Is(err, pathguard.ErrOutside) {
			t.Errorf("after repointing the root at /: Check(%q) = %+v, %v; want outside", target, got, err)
		}
	}
}

// TestContainmentConcurrentRootAppears shares one Containment between goroutines while its
// root is created: each check is refused (root missing) or allowed for the inside target,
// and the outside target is never allowed (run with -race).
func TestContainmentConcurrentRootAppears(t *testing.T) {
	posixOnDisk(t)
	T := realTempDir(t)
	P := T + "/proj"
	c, err := pathguard.NewContainment(P, pathguard.WithPathFlavor(pathguard.POSIX("/")), pathguard.WithCaseFold(false))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var bad atomic.Int64
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if _, err := c.Check("a/x"); err != nil && !errors.Is(err, pathguard.ErrResolve) {
					bad.Add(1)
				}
				if _, err := c.Check("../x"); err == nil {
					bad.Add(1)
				}
			}
		})
	}
	if err := os.Mkdir(P, 0o755); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Errorf("%d checks answered wrongly while the root appeared", n)
	}
	if got, err := c.Check("a/x"); err != nil || got.Real != P+"/a/x" {
		t.Errorf("after the root exists: %+v, %v", got, err)
	}
}

// TestContainmentAttackHeldWindows keeps, as regressions, Windows-flavour inputs that
// containment withstood (fake resolver, so it runs on every OS): device and verbatim
// prefixes, UNC paths, drive-relative paths, alternate streams, device names hidden behind
// "..", links to other drives, rooted, drive-relative, UNC and verbatim link targets, and
// an 8.3 short name, which can only alias an entry of the directory it is in.
func TestContainmentAttackHeldWindows(t *testing.T) {
	win := pathguard.Windows(`C:\proc`, nil)
	res := newFakeFS(win, true, map[string]fakeNode{
		`D:\`: {dir: true}, `D:\work`: {dir: true}, `D:\work\sub`: {dir: true}, `D:\other`: {dir: true},
		`D:\work\out`: {link: `D:\other`}, `D:\work\rooted`: {link: `\other`}, `D:\work\drel`: {link: `D:other`},
		`D:\work\unc`: {link: `\\srv\sh\work`}, `D:\work\verbatim`: {link: `\\?\D:\other`}, `D:\work\device`: {link: `\\.\D:\other`},
		`D:\work\back`: {link: `..\work\sub`},
	})
	const (
		ok      = pathguard.Kind(0)
		outside = pathguard.KindOutside
		resolve = pathguard.KindResolve
	)
	tests := []struct {
		name     string
		target   string
		wantKind pathguard.Kind
		wantReal string
	}{
		{"verbatim_drive", `\\?\D:\work\x`, ok, `D:\work\x`},
		{"verbatim_drive_lower_case", `\\?\d:\WORK\sub\x`, ok, `D:\work\sub\x`},
		{"device_drive", `\\.\D:\work\x`, ok, `D:\work\x`},
		{"verbatim_forward_slashes", `//?/D:/work/x`, ok, `D:\work\x`},
		{"verbatim_drive_outside", `\\?\D:\other\x`, outside, `D:\other\x`},
		{"verbatim_dotdot_is_a_name", `\\?\D:\work\sub\..\x`, resolve, ""},
		{"verbatim_dot_is_a_name", `\\?\D:\work\.\x`, resolve, ""},
		{"device_dotdot_applied", `\\.\D:\work\sub\..\x`, ok, `D:\work\x`},
		{"verbatim_trailing_dot", `\\?\D:\work\x.`, resolve, ""},
		{"verbatim_device_name", `\\?\D:\work\nul`, resolve, ""},
		{"verbatim_volume_device", `\\?\D:`, resolve, ""},
		{"verbatim_unc_lower_case", `\\?\unc\srv\sh\work\x`, outside, `\\srv\sh\work\x`},
		{"verbatim_unc", `\\?\UNC\srv\sh\work\x`, outside, ""},
		{"verbatim_bare", `\\?\x`, outside, ""},
		{"unc_other_share", `\\srv\sh\work\x`, outside, ""},
		{"unc_dotdot_above_share", `\\srv\sh\work\..\..\x`, outside, ""},
		{"unc_dotdot_as_share", `\\srv\..\work\x`, outside, ""},
		{"drive_relative", `D:x`, resolve, ""},
		{"drive_relative_bare", `d:`, resolve, ""},
		{"stream_on_drive_letter_name", `x::$DATA`, resolve, ""},
		{"stream_mid_path", `sub\f.txt::$DATA\..\y`, resolve, ""},
		{"device_name_behind_dotdot", `con\..\x`, resolve, ""},
		{"device_namespace_con", `\\.\con`, resolve, ""},
		{"device_conin", `sub\CONIN$`, resolve, ""},
		{"device_superscript_digit", `COM¹`, resolve, ""},
		{"three_dots", `...`, resolve, ""},
		{"short_name_inside", `PROGRA~1\x`, ok, `D:\work\PROGRA~1\x`},
		{"dotdot_escape", `sub\..\..\x`, outside, `D:\x`},
		{"dotdot_back_in", `sub\..\..\work\x`, ok, `D:\work\x`},
		{"rooted_takes_root_drive", `\work\x`, ok, `D:\work\x`},
		{"forward_slashes", `D:/work/sub/x`, ok, `D:\work\sub\x`},
		{"two_separators_only", `\\`, outside, `D:\`},
		{"slash", `/`, outside, `D:\`},
		{"link_absolute_out", `out\x`, outside, `D:\other\x`},
		{"link_rooted_out", `rooted\x`, outside, `D:\other\x`},
		{"link_drive_relative_out", `drel\x`, outside, `D:\other\x`},
		{"link_unc_out", `unc\x`, outside, `\\srv\sh\work\x`},
		{"link_verbatim_out", `verbatim\x`, outside, `D:\other\x`},
		{"link_device_out", `device\x`, outside, `D:\other\x`},
		{"link_relative_back_in", `back\x`, ok, `D:\work\sub\x`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := pathguard.NewContainment(`D:\work`, pathguard.WithPathFlavor(win), pathguard.WithResolver(res))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%q) = %+v, kind %v (%v), want %v", tc.target, got, k, err, tc.wantKind)
			}
			if tc.wantReal != "" && got.Real != tc.wantReal {
				t.Errorf("Real = %q, want %q", got.Real, tc.wantReal)
			}
		})
	}
}

// TestContainmentAttackHeldUnicodeCase keeps the Unicode case variants that must not
// fold into a base's name: Kelvin sign for "k", dotted capital I for "i", long s for "s",
// sharp s for "ss", final sigma for sigma. The fake volume folds with strings.ToLower,
// wider than NTFS, so the refusals come from the package, not from the resolver. ASCII
// and capital sigma variants do fold (the volume stores them as one entry).
func TestContainmentAttackHeldUnicodeCase(t *testing.T) {
	win := pathguard.Windows(`C:\proc`, nil)
	posix := pathguard.POSIX("/")
	winFS := newFakeFS(win, true, map[string]fakeNode{`D:\`: {dir: true}, `D:\kiss`: {dir: true}, `D:\σ`: {dir: true}})
	ciFS := newFakeFS(posix, true, map[string]fakeNode{"/": {dir: true}, "/kiss": {dir: true}, "/σ": {dir: true}})
	for _, tc := range []struct {
		name     string
		flavor   pathguard.Flavor
		res      pathguard.Resolver
		root     string
		target   string
		wantReal string // "" means outside
	}{
		{"windows_kelvin", win, winFS, `D:\kiss`, `D:\` + "\u212A" + `iss\x`, ""},
		{"windows_dotted_capital_i", win, winFS, `D:\kiss`, `D:\k` + "\u0130" + `ss\x`, ""},
		{"windows_long_s", win, winFS, `D:\kiss`, `D:\ki` + "\u017F" + `s\x`, ""},
		{"windows_sharp_s", win, winFS, `D:\kiss`, `D:\ki` + "\u00DF" + `\x`, ""},
		{"windows_final_sigma", win, winFS, `D:\σ`, `D:\ς\x`, ""},
		{"windows_ascii_upper", win, winFS, `D:\kiss`, `D:\KISS\x`, `D:\kiss\x`},
		{"windows_capital_sigma", win, winFS, `D:\σ`, `D:\Σ\x`, `D:\σ\x`},
		{"posix_kelvin", posix, ciFS, "/kiss", "/\u212Aiss/x", ""},
		{"posix_long_s", posix, ciFS, "/kiss", "/ki\u017Fs/x", ""},
		{"posix_sharp_s", posix, ciFS, "/kiss", "/ki\u00DF/x", ""},
		{"posix_final_sigma", posix, ciFS, "/σ", "/ς/x", ""},
		{"posix_ascii_upper", posix, ciFS, "/kiss", "/KiSS/x", "/kiss/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := pathguard.NewContainment(tc.root, pathguard.WithPathFlavor(tc.flavor), pathguard.WithResolver(tc.res), pathguard.WithCaseFold(true))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if tc.wantReal == "" {
				if !errors.Is(err, pathguard.ErrOutside) {
					t.Errorf("Check(%q) = %+v, %v; want outside", tc.target, got, err)
				}
				return
			}
			if err != nil || got.Real != tc.wantReal {
				t.Errorf("Check(%q) = %+v, %v; want Real %q", tc.target, got, err, tc.wantReal)
			}
		})
	}
}

// TestPropFoldCaseSensitiveVolume: on a case-sensitive volume every name is its own
// entry, so folding has nothing to add: over random trees whose names differ only in case
// (directories and links, some into the root, some into a worktree, some out), Check with
// WithCaseFold(true) gives exactly the verdict, Real and Rel of WithCaseFold(false). A
// folded match that the volume does not confirm would show up as a difference.
func TestPropFoldCaseSensitiveVolume(t *testing.T) {
	posix := pathguard.POSIX("/")
	names := []string{"src", "SRC", "Src", "sub", "SUB", "wt", "WT", "x"}
	linkDests := []string{"src", "src/sub", "/ws/src", "/ws/wt", "wt", "..", "../out", "/out", "SRC", "sub"}
	rapid.Check(t, func(t *rapid.T) {
		nodes := map[string]fakeNode{"/": {dir: true}, "/ws": {dir: true}, "/ws/src": {dir: true}, "/ws/wt": {dir: true}, "/out": {dir: true}}
		for i := range rapid.IntRange(0, 6).Draw(t, "nentries") {
			dir := rapid.SampledFrom([]string{"/ws", "/ws/src", "/ws/wt"}).Draw(t, fmt.Sprint("dir", i))
			name := rapid.SampledFrom(names).Draw(t, fmt.Sprint("name", i))
			p := dir + "/" + name
			if _, ok := nodes[p]; ok {
				continue
			}
			if rapid.Bool().Draw(t, fmt.Sprint("isLink", i)) {
				nodes[p] = fakeNode{link: rapid.SampledFrom(linkDests).Draw(t, fmt.Sprint("dest", i))}
			} else {
				nodes[p] = fakeNode{dir: true}
			}
		}
		res := newFakeFS(posix, false, nodes)
		check := func(fold bool, target string) (pathguard.Target, pathguard.Kind) {
			c, err := pathguard.NewContainment("/ws/src", pathguard.WithPathFlavor(posix), pathguard.WithResolver(res),
				pathguard.WithWorktrees("/ws/wt"), pathguard.WithCaseFold(fold))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(target)
			var pe *pathguard.Error
			if err != nil && !errors.As(err, &pe) {
				t.Fatalf("Check(%q): %v is not a *pathguard.Error", target, err)
			}
			if pe == nil {
				return got, 0
			}
			return got, pe.Kind
		}
		segs := rapid.SliceOfN(rapid.SampledFrom(append([]string{"..", "."}, names...)), 1, 4).Draw(t, "segs")
		target := strings.Join(segs, "/")
		if rapid.Bool().Draw(t, "absolute") {
			target = "/ws/" + target
		}
		off, koff := check(false, target)
		on, kon := check(true, target)
		if kon != koff || on.Real != off.Real || on.Rel != off.Rel {
			t.Fatalf("Check(%q) with folding: %+v kind %v; without: %+v kind %v", target, on, kon, off, koff)
		}
	})
}

// TestContainmentBaseResolvingToVolumeRoot attacks the rule that a file-system root is
// never a base ("/" or "C:\" as a worktree is ignored, since it would contain every
// path). A worktree, or a root, that is a symlink to "/" (or becomes one while it is
// missing, since a missing base is retried) must not be a base either: otherwise every
// link out of the root lands "inside" it.
func TestContainmentBaseResolvingToVolumeRoot(t *testing.T) {
	posixOnDisk(t)
	posix := pathguard.POSIX("/")
	t.Run("worktree_symlink_to_slash", func(t *testing.T) {
		T := realTempDir(t)
		mkTree(t, T, "proj/f.txt", "outside/", "proj/out -> "+T+"/outside", "wt -> /")
		c, err := pathguard.NewContainment(T+"/proj", pathguard.WithPathFlavor(posix), pathguard.WithWorktrees(T+"/wt"), pathguard.WithCaseFold(false))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			target string
			want   pathguard.Kind
		}{
			{"out/x", pathguard.KindOutside},
			{T + "/wt/etc/passwd", pathguard.KindResolve},
			{"f.txt", 0},
		} {
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.want {
				t.Errorf("Check(%q) = %+v, kind %v (%v), want %v", tc.target, got, k, err, tc.want)
			}
			if tc.want == pathguard.KindResolve && err != nil && !strings.Contains(err.Error(), T+"/wt") {
				t.Errorf("message %q does not name the worktree", err)
			}
		}
	})
	t.Run("root_created_as_symlink_to_slash", func(t *testing.T) {
		T := realTempDir(t)
		c, err := pathguard.NewContainment(T+"/proj", pathguard.WithPathFlavor(posix), pathguard.WithCaseFold(false))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Check("etc/passwd"); !errors.Is(err, pathguard.ErrResolve) {
			t.Fatalf("root missing: %v, want ErrResolve", err)
		}
		mkTree(t, T, "proj -> /")
		if got, err := c.Check("etc/passwd"); !errors.Is(err, pathguard.ErrResolve) {
			t.Errorf("root now a link to /: Check = %+v, %v; want ErrResolve", got, err)
		}
	})
	t.Run("windows_worktree_link_to_drive_root", func(t *testing.T) {
		win := pathguard.Windows(`C:\proc`, nil)
		res := newFakeFS(win, true, map[string]fakeNode{`D:\`: {dir: true}, `D:\work`: {dir: true}, `D:\wt`: {link: `D:\`}, `D:\work\out`: {link: `D:\secret`}})
		c, err := pathguard.NewContainment(`D:\work`, pathguard.WithPathFlavor(win), pathguard.WithResolver(res), pathguard.WithWorktrees(`D:\wt`))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.Check(`out\x`); !errors.Is(err, pathguard.ErrOutside) {
			t.Errorf(`Check("out\x") = %+v, %v; want outside`, got, err)
		}
		if got, err := c.Check(`D:\wt\Windows\x`); !errors.Is(err, pathguard.ErrResolve) {
			t.Errorf(`Check("D:\wt\Windows\x") = %+v, %v; want ErrResolve`, got, err)
		}
	})
}

// BenchmarkContainmentDegenerate measures Check on degenerate inputs at the limits:
// separators only, ".." and "." runs, a zig-zag of names and "..", the same behind 40 "."
// links, and Windows-flavour runs of separators, near-device names and multi-byte runes.
// None may cost more than a linear pass (fake resolvers: only the package is measured).
func BenchmarkContainmentDegenerate(b *testing.B) {
	posix := pathguard.POSIX("/")
	win := pathguard.Windows(`C:\`, nil)
	pc, err := pathguard.NewContainment("/ws", pathguard.WithPathFlavor(posix), pathguard.WithCaseFold(false),
		pathguard.WithResolver(newFakeFS(posix, false, map[string]fakeNode{
			"/": {dir: true}, "/ws": {dir: true}, "/ws/a": {dir: true}, "/ws/b": {dir: true}, "/ws/d": {link: "."},
		})))
	if err != nil {
		b.Fatal(err)
	}
	wc, err := pathguard.NewContainment(`D:\ws`, pathguard.WithPathFlavor(win),
		pathguard.WithResolver(newFakeFS(win, true, map[string]fakeNode{`D:\`: {dir: true}, `D:\ws`: {dir: true}})))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		c      *pathguard.Containment
		target string
	}{
		{"posix-separators-4096", pc, strings.Repeat("/", 4096)},
		{"posix-dotdot-1024", pc, strings.Repeat("../", 1023) + ".."},
		{"posix-dot-1024", pc, strings.Repeat("./", 1024)},
		{"posix-zigzag-1024", pc, strings.Repeat("a/../b/../", 256)},
		{"posix-40-dot-links-zigzag", pc, strings.Repeat("d/", 40) + strings.Repeat("a/../b/../", 246)},
		{"windows-separators-4096", wc, strings.Repeat(`\`, 4096)},
		{"windows-near-devices-819", wc, strings.Repeat(`con1\`, 819)},
		{"windows-long-s-2048", wc, strings.Repeat("ſ", 2048)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = bc.c.Check(bc.target)
			}
		})
	}
}
