package fmtreport_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/fmtreport"
	"github.com/harnesskit/harnesskit/internal/udiff"
)

// prepend returns a formatter that adds n comment lines in front of the file.
func prepend(n int) fmtreport.Func {
	return func(_ context.Context, _ string, src []byte) ([]byte, string, error) {
		return []byte(strings.Repeat("//\n", n) + string(src)), "pre", nil
	}
}

func TestRun(t *testing.T) {
	src := []byte("a\nb\n")
	tests := []struct {
		name          string
		f             fmtreport.Func
		wantOut       string
		wantFormatter string
		wantDiff      bool
		wantNote      string
	}{
		{
			name: "changed_shows_the_diff", f: prepend(1), wantOut: "//\na\nb\n", wantFormatter: "pre", wantDiff: true,
		},
		{
			name: "none_applies", f: func(_ context.Context, _ string, b []byte) ([]byte, string, error) { return b, "", nil },
			wantOut: "a\nb\n",
		},
		{
			name: "no_change", f: func(_ context.Context, _ string, b []byte) ([]byte, string, error) { return b, "same", nil },
			wantOut: "a\nb\n", wantFormatter: "same", wantNote: "formatter made no change",
		},
		{
			name: "error_keeps_the_edit", f: func(context.Context, string, []byte) ([]byte, string, error) {
				return []byte("junk"), "bad", errors.New("exit 2")
			},
			wantOut: "a\nb\n", wantFormatter: "bad", wantNote: "formatter failed (exit 2); the file is written as the patch made it",
		},
		{
			name: "panic_is_recovered", f: func(context.Context, string, []byte) ([]byte, string, error) { panic("boom") },
			wantOut: "a\nb\n", wantNote: "formatter failed (formatter panicked: boom); the file is written as the patch made it",
		},
		{
			name: "nothing_printed", f: func(context.Context, string, []byte) ([]byte, string, error) { return nil, "mute", nil },
			wantOut: "a\nb\n", wantFormatter: "mute", wantNote: "formatter returned no content; the file is written as the patch made it",
		},
		{
			name: "src_is_a_copy", f: func(_ context.Context, _ string, b []byte) ([]byte, string, error) {
				b[0] = 'X' // a formatter that scribbles on its input must not change the caller's bytes
				return b, "scribble", nil
			},
			wantOut: "X\nb\n", wantFormatter: "scribble", wantDiff: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]byte(nil), src...)
			o := fmtreport.Run(context.Background(), tc.f, "/abs/f.go", "f.go", "patch", in)
			if string(in) != string(src) {
				t.Fatalf("the caller's bytes changed: %q", in)
			}
			if string(o.Out) != tc.wantOut || o.Formatter != tc.wantFormatter || (o.Diff != "") != tc.wantDiff || o.Note != tc.wantNote {
				t.Errorf("got %q %q diff=%q note=%q", o.Out, o.Formatter, o.Diff, o.Note)
			}
			if o.Diff != "" && !strings.HasPrefix(o.Diff, "--- a/f.go\n+++ b/f.go\n") {
				t.Errorf("diff headers name the display name: %q", o.Diff)
			}
		})
	}
}

// TestLimit pins the one rule at its edge: a diff of exactly MaxDiffLines lines of text is
// shown, one line more is replaced by a note counting added plus removed lines.
func TestLimit(t *testing.T) {
	src := []byte("a\n")
	// Adding n lines in front of a one-line file gives a diff of 2 headers + 1 hunk header
	// + n added lines + 1 context line.
	for _, tc := range []struct {
		name  string
		added int
		shown bool
	}{
		{name: "N-1", added: fmtreport.MaxDiffLines - 5, shown: true},
		{name: "N", added: fmtreport.MaxDiffLines - 4, shown: true},
		{name: "N+1", added: fmtreport.MaxDiffLines - 3, shown: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := fmtreport.Run(context.Background(), prepend(tc.added), "f", "f", "patch", src)
			full := udiff.Diff("f", src, o.Out)
			if got := fmtreport.Lines(full); got != tc.added+4 {
				t.Fatalf("diff has %d lines, want %d", got, tc.added+4)
			}
			if (o.Diff != "") != tc.shown {
				t.Fatalf("%d-line diff shown = %v, want %v", fmtreport.Lines(full), o.Diff != "", tc.shown)
			}
			if !tc.shown {
				want := fmt.Sprintf("formatter pre changed %d lines; re-read the file before editing it again", tc.added)
				if o.Note != want {
					t.Errorf("note %q, want %q", o.Note, want)
				}
			}
		})
	}
}

func TestChanged(t *testing.T) {
	d := udiff.Diff("f", []byte("a\nb\nc\n"), []byte("A\nb\nC\nD\n"))
	if got := fmtreport.Changed(d); got != 5 {
		t.Errorf("Changed = %d, want 5 (3 added + 2 removed)\n%s", got, d)
	}
}
