//go:build cgo

package astsearch

import (
	"context"
	"errors"
	"fmt"
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
		maxM    int    // Request.MaxMatches
		kept    string // the texts kept, when set
	}{
		{name: "every_node_of_a_long_array", src: "x = [" + strings.Repeat("1,", 32000) + "1];\n", pattern: "$A", total: 32006},
		{name: "many_calls_on_one_line", src: strings.Repeat("f(1);", 20000) + "\n", pattern: "f($A)", total: 20000},
		{name: "cap_keeps_the_first_matches", src: "f(1);f(2);f(3);f(4);f(5);\n", pattern: "f($A)", total: 5, maxM: 3, kept: "f(1) f(2) f(3)"},
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
			r, err := Search(context.Background(), fsys, Request{Pattern: tc.pattern, Lang: JavaScript, Backend: native, MaxMatches: tc.maxM})
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			if r.TotalMatches != tc.total || !r.Truncated {
				t.Errorf("total %d truncated %v, want %d and truncated", r.TotalMatches, r.Truncated, tc.total)
			}
			var kept []string
			for _, m := range r.Matches {
				kept = append(kept, m.Text)
			}
			if tc.kept != "" && (strings.Join(kept, " ") != tc.kept || r.TruncatedReason != "max_matches") {
				t.Errorf("kept %q (%s), want %q (max_matches)", kept, r.TruncatedReason, tc.kept)
			}
			if mb := (ms.TotalAlloc - before) >> 20; mb > 150 {
				t.Errorf("allocated %d MB for a %d-byte file", mb, len(tc.src))
			}
		})
	}
}

// TestHeldLangNames: a language name that is not a Lang constant (an alias, other case)
// gives a result or an error, never neither.
func TestHeldLangNames(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": "f(1)\n", "a.go": "package p\n\nvar _ = f(1)\n"})
	tests := []struct {
		lang    Lang
		matches int // -1: an error wrapping ErrUnknownLang
	}{
		{"JS", 1}, {"Go", 1}, {" javascript ", 1}, {"klingon", -1}, {"", -1},
	}
	for _, tc := range tests {
		t.Run(string(tc.lang), func(t *testing.T) {
			if p, err := Compile("f(1)", tc.lang); (p == nil) == (err == nil) {
				t.Errorf("Compile: pattern %v, err %v", p, err)
			}
			r, err := Search(context.Background(), fsys, Request{Pattern: "f(1)", Lang: tc.lang})
			switch {
			case tc.matches < 0 && !errors.Is(err, ErrUnknownLang):
				t.Errorf("err = %v, want ErrUnknownLang", err)
			case tc.matches >= 0 && (err != nil || r == nil):
				t.Fatalf("result %v, err %v", r, err)
			case tc.matches >= 0 && r.TotalMatches != tc.matches:
				t.Errorf("%d matches, want %d", r.TotalMatches, tc.matches)
			}
		})
	}
}

// TestHeldBadPatterns: a pattern no source file can hold (not UTF-8, or with a NUL byte,
// which no command line can carry to ast-grep) is an error, not an empty result.
func TestHeldBadPatterns(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": "f(1)\n"})
	for _, pat := range []string{"\xff\xfe", "f(\xe9)", "f(\x00)", "\x00"} {
		t.Run(fmt.Sprintf("%q", pat), func(t *testing.T) {
			_, err := Search(context.Background(), fsys, Request{Pattern: pat, Lang: JavaScript})
			var pe *PatternError
			if !errors.Is(err, ErrBadPattern) || !errors.As(err, &pe) {
				t.Errorf("err = %v, want a *PatternError", err)
			}
		})
	}
}
