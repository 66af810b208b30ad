package tools

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// naiveGrep is the model: split into lines, match each.
func naiveGrep(re *regexp.Regexp, data []byte) []lineMatch {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	var out []lineMatch
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if re.MatchString(l) {
			out = append(out, lineMatch{n: i + 1, text: cutLine(strings.TrimSuffix(l, "\r"))})
		}
	}
	return out
}

func TestGrepBytesTable(t *testing.T) {
	tests := []struct {
		name, pattern, data string
		want                []int
	}{
		{name: "literal", pattern: "b", data: "a\nb\nab\n", want: []int{2, 3}},
		{name: "no_trailing_newline", pattern: "c", data: "a\nc", want: []int{2}},
		{name: "anchors_per_line", pattern: "^x$", data: "x\nxx\nx\n", want: []int{1, 3}},
		{name: "empty_lines", pattern: "^$", data: "a\n\n\nb\n", want: []int{2, 3}},
		{name: "no_span_across_lines", pattern: `a\sb`, data: "a\nb\na b\n", want: []int{3}},
		{name: "negated_class_no_span", pattern: `a[^x]+b`, data: "a\nb\n", want: nil},
		{name: "crlf", pattern: `x$`, data: "x\r\nx\n", want: []int{2}},
		{name: "binary_skipped", pattern: "a", data: "a\x00a\n", want: nil},
		{name: "empty_file", pattern: "", data: "", want: nil},
		{name: "match_all", pattern: "", data: "a\nb", want: []int{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			re := regexp.MustCompile("(?m)" + tc.pattern)
			var got []int
			for _, m := range grepBytes(re, []byte(tc.data)) {
				got = append(got, m.n)
			}
			if !slicesEqual(got, tc.want) {
				t.Fatalf("lines %v, want %v", got, tc.want)
			}
		})
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGrepBytesProperty: the buffer-then-line search finds exactly the lines a line-by-line
// search finds.
func TestGrepBytesProperty(t *testing.T) {
	patterns := []string{"a", "ab", "^a", "b$", `a\s*b`, `[^a]b`, "a.b", `\bab\b`, "(?i)AB", "^$", `a\nb`, "a|b$", `\s`, `^\S+$`}
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(patterns).Draw(t, "pattern")
		data := rapid.StringOfN(rapid.SampledFrom([]rune{'a', 'b', ' ', '\n', '\r', 'x'}), 0, 60, -1).Draw(t, "data")
		re := regexp.MustCompile("(?m)" + p)
		got, want := grepBytes(re, []byte(data)), naiveGrep(re, []byte(data))
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	})
}

func FuzzGrepBytes(f *testing.F) {
	f.Add("a", "a\nb\nab\n")
	f.Add(`a\sb`, "a\nb\na b")
	f.Add("^$", "\n\n")
	f.Fuzz(func(t *testing.T, pattern, data string) {
		re, err := regexp.Compile("(?m)" + pattern)
		if err != nil || strings.Contains(pattern, `\z`) || strings.Contains(pattern, `\A`) {
			return // \A and \z mean "start/end of text": the buffer and the line differ
		}
		got, want := grepBytes(re, []byte(data)), naiveGrep(re, []byte(data))
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	})
}

// TestGrepLinesKeepProperty: searching in windows of any size finds the lines a
// line-by-line search finds; keeping the first keep lines keeps exactly a prefix of them,
// and counts them all.
func TestGrepLinesKeepProperty(t *testing.T) {
	patterns := []string{"a", "ab", "^a", "b$", "^$", `\s`, "", `a\s*b`, `\bab\b`, `^\S+$`, "a|b$"}
	rapid.Check(t, func(t *rapid.T) {
		re := regexp.MustCompile("(?m)" + rapid.SampledFrom(patterns).Draw(t, "pattern"))
		data := []byte(rapid.StringOfN(rapid.SampledFrom([]rune{'a', 'b', ' ', '\n'}), 0, 60, -1).Draw(t, "data"))
		keep := rapid.IntRange(0, 10).Draw(t, "keep")
		window := rapid.IntRange(0, 20).Draw(t, "window")
		all := naiveGrep(re, data)
		got, n, err := grepLines(context.Background(), re, data, keep, math.MaxInt, window)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(all) {
			t.Fatalf("count %d, want %d", n, len(all))
		}
		want := all[:min(keep, len(all))]
		if len(got) != len(want) {
			t.Fatalf("kept %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("kept %v, want %v", got, want)
			}
		}
	})
}
