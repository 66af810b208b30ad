package astsearch

import (
	"bytes"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// manyEdits is a file of n lines "x := f(i)\n" and one edit per line, replacing f by g.
func manyEdits(n int) ([]byte, []byte, []Edit) {
	var old, new bytes.Buffer
	var edits []Edit
	for range n {
		at := old.Len() + len("x := ")
		old.WriteString("x := f(i)\n")
		new.WriteString("x := g(i)\n")
		edits = append(edits, Edit{Start: at, End: at + 1, Replacement: "g"})
	}
	return old.Bytes(), new.Bytes(), edits
}

// BenchmarkUnifiedDiffManyEdits: a rewrite touching every line of a large file (a pattern
// such as an identifier matches thousands of times) must cost about the size of the diff.
func BenchmarkUnifiedDiffManyEdits(b *testing.B) {
	for _, n := range []int{1_000, 30_000} {
		old, new, edits := manyEdits(n)
		b.Run(itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				unifiedDiff("f.go", old, new, edits)
			}
		})
	}
}

// TestUnifiedDiffManyEdits: the diff of one edit per line is one hunk with every line
// removed and added.
func TestUnifiedDiffManyEdits(t *testing.T) {
	old, new, edits := manyEdits(500)
	d := unifiedDiff("f.go", old, new, edits)
	if got, want := strings.Count(d, "\n-x := f(i)"), 500; got != want {
		t.Fatalf("%d removed lines, want %d", got, want)
	}
	if got, want := strings.Count(d, "\n+x := g(i)"), 500; got != want {
		t.Fatalf("%d added lines, want %d", got, want)
	}
	if !strings.Contains(d, "@@ -1,500 +1,500 @@\n") {
		t.Fatalf("hunk header: %q", d[:min(len(d), 80)])
	}
}

// TestLineIndexCountsNewlines: lineIndex gives the number of '\n' before an offset, for
// texts with and without a final newline, at every offset.
func TestLineIndexCountsNewlines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := []byte(rapid.StringOf(rapid.SampledFrom([]rune("ab\n"))).Draw(t, "src"))
		idx := newLineIndex(src)
		for off := 0; off <= len(src); off++ {
			if got, want := idx.line(off), bytes.Count(src[:off], []byte{'\n'}); got != want {
				t.Fatalf("%q at %d: line %d, want %d", src, off, got, want)
			}
		}
	})
}

// TestUnifiedDiffNoEdits: no edits, no diff (not a header without hunks): the one diff
// writer decides, as for format's and patch's diffs.
func TestUnifiedDiffNoEdits(t *testing.T) {
	if d := unifiedDiff("f.go", []byte("a\n"), []byte("a\n"), nil); d != "" {
		t.Errorf("unifiedDiff with no edits = %q, want \"\"", d)
	}
}
