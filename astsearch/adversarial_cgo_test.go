//go:build cgo

package astsearch

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// deepParens is a JavaScript statement n parentheses deep, and the pattern of the same depth:
// matching it is quadratic (each of the n candidates is compared down to the bottom).
func deepParens(n int) (src, pattern string) {
	return "x = " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + ";\n",
		strings.Repeat("(", n) + "$A" + strings.Repeat(")", n)
}

// Matching inside one file obeys the timeout and the caller's cancellation: a pattern and a
// source 10,000 parentheses deep take about half a minute to match (quadratic), and Search
// must give up within a second of the deadline (the limit below leaves room for compiling
// the pattern on a loaded machine).
func TestMatchingHonoursTimeoutAndCancel(t *testing.T) {
	src, pattern := deepParens(10_000)
	fsys := mapFS(map[string]string{"a.js": src})
	within := func(t *testing.T, limit time.Duration, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(limit):
			t.Fatalf("still matching after %v", limit)
		}
	}
	t.Run("timeout", func(t *testing.T) {
		var r *Result
		var err error
		within(t, 12*time.Second, func() {
			r, err = Search(context.Background(), fsys, Request{Pattern: pattern, Lang: JavaScript, Timeout: time.Second})
		})
		if err != nil || !r.Truncated || r.TruncatedReason != "timeout" {
			t.Errorf("result %+v, err %v; want a partial result cut by the timeout", r, err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		var err error
		within(t, 12*time.Second, func() {
			_, err = Search(ctx, fsys, Request{Pattern: pattern, Lang: JavaScript})
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v, want the caller's context error", err)
		}
	})
}

// Captures share the one copy of the file that the matches use: 600 nested matches whose
// captures are each a large part of a 90 KB file must not copy the file 600 times.
func TestCapturesShareTheFile(t *testing.T) {
	const depth = 600
	name := strings.Repeat("g", 150)
	src := strings.Repeat("f("+name+", ", depth) + "1" + strings.Repeat(")", depth) + ";\n"
	p, err := Compile("f($N, $A)", JavaScript)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ms, err := p.FindAll([]byte(src))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != depth {
		t.Fatalf("%d matches", len(ms))
	}
	got := (after.TotalAlloc - before.TotalAlloc) >> 20
	t.Logf("allocated %d MB", got)
	if got > 12 {
		t.Errorf("FindAll allocated %d MB for a %d KB file (captures copied per match)", got, len(src)>>10)
	}
}

// Past the match cap, matches are counted without keeping what was found: `$A` matches
// every named node of a file, and a 150 KB one-liner (150,000 of them) must not cost hundreds of
// bytes per node on top of its tree.
func TestMatchesPastTheCapAreOnlyCounted(t *testing.T) {
	src := "x = " + strings.Repeat("a+", 75_000) + "a;\n"
	fsys := mapFS(map[string]string{"a.js": src})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Search(context.Background(), fsys, Request{Pattern: "$A", Lang: JavaScript, Threads: 1})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalMatches < 150_000 || !r.Truncated {
		t.Fatalf("total %d, truncated %v", r.TotalMatches, r.Truncated)
	}
	got := (after.TotalAlloc - before.TotalAlloc) >> 20
	t.Logf("allocated %d MB for %d matches", got, r.TotalMatches)
	if got > 45 {
		t.Errorf("the search allocated %d MB for a %d KB file: matches past the cap are built or kept", got, len(src)>>10)
	}
}

// Degenerate sources (a UTF-8 BOM, CRLF, NUL bytes in a string, a file that is only a BOM)
// give the same JSON on the native backend as on ast-grep 0.51.1. Skipped without it.
func TestDegenerateSourcesMatchOracle(t *testing.T) {
	exe := astGrep(t)
	native, err := Native()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		lang     Lang
		pat, src string
	}{
		{name: "E26_bom_js_column_counts_bom", lang: JavaScript, pat: "console.log($A)", src: "\ufeffconsole.log(1);\n"},
		{name: "E26_bom_go_second_line", lang: Go, pat: "$A := $B", src: "\ufeffpackage p\nfunc f() { x := 1 }\n"},
		{name: "E24_crlf_after_bom_python", lang: Python, pat: "print($A)", src: "\ufeffprint(1)\r\nprint(2)\r\n"},
		{name: "E24_crlf_inside_raw_string_go", lang: Go, pat: "x := $B", src: "package p\nfunc f() {\n\tx := `a\r\nb`\n}\n"},
		{name: "nul_in_string_js", lang: JavaScript, pat: "console.log($A)", src: "console.log(\"a\x00b\");\n"},
		{name: "bom_only_file", lang: JavaScript, pat: "$A", src: "\ufeff"},
		{name: "lone_cr_line_breaks_js", lang: JavaScript, pat: "f($A)", src: "f(1);\rf(2);\r"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var outs [2]string
			for i, b := range []Backend{CLI(exe), native} {
				ms, err := b.Find(context.Background(), Query{Pattern: tc.pat, Lang: tc.lang}, []Source{{Path: "x", Data: []byte(tc.src)}})
				if err != nil {
					t.Fatalf("%s: %v", b.Name(), err)
				}
				js, _ := json.Marshal(ms[0])
				outs[i] = string(js)
			}
			if outs[0] != outs[1] || outs[0] == "null" {
				t.Errorf("ast-grep %s\n  native %s", outs[0], outs[1])
			}
		})
	}
}
