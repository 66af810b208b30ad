package tools

import (
	"strings"
	"testing"
)

// TestBound: the last guard on every result keeps it within MaxOutputBytes, cut at a line,
// and says so; shorter texts pass untouched. Tested at N-1, N and N+1 bytes.
func TestBound(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	for _, tc := range []struct {
		name string
		n    int
		cut  bool
	}{
		{name: "N-1", n: MaxOutputBytes - 1},
		{name: "N", n: MaxOutputBytes},
		{name: "N+1", n: MaxOutputBytes + 1, cut: true},
		{name: "10N", n: 10 * MaxOutputBytes, cut: true},
		{name: "one_long_line", n: 3 * MaxOutputBytes, cut: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Repeat(line, tc.n/len(line)+1)[:tc.n]
			if tc.name == "one_long_line" {
				text = strings.Repeat("é", tc.n/2)
			}
			got := bound(text)
			if !tc.cut {
				if got != text {
					t.Fatalf("a %d-byte text was changed", tc.n)
				}
				return
			}
			if len(got) > MaxOutputBytes || !strings.Contains(got, "(output cut: the first ") || !strings.HasPrefix(text, strings.TrimSuffix(got[:strings.LastIndex(got, "\n…")], "")) {
				t.Fatalf("%d bytes in, %d out, tail %q", tc.n, len(got), got[max(0, len(got)-120):])
			}
			if !strings.Contains(got, "é") && tc.name == "one_long_line" {
				t.Fatal("the long line was dropped entirely")
			}
		})
	}
}
