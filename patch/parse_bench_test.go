package patch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// benchPatchText builds a patch of n Update sections, each with two anchored chunks of
// context, removed and added lines: about 20 lines per section.
func benchPatchText(n int) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for i := range n {
		fmt.Fprintf(&b, "*** Update File: src/pkg%d/file%d.go\n", i%37, i)
		for c := range 2 {
			fmt.Fprintf(&b, "@@ func handler%d_%d(w http.ResponseWriter, r *http.Request) {\n", i, c)
			b.WriteString(" \tctx := r.Context()\n \tif err := validate(r); err != nil {\n")
			b.WriteString("-\t\treturn err\n+\t\treturn fmt.Errorf(\"validate: %w\", err)\n")
			b.WriteString(" \t}\n \tlog.Printf(\"handled %s\", r.URL.Path)\n+\tmetrics.Inc()\n \treturn nil\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

func BenchmarkParse(b *testing.B) {
	text := benchPatchText(1000)
	lines := strings.Count(text, "\n")
	b.Run("1000hunks", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if _, err := patch.Parse(text); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(lines), "lines/op")
	})
}

func BenchmarkFormat(b *testing.B) {
	p, err := patch.Parse(benchPatchText(1000))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("1000hunks", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = patch.Format(p)
		}
	})
}
