//go:build cgo

package astsearch

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestHeldManyMatchesOnOneLongLine: a one-line file where every node matches ($A) must
// cost memory in proportion to the file and the kept matches, not to matches × line
// length (once 64 KB took 2 GB of allocation and 7 s).
func TestHeldManyMatchesOnOneLongLine(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		pattern string
		total   int
	}{
		{name: "every_node_of_a_long_array", src: "x = [" + strings.Repeat("1,", 32000) + "1];\n", pattern: "$A", total: 32006},
		{name: "many_calls_on_one_line", src: strings.Repeat("f(1);", 20000) + "\n", pattern: "f($A)", total: 20000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			native, err := Native()
			if err != nil {
				t.Fatal(err)
			}
			fsys := mapFS(map[string]string{"a.js": tc.src})
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			r, err := Search(context.Background(), fsys, Request{Pattern: tc.pattern, Lang: JavaScript, Backend: native})
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			if r.TotalMatches != tc.total || !r.Truncated {
				t.Errorf("total %d truncated %v, want %d and truncated", r.TotalMatches, r.Truncated, tc.total)
			}
			if mb := (ms.TotalAlloc - before) >> 20; mb > 150 {
				t.Errorf("allocated %d MB for a %d-byte file", mb, len(tc.src))
			}
		})
	}
}
