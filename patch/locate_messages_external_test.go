package patch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// TestNotFoundMessageBounded checks that a chunk's lines are quoted in a bounded form: up to
// 12 lines in full (Codex's text), else the first and last 5 around a count, each line cut at
// about 240 bytes.
func TestNotFoundMessageBounded(t *testing.T) {
	chunk := func(n int) []string {
		body := []string{"*** Update File: a.txt", "@@"}
		for i := 1; i <= n; i++ {
			body = append(body, fmt.Sprintf("-gone %d", i))
		}
		return append(body, "+new")
	}
	long := strings.Repeat("é", 50_000) // 100,000 bytes of two-byte characters
	tests := []struct {
		name   string
		files  map[string]string
		patch  string
		want   []string // substrings of the message
		absent []string
		maxLen int
	}{
		{
			name: "ten_thousand_line_chunk", files: map[string]string{"a.txt": "keep\n"},
			patch: apText(chunk(10_000)...),
			want: []string{"Failed to find expected lines in a.txt:\ngone 1\ngone 2\ngone 3\ngone 4\ngone 5\n… 9990 more lines …\n" +
				"gone 9996\ngone 9997\ngone 9998\ngone 9999\ngone 10000\nNo similar lines found in file lines 1-1."},
			absent: []string{"gone 6\n", "gone 9995\n"},
			maxLen: 400,
		},
		{
			name: "twelve_lines_quoted_in_full", files: map[string]string{"a.txt": "keep\n"},
			patch:  apText(chunk(12)...),
			want:   []string{"a.txt:\ngone 1\ngone 2\ngone 3\ngone 4\ngone 5\ngone 6\ngone 7\ngone 8\ngone 9\ngone 10\ngone 11\ngone 12\nNo similar"},
			absent: []string{"more lines"},
			maxLen: 400,
		},
		{
			name: "thirteen_lines_bounded", files: map[string]string{"a.txt": "keep\n"},
			patch:  apText(chunk(13)...),
			want:   []string{"gone 5\n… 3 more lines …\ngone 9\n"},
			maxLen: 400,
		},
		{
			name: "long_line_cut_at_a_character", files: map[string]string{"a.txt": "keep\n"},
			patch:  apText("*** Update File: a.txt", "@@", "-"+long, "+new"),
			want:   []string{"a.txt:\n" + strings.Repeat("é", 120) + "… (99760 more bytes)\n"},
			maxLen: 400,
		},
		{
			name: "first_difference_lines_cut", files: map[string]string{"a.txt": "head\nfile " + long + "\n"},
			patch: apText("*** Update File: a.txt", "@@", " head", "-patch "+long, "+new"),
			want: []string{"Closest match starts at file line 1; first difference:\n  patch line 5: patch " + strings.Repeat("é", 117) + "… (99766 more bytes)\n" +
				"  file line 2: file " + strings.Repeat("é", 117) + "… (99766 more bytes)"},
			maxLen: 1200,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, tc.files)
			a, err := patch.New(m, apRoot)
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Apply(context.Background(), tc.patch)
			pe := apErr(err)
			if pe == nil || pe.Kind != patch.KindNotFound {
				t.Fatalf("err = %v, want not found", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(pe.Msg, w) {
					t.Errorf("message lacks %q:\n%s", w, pe.Msg)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(pe.Msg, w) {
					t.Errorf("message has %q:\n%s", w, pe.Msg)
				}
			}
			if len(pe.Msg) > tc.maxLen {
				t.Errorf("message is %d bytes, want at most %d", len(pe.Msg), tc.maxLen)
			}
		})
	}
}

// TestOverlapMessages checks that chunks whose lines overlap another chunk's window say so,
// with both chunks and their file lines, instead of "no similar lines".
func TestOverlapMessages(t *testing.T) {
	file := map[string]string{"a.txt": "a\nb\nc\nd\ne\nf\n"}
	compat := []patch.Option{patch.WithCodexCompat()}
	up := func(body ...string) string { return apText(append([]string{"*** Update File: a.txt"}, body...)...) }
	apRun(t, []apCase{
		{
			name: "out_of_order_overlapping_context", files: file,
			patch: up("@@", " c", "-d", "+D", "@@", " b", "-c", "+C"),
			kind:  patch.KindOverlap,
			msg: []string{"Overlapping patch chunks in a.txt: chunks 1 and 2: chunk 1 is at file lines 3-4 and chunk 2 at file lines 2-3; " +
				"give each line to one chunk only (merge the two chunks into one)"},
		},
		{
			name: "out_of_order_containing_the_other", files: file,
			patch: up("@@", " d", "-e", "+E", "@@", " a", "-b", "+B", " c", " d"),
			kind:  patch.KindOverlap,
			msg:   []string{"chunks 1 and 2: chunk 1 is at file lines 4-5 and chunk 2 at file lines 1-4;"},
		},
		{
			name: "out_of_order_one_line_window", files: file,
			patch: up("@@", "-e", "+E", "@@", " c", "-d", "+D", " e"),
			kind:  patch.KindOverlap,
			msg:   []string{"chunks 1 and 2: chunk 1 is at file line 5 and chunk 2 at file lines 3-5;"},
		},
		{
			name: "out_of_order_disjoint_is_applied", files: file,
			patch: up("@@", " d", "-e", "+E", "@@", " a", "-b", "+B"),
			want:  map[string]string{"a.txt": "a\nB\nc\nd\nE\nf\n"},
		},
		{
			name: "eof_window_overlapping_earlier_chunk", files: map[string]string{"a.txt": "a\nb\nc\n"},
			patch: up("@@", "-c", "+C", "@@", " b", "-c", "+D", "*** End of File"),
			kind:  patch.KindOverlap,
			msg:   []string{"chunks 1 and 2: chunk 1 is at file line 3 and chunk 2 at file lines 2-3;"},
		},
		{
			name: "compat_overlapping_not_found_says_overlap", files: file, opts: compat,
			patch: up("@@", " c", "-d", "+D", "@@", " b", "-c", "+C"),
			kind:  patch.KindNotFound,
			msg: []string{"Failed to find expected lines in a.txt:\nb\nc\nThe lines are at file lines 2-3, which overlap chunk 1 (at file lines 3-4); " +
				"give each line to one chunk only (merge the two chunks into one)."},
		},
		{
			name: "compat_out_of_order_not_found_says_order", files: file, opts: compat,
			patch: up("@@", " d", "-e", "+E", "@@", " a", "-b", "+B"),
			kind:  patch.KindNotFound,
			msg:   []string{"a\nb\nThe lines are at file lines 1-2, above file line 6 where the previous chunk ended; give the chunks in file order."},
		},
	})
}
