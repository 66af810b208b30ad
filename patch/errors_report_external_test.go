package patch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// TestPairingCoversEveryOldLine: ChunkReport.Pairing has one entry per old line of the chunk
// as written (context and removed lines, in order), also when Codex's trailing-blank retry
// dropped the final blank context line from the old side: that line is unpaired (0).
func TestPairingCoversEveryOldLine(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		body  string
		opts  []patch.Option
		want  []int
		blank bool
	}{
		{name: "exact", file: "a\nb\n", body: "@@\n a\n-b\n+B\n", want: []int{1, 2}},
		{name: "blank_retry_replacement", file: "a\nb\n", body: "@@\n a\n-b\n+B\n \n", want: []int{1, 2, 0}, blank: true},
		{name: "blank_retry_whole_file", file: "func f() {\n", body: "@@\n-func f() {\n+\tchanged()\n \n", want: []int{1, 0}, blank: true},
		{name: "blank_retry_compat", file: "a\nb\n", body: "@@\n a\n-b\n+B\n \n", opts: []patch.Option{patch.WithCodexCompat()}, want: []int{1, 2, 0}, blank: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, map[string]string{"f.txt": tc.file})
			a, err := patch.New(m, apRoot, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Apply(context.Background(), "*** Begin Patch\n*** Update File: f.txt\n"+tc.body+"*** End Patch\n")
			if err != nil {
				t.Fatal(err)
			}
			r := res.Report[0]
			if r.BlankRetry != tc.blank {
				t.Errorf("BlankRetry = %v, want %v", r.BlankRetry, tc.blank)
			}
			if len(r.Pairing) != len(tc.want) {
				t.Fatalf("Pairing = %v (%d entries), want %v: one per old line", r.Pairing, len(r.Pairing), tc.want)
			}
			for i := range tc.want {
				if r.Pairing[i] != tc.want[i] {
					t.Fatalf("Pairing = %v, want %v", r.Pairing, tc.want)
				}
			}
		})
	}
}

// TestParseErrorQuoteBounded: a parse error quotes the offending patch line cut after about
// 240 bytes, as every other message does, so a 100,000-byte line cannot make a 100 KB
// message.
func TestParseErrorQuoteBounded(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	tests := []struct {
		name string
		body []string
		want string // the start of the quoted line, kept
	}{
		{name: "invalid_hunk_header", body: []string{"*** Frob File: " + long}, want: "'*** Frob File: aaaa"},
		{name: "update_without_marker", body: []string{"*** Update File: f.txt", "@@", "-x", "+y", long}, want: "got: 'aaaa"},
		{name: "unexpected_line_in_chunk", body: []string{"*** Update File: f.txt", "@@", "?" + long}, want: "update hunk: '?aaaa"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := patch.Parse(apText(tc.body...))
			if !errors.Is(err, patch.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			msg := err.Error()
			if len(msg) > 600 || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "more bytes)") {
				t.Errorf("message of %d bytes (want at most 600, quoting the line's start %q and a count of the rest):\n%.400s", len(msg), tc.want, msg)
			}
		})
	}
}

// TestLCSRefusalSaysWhy: when the LCS rescue refuses because the added lines would go on a
// guessed side of file lines the patch does not show, the not-found message says so; it
// claims a removed line is missing only when one is (a chunk without removed lines has none
// to miss).
func TestLCSRefusalSaysWhy(t *testing.T) {
	tests := []struct {
		name, file string
		body       []string
		want       string
		absent     string
	}{
		{
			name: "insertion_beside_left_out_line", file: "a\nb\nx\nb\nc\n",
			body:   []string{"@@", " a", "+N", " b", " c"},
			want:   "where the added lines go",
			absent: "does not contain every removed line",
		},
		{
			name: "removed_line_missing", file: "func f() {\n  a := 1\n  b := 2\n  other()\n}\n",
			body: []string{"@@", " func f() {", "   a := 1", "   b := 2", "-  old()", "+  new()", " }"},
			want: "does not contain every removed line",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, map[string]string{"f.txt": tc.file})
			a, err := patch.New(m, apRoot, rescue(func(r *patch.RescueOptions) { r.PrefixSuffix = false }))
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Apply(context.Background(), apText(append([]string{"*** Update File: f.txt"}, tc.body...)...))
			if !errors.Is(err, patch.ErrNotFound) {
				t.Fatalf("err = %v, want not found", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || tc.absent != "" && strings.Contains(msg, tc.absent) {
				t.Errorf("message:\n%s\nwant it to contain %q and not %q", msg, tc.want, tc.absent)
			}
		})
	}
}

// TestNotFoundAboveCursorNamesClosestMatch: a chunk whose lines drifted and which comes after
// a chunk placed below it is sought above the previous chunk only at the ladder levels; the
// message names the closest match there and asks for file order, instead of saying only that
// nothing similar is below.
func TestNotFoundAboveCursorNamesClosestMatch(t *testing.T) {
	tests := []struct {
		name, file, body string
		want, not        string
	}{
		{
			name: "drifted_chunk_above_previous",
			file: "one\ntwo\nthree\nfour\nfive\nsix\n",
			body: "@@\n five\n-six\n+SIX\n@@\n one\n twoo\n-three\n+THREE\n four\n",
			want: "No similar lines found below file line 6, where the previous chunk ended; the closest match starts above, at file line 1; give the chunks in file order.",
		},
		{
			name: "nothing_similar_anywhere",
			file: "one\ntwo\nthree\nfour\nfive\nsix\n",
			body: "@@\n five\n-six\n+SIX\n@@\n alpha\n-beta\n+BETA\n",
			want: "No similar lines found in file lines 6-6.", not: "closest match",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": tc.file})
			a, err := patch.New(m, apRoot)
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Apply(context.Background(), apText("*** Update File: a.txt", strings.TrimSuffix(tc.body, "\n")))
			pe := apErr(err)
			if pe == nil || pe.Kind != patch.KindNotFound || pe.Chunk != 2 {
				t.Fatalf("err = %v, want KindNotFound in chunk 2", err)
			}
			if !strings.HasSuffix(pe.Msg, tc.want) || tc.not != "" && strings.Contains(pe.Msg, tc.not) {
				t.Errorf("message %q, want it to end with %q", pe.Msg, tc.want)
			}
			if got := apFiles(m)["a.txt"]; got != tc.file {
				t.Errorf("a.txt = %q, want it unchanged", got)
			}
		})
	}
}
