package patch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// fakeFormatter formats with fn the files whose name ends in ext.
type fakeFormatter struct {
	name, ext string
	fn        func(src []byte) ([]byte, error)
}

func (f fakeFormatter) Format(_ context.Context, path string, src []byte) ([]byte, string, error) {
	if !strings.HasSuffix(path, f.ext) {
		return src, "", nil
	}
	out, err := f.fn(src)
	return out, f.name, err
}

// trimmer removes trailing spaces from every line.
func trimmer(src []byte) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return []byte(strings.Join(lines, "\n")), nil
}

func TestWithFormatter(t *testing.T) {
	ctx := context.Background()
	text := apText("*** Update File: a.go", "@@", " package a", "-var x = 1", "+var x = 2   ", "*** Add File: n.txt", "+kept   ")
	files := map[string]string{"a.go": "package a\nvar x = 1\n"}
	for _, tc := range []struct {
		name               string
		f                  patch.Formatter
		wantGo             string
		wantName, wantDiff string
		wantNote           string
	}{
		{
			name: "changes_bytes", f: fakeFormatter{"trim", ".go", trimmer},
			wantGo: "package a\nvar x = 2\n", wantName: "trim",
			wantDiff: "--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n package a\n-var x = 2   \n+var x = 2\n",
		},
		{
			name: "fails", f: fakeFormatter{"broken", ".go", func([]byte) ([]byte, error) { return nil, errors.New("syntax error at 2:1") }},
			wantGo: "package a\nvar x = 2   \n", wantName: "broken", wantNote: "formatter failed (syntax error at 2:1); the file is written as the patch made it",
		},
		{
			name: "no_op", f: fakeFormatter{"noop", ".go", func(b []byte) ([]byte, error) { return b, nil }},
			wantGo: "package a\nvar x = 2   \n", wantName: "noop", wantNote: "formatter made no change",
		},
		{
			name: "returns_nothing", f: fakeFormatter{"empty", ".go", func([]byte) ([]byte, error) { return nil, nil }},
			wantGo: "package a\nvar x = 2   \n", wantName: "empty", wantNote: "formatter returned no content",
		},
		{
			name: "panics", f: fakeFormatter{"boom", ".go", func([]byte) ([]byte, error) { panic("boom") }},
			wantGo: "package a\nvar x = 2   \n", wantNote: "formatter failed (formatter panicked: boom)",
		},
		{
			name: "long_change_noted", f: fakeFormatter{"long", ".go", func(b []byte) ([]byte, error) {
				return []byte(strings.Repeat("// generated\n", 50) + string(b)), nil
			}},
			wantGo: strings.Repeat("// generated\n", 50) + "package a\nvar x = 2   \n", wantName: "long",
			wantNote: "formatter long changed 50 lines; re-read the file before editing it again",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, files)
			a, err := patch.New(m, apRoot, patch.WithFormatter(tc.f))
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Apply(ctx, text)
			if err != nil {
				t.Fatal(err)
			}
			got := apFiles(m)
			if got["a.go"] != tc.wantGo {
				t.Errorf("a.go = %q, want %q", got["a.go"], tc.wantGo)
			}
			if got["n.txt"] != "kept   \n" {
				t.Errorf("n.txt = %q: a file the formatter does not apply to changed", got["n.txt"])
			}
			var goChange, txtChange patch.FileChange
			for _, c := range res.Changes {
				switch c.Path {
				case "a.go":
					goChange = c
				case "n.txt":
					txtChange = c
				}
			}
			if string(goChange.After) != tc.wantGo {
				t.Errorf("After = %q, want the written bytes", goChange.After)
			}
			if goChange.Formatter != tc.wantName || goChange.FormatDiff != tc.wantDiff || !strings.Contains(goChange.FormatNote, tc.wantNote) {
				t.Errorf("report = %q / %q / %q, want %q / %q / %q", goChange.Formatter, goChange.FormatDiff, goChange.FormatNote, tc.wantName, tc.wantDiff, tc.wantNote)
			}
			if tc.wantNote == "" && goChange.FormatNote != "" {
				t.Errorf("unexpected note %q", goChange.FormatNote)
			}
			if txtChange.Formatter != "" || txtChange.FormatNote != "" || txtChange.FormatDiff != "" {
				t.Errorf("n.txt report = %+v, want none", txtChange)
			}
		})
	}
	t.Run("rewrite_does_not_format", func(t *testing.T) {
		m := apTree(t, files)
		a, _ := patch.New(m, apRoot, patch.WithFormatter(fakeFormatter{"trim", ".go", trimmer}))
		rw, err := a.Rewrite(ctx, text)
		if err != nil || !strings.Contains(rw.Text, "+var x = 2   \n") {
			t.Errorf("rewrite = %+v, %v", rw, err)
		}
	})
	t.Run("compat_non_atomic_formats_each_section", func(t *testing.T) {
		m := apTree(t, files)
		a, _ := patch.New(m, apRoot, patch.WithCodexCompat(), patch.WithFormatter(fakeFormatter{"trim", ".go", trimmer}))
		res, err := a.Apply(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		if got := apFiles(m)["a.go"]; got != "package a\nvar x = 2\n" || res.Changes[0].Formatter != "trim" {
			t.Errorf("a.go = %q, changes %+v", got, res.Changes)
		}
	})
}
