package patch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// degenerateRewriteCase is a file of n identical lines, a line y, an anchor, n identical lines
// again and y again; the chunk (anchored, with a loose removed line) matches only below the
// anchor, so Rewrite must render context reaching back to the anchor for Codex, whose
// first-match search starts at the top, to land on the same lines.
func degenerateRewriteCase(n int) (file, text string) {
	file = strings.Repeat("x\n", n) + "y\nclass Z:\n" + strings.Repeat("x\n", n) + "y\n"
	text = apText("*** Update File: f.txt", "@@ class Z:", " x", "-y  ", "+Y")
	return file, text
}

// TestRewriteContextSearchBounded: the context Rewrite prepends is found with a number of
// trials logarithmic in its length, not one trial per line (each trial is a Codex search of
// the whole file with the grown chunk, so one per line was cubic: 3,000 identical lines took
// over a minute), and the searches with grown chunks stop at a work budget, past which the
// section is rendered as a whole-file chunk (2×50,000 lines took 34 s with bisection alone).
// The number of trials is checked by TestGrowFindsSmallestWithFewTrials and the time by
// BenchmarkRewriteDegenerateContext (the cubic search on 2×50,000 lines would run past the
// test timeout); here the rendering is checked with the Codex binary when present.
func TestRewriteContextSearchBounded(t *testing.T) {
	for _, mode := range []struct {
		name string
		n    int
		opts []patch.Option
	}{
		{"default_3000", 3000, nil}, {"compat_3000", 3000, []patch.Option{patch.WithCodexCompat()}},
		{"default_50000", 50_000, nil}, {"compat_50000", 50_000, []patch.Option{patch.WithCodexCompat()}},
	} {
		n := mode.n
		file, text := degenerateRewriteCase(n)
		t.Run(mode.name, func(t *testing.T) {
			m := apTree(t, map[string]string{"f.txt": file})
			a, err := patch.New(m, apRoot, mode.opts...)
			if err != nil {
				t.Fatal(err)
			}
			rw, err := a.Rewrite(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Apply(context.Background(), text); err != nil {
				t.Fatal(err)
			}
			want := apFiles(m)["f.txt"]
			if os.Getenv("HARNESSKIT_CODEX_APPLY_PATCH") == "" {
				return
			}
			bin := oracleBinary(t)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			out := runOracle(t, bin, dir, rw.Text)
			got, err := os.ReadFile(filepath.Join(dir, "f.txt"))
			if err != nil || string(got) != want {
				t.Errorf("Codex applying Rewrite's text gives a different file (%v); codex output: %s", err, out)
			}
		})
	}
}

// BenchmarkRewriteDegenerateContext measures Rewrite on degenerateRewriteCase(2000).
func BenchmarkRewriteDegenerateContext(b *testing.B) {
	file, text := degenerateRewriteCase(2000)
	m := apTree(b, map[string]string{"f.txt": file})
	a, err := patch.New(m, apRoot)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Rewrite(context.Background(), text); err != nil {
			b.Fatal(err)
		}
	}
}
