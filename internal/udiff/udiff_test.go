package udiff_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/udiff"
	"pgregory.net/rapid"
)

func TestDiffGolden(t *testing.T) {
	tests := []struct {
		name, before, after, want string
	}{
		{
			name:   "two hunks and a missing final newline",
			before: "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n",
			after:  "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl",
			want: "--- a/x.txt\n+++ b/x.txt\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n" +
				"@@ -9,3 +9,4 @@\n i\n j\n k\n+l\n\\ No newline at end of file\n",
		},
		{
			name:   "one line, both counts written",
			before: "x\n", after: "y\n",
			want: "--- a/x.txt\n+++ b/x.txt\n@@ -1,1 +1,1 @@\n-x\n+y\n",
		},
		{
			name:   "insertion into an empty file",
			before: "", after: "a\n",
			want: "--- a/x.txt\n+++ b/x.txt\n@@ -0,0 +1,1 @@\n+a\n",
		},
		{
			name:   "deletion of everything",
			before: "a\nb\n", after: "",
			want: "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +0,0 @@\n-a\n-b\n",
		},
		{
			name:   "changes six lines apart share a hunk",
			before: "1\n2\n3\n4\n5\n6\n7\n8\n", after: "X\n2\n3\n4\n5\n6\n7\nY\n",
			want: "--- a/x.txt\n+++ b/x.txt\n@@ -1,8 +1,8 @@\n-1\n+X\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+Y\n",
		},
		{
			name:   "only the final newline differs",
			before: "a\nb", after: "a\nb\n",
			want: "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{name: "equal", before: "a\n", after: "a\n", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := udiff.Diff("x.txt", []byte(tc.before), []byte(tc.after))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if got != "" {
				if out, err := apply(tc.before, got); err != nil || out != tc.after {
					t.Errorf("apply: %q, %v", out, err)
				}
			}
		})
	}
}

// TestWriteGivenChanges renders changes a caller computed (as astsearch does from its edit
// list), including one that replaces lines with equal text and two that touch.
func TestWriteGivenChanges(t *testing.T) {
	old := udiff.Lines("a\nb\nc\n")
	got := udiff.Write("f", old, []udiff.Change{{A: 0, B: 1, New: []string{"a\n"}}, {A: 1, B: 2, New: []string{"B\n", "B2\n"}}})
	want := "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n-a\n+a\n-b\n+B\n+B2\n c\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if udiff.Write("f", old, nil) != "" {
		t.Error("no changes should render nothing")
	}
}

func TestCount(t *testing.T) {
	d := udiff.Diff("f", []byte("a\nb\nc\n"), []byte("a\nB\nc\nd\n"))
	if a, r := udiff.Count(d); a != 2 || r != 1 {
		t.Errorf("Count = +%d -%d, want +2 -1\n%s", a, r, d)
	}
	// A removed line that itself starts with "--" is counted, the file header is not.
	d = udiff.Diff("f", []byte("-- x\n"), []byte("++ y\n"))
	if a, r := udiff.Count(d); a != 1 || r != 1 {
		t.Errorf("Count = +%d -%d, want +1 -1\n%s", a, r, d)
	}
}

// TestBoundedDistance: past MaxEditDistance the middle is one replaced block, still exact.
func TestBoundedDistance(t *testing.T) {
	var a, b strings.Builder
	for i := range udiff.MaxEditDistance + 500 {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	a.WriteString("same\n")
	b.WriteString("same\n")
	d := udiff.Diff("f", []byte(a.String()), []byte(b.String()))
	if out, err := apply(a.String(), d); err != nil || out != b.String() {
		t.Fatalf("apply failed: %v", err)
	}
}

// text draws a text from a small alphabet of lines, so that diffs mix matches and changes,
// with or without a final newline.
func text(t *rapid.T, label string) string {
	ls := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "c", "", "  d", "-x", "+y", `\ z`, "a\r"}), 0, 30).Draw(t, label)
	s := strings.Join(ls, "\n")
	if len(ls) > 0 && rapid.Bool().Draw(t, label+" final newline") {
		s += "\n"
	}
	return s
}

// roundTrip is the property: the diff applied strictly to before gives after, its headers
// count exactly the lines of their hunks, and it changes no more lines than a longest common
// subsequence leaves (the diff is minimal).
func roundTrip(t *rapid.T) {
	before, after := text(t, "before"), text(t, "after")
	d := udiff.Diff("f", []byte(before), []byte(after))
	if (d == "") != (before == after) {
		t.Fatalf("empty diff %v for equal %v", d == "", before == after)
	}
	out, err := apply(before, d)
	if err != nil || out != after {
		t.Fatalf("apply: err %v, got %q, want %q\n%s", err, out, after, d)
	}
	a, b := udiff.Lines(before), udiff.Lines(after)
	added, removed := udiff.Count(d)
	if l := lcs(a, b); added != len(b)-l || removed != len(a)-l {
		t.Fatalf("not minimal: +%d -%d, lcs %d of %d and %d\n%s", added, removed, l, len(a), len(b), d)
	}
}

func TestRoundTrip(t *testing.T) { t.Run("p", rapid.MakeCheck(roundTrip)) }

// FuzzRoundTrip runs the same property under go test -fuzz.
func FuzzRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(roundTrip)) }

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// apply applies a unified diff strictly: by line numbers, with every context and removed
// line matching, the counts of each hunk header checked, "\ No newline at end of file"
// honoured.
func apply(before, diff string) (string, error) {
	old := udiff.Lines(before)
	var out []string
	next := 0 // index in old of the next line not yet copied
	lines := udiff.Lines(diff)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- a/") || !strings.HasPrefix(lines[1], "+++ b/") {
		if diff == "" {
			return before, nil
		}
		return "", fmt.Errorf("no file headers")
	}
	lines = lines[2:]
	for i := 0; i < len(lines); {
		var os, on, ns, nn int
		if _, err := fmt.Sscanf(lines[i], "@@ -%d,%d +%d,%d @@\n", &os, &on, &ns, &nn); err != nil {
			return "", fmt.Errorf("bad hunk header %q: %v", lines[i], err)
		}
		i++
		start := os
		if on > 0 {
			start--
		}
		if start < next || start > len(old) {
			return "", fmt.Errorf("hunk %d goes backwards or past the end", os)
		}
		out = append(out, old[next:start]...)
		if wantNS := len(out) + 1; nn > 0 && ns != wantNS || nn == 0 && ns != len(out) {
			return "", fmt.Errorf("hunk new start %d, want %s", ns, strconv.Itoa(wantNS))
		}
		next = start
		gotO, gotN := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@ ") {
			l := lines[i]
			body := l[1:]
			i++
			if i < len(lines) && lines[i] == "\\ No newline at end of file\n" {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if next >= len(old) || old[next] != body {
					return "", fmt.Errorf("line %d: want %q", next+1, body)
				}
				next++
				gotO++
				if l[0] == ' ' {
					out = append(out, body)
					gotN++
				}
			case '+':
				out = append(out, body)
				gotN++
			default:
				return "", fmt.Errorf("bad diff line %q", l)
			}
		}
		if gotO != on || gotN != nn {
			return "", fmt.Errorf("hunk counts -%d +%d, lines -%d +%d", on, nn, gotO, gotN)
		}
	}
	out = append(out, old[next:]...)
	return strings.Join(out, ""), nil
}
