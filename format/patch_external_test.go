package format_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// TestPatchWithFormatter runs the seam end to end: patch applies a two-file patch with a
// *format.Formatter, and the formatter's outcome for each file is what the commit writes and
// what the per-file report says.
func TestPatchWithFormatter(t *testing.T) {
	tests := []struct {
		name      string
		patch     string
		want      map[string]string // file → content on disk afterwards
		formatter map[string]string // file → FileChange.Formatter
		diff      map[string]string // file → substring of FileChange.FormatDiff
		note      map[string]string // file → substring of FileChange.FormatNote
	}{
		{
			name: "E21_second_file_fails_to_format_both_written",
			patch: "*** Begin Patch\n*** Add File: a.go\n+package p\n+func A( ) int {return 1}\n" +
				"*** Add File: b.go\n+package p\n+func B() {\n*** End Patch\n",
			want:      map[string]string{"a.go": "package p\n\nfunc A() int { return 1 }\n", "b.go": "package p\nfunc B() {\n"},
			formatter: map[string]string{"a.go": "gofmt", "b.go": "gofmt"},
			diff:      map[string]string{"a.go": "+func A() int { return 1 }\n"},
			note:      map[string]string{"b.go": "the Go source does not parse: 2:12: expected '}', found 'EOF'"},
		},
		{
			name:      "E21_file_without_a_formatter_written_as_the_patch_made_it",
			patch:     "*** Begin Patch\n*** Add File: notes.txt\n+as  written\n*** Update File: main.go\n@@\n-var x=1\n+var  x = 2\n*** End Patch\n",
			want:      map[string]string{"notes.txt": "as  written\n", "main.go": "package p\n\nvar x = 2\n"},
			formatter: map[string]string{"notes.txt": "", "main.go": "gofmt"},
			diff:      map[string]string{"main.go": "-var  x = 2\n+var x = 2\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(testenv.TempDir(t))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(root, "main.go"), []byte("package p\n\nvar x=1\n"), 0o644)
			f, err := format.New(root, format.WithLookPath(fakePath()))
			if err != nil {
				t.Fatal(err)
			}
			fsys, err := wfs.NewOSFS(root)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			a, err := patch.New(fsys, root, patch.WithFormatter(f))
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Apply(context.Background(), tc.patch)
			if err != nil {
				t.Fatalf("the patch failed: %v", err)
			}
			for name, want := range tc.want {
				if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != want {
					t.Errorf("%s on disk = %q, want %q", name, got, want)
				}
			}
			for _, c := range res.Changes {
				if want, ok := tc.formatter[c.Path]; ok && c.Formatter != want {
					t.Errorf("%s: Formatter = %q, want %q", c.Path, c.Formatter, want)
				}
				if want := tc.diff[c.Path]; !strings.Contains(c.FormatDiff, want) {
					t.Errorf("%s: FormatDiff = %q, want it to contain %q", c.Path, c.FormatDiff, want)
				}
				if want := tc.note[c.Path]; !strings.Contains(c.FormatNote, want) {
					t.Errorf("%s: FormatNote = %q, want it to contain %q", c.Path, c.FormatNote, want)
				}
			}
		})
	}
}
