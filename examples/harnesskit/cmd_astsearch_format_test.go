package main

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/astsearch"
)

// goRewriteTree writes a small Go project into a fresh directory and returns it.
func goRewriteTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"main.go":     "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tgreet(\"world\")\n}\n",
		"greet.go":    "package main\n\nimport \"fmt\"\n\nfunc greet(name string) {\n\tfmt.Println(\"hello, \" + name)\n}\n\nfunc again() { greet(\"again\") }\n",
		"notes/a.txt": "greet(\"not Go\")\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestAstsearchCLIRewriteFormat runs "astsearch rewrite --apply --format" on a Go tree with
// a template gofmt tidies and one that does not parse. The output is compared with a golden
// file; the files on disk are compared with the same rewrite applied without --format, put
// through go/format when the rewrite parses and left as is when it does not.
func TestAstsearchCLIRewriteFormat(t *testing.T) {
	if _, err := astsearch.Native(); err != nil {
		if _, err := astsearch.Default().Find(t.Context(), astsearch.Query{Pattern: "x", Lang: astsearch.Go}, nil); err != nil {
			t.Skipf("no astsearch backend (built without cgo, and no ast-grep on PATH): %v", err)
		}
	}
	golden, err := filepath.Abs("testdata/astsearch")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		rewrite string
		parses  bool // the rewritten files are valid Go, so gofmt formats them
	}{
		{name: "rewrite_apply_format", rewrite: "greet( $A )", parses: true},
		{name: "rewrite_apply_format_syntax_error", rewrite: "greet( $A", parses: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"astsearch", "rewrite", "--pattern", "greet($A)", "--rewrite", tc.rewrite, "--lang", "go", "--apply"}
			// The oracle: the same rewrite without --format.
			plain := goRewriteTree(t)
			t.Chdir(plain)
			var out, errb bytes.Buffer
			if code := run(t.Context(), args, strings.NewReader(""), &out, &errb); code != exitOK {
				t.Fatalf("without --format: exit %d, stdout %q stderr %q", code, out.String(), errb.String())
			}
			plainOut := out.String()
			if !strings.Contains(plainOut, "[APPLIED] 2 replacements in 2 files") {
				t.Fatalf("the rewrite did not apply as planned:\n%s", plainOut)
			}

			dir := goRewriteTree(t)
			t.Chdir(dir)
			out.Reset()
			errb.Reset()
			if code := run(t.Context(), append(args, "--format"), strings.NewReader(""), &out, &errb); code != exitOK {
				t.Fatalf("exit %d, stdout %q stderr %q", code, out.String(), errb.String())
			}
			if !strings.HasPrefix(out.String(), plainOut) {
				t.Errorf("the --format output does not start with the plain output:\n%s\n--- plain\n%s", out.String(), plainOut)
			}
			checkGolden(t, filepath.Join(golden, tc.name+".golden"), out.String())
			for _, name := range []string{"main.go", "greet.go", "notes/a.txt"} {
				want, err := os.ReadFile(filepath.Join(plain, filepath.FromSlash(name)))
				if err != nil {
					t.Fatal(err)
				}
				if tc.parses && strings.HasSuffix(name, ".go") {
					if want, err = format.Source(want); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestAstsearchCLIFormatNeedsApply(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"astsearch", "rewrite", "--pattern", "fmt.Println($A)", "--rewrite", "log.Print($A)", "--lang", "go", "--format"}
	if code := run(t.Context(), args, strings.NewReader(""), &out, &errb); code != exitUsage {
		t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, exitUsage, out.String(), errb.String())
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "--format needs --apply") {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
}
