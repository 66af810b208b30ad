package pathguard_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
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
