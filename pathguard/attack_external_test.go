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
