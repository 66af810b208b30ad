package patch_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// update rewrites golden files: go test ./patch -run Golden -update
var update = flag.Bool("update", false, "rewrite golden files")

// TestParseGolden parses every testdata/parse/*.patch and compares the canonical text (or
// the error, with its kind and line) with <name>.golden. The canonical text is a contract
// (Format); the error wording is Codex's and pinned here as prose.
func TestParseGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "parse", "*.patch"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in testdata/parse: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".patch")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := renderParse(string(src))
			golden := strings.TrimSuffix(in, ".patch") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("Parse(%s) rendering differs from %s:\n--- got\n%s--- want\n%s", in, golden, got, want)
			}
		})
	}
}

// renderParse describes Parse's answer: the canonical text, or the error's kind, position
// and text.
func renderParse(text string) string {
	p, err := patch.Parse(text)
	if err != nil {
		var pe *patch.Error
		if !errors.As(err, &pe) {
			return "unexpected error type: " + err.Error() + "\n"
		}
		var b strings.Builder
		b.WriteString("error kind=" + pe.Kind.String())
		b.WriteString(" line=" + strconv.Itoa(pe.Line) + " section=" + strconv.Itoa(pe.Section) + " chunk=" + strconv.Itoa(pe.Chunk))
		b.WriteString(" path=" + pe.Path + "\n" + err.Error() + "\n")
		return b.String()
	}
	return patch.Format(p)
}
