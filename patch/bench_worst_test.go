package patch

import (
	"context"
	"strings"
	"testing"
)

// Worst cases of the amendment's bounds: a long chunk that is not found in a file of identical
// lines (the nearest-window diagnostic), and a loose one-line chunk that matches every line
// (the candidate list of the ambiguity message).

func identicalLines(n int, line string) string {
	return strings.Repeat(line+"\n", n)
}

func BenchmarkWorst(b *testing.B) {
	b.Run("notfound-2000lines-on-100k-identical", func(b *testing.B) {
		file := identicalLines(100_000, "same")
		body := []string{"*** Update File: f.txt", "@@"}
		for range 1999 {
			body = append(body, " same")
		}
		body = append(body, "-different", "+x")
		_, a := itApplier(b, map[string]string{"f.txt": file})
		text := itText(body...)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.Plan(context.Background(), text); err == nil {
				b.Fatal("planned")
			}
		}
	})
	b.Run("ambiguous-loose-on-100k-identical", func(b *testing.B) {
		file := identicalLines(100_000, "  same")
		_, a := itApplier(b, map[string]string{"f.txt": file})
		text := itText("*** Update File: f.txt", "@@", "-same", "+x")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.Plan(context.Background(), text); err == nil {
				b.Fatal("planned")
			}
		}
	})
}
