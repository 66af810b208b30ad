package astsearch

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
)

// checkRewrite plans and applies one rewrite case; "" when it conforms.
func checkRewrite(t *testing.T, c confCase, b Backend) string {
	s, _ := ParseStrictness(c.Strictness)
	fsys := fstest.MapFS{c.FileName: {Data: []byte(c.Source), Mode: 0o644}}
	req := Request{Pattern: c.Pattern, Lang: Lang(c.Language), Strictness: s, Backend: b}
	plan, err := Rewrite(context.Background(), fsys, req, c.Rewrite)
	if c.Expect == "error" {
		if err == nil {
			return "want ErrBadPattern, got a plan"
		}
		return ""
	}
	if err != nil {
		return "rewrite: " + err.Error()
	}
	if len(plan.Matches) != len(c.Matches) {
		return fmt.Sprintf("want %d matches, got %d", len(c.Matches), len(plan.Matches))
	}
	for i, w := range c.Matches {
		g := plan.Matches[i]
		if g.Replacement == nil || *g.Replacement != *w.Replacement || g.ReplacementOffsets.Start != w.ReplacementByteStart || g.ReplacementOffsets.End != w.ReplacementByteEnd {
			got := "<nil>"
			if g.Replacement != nil {
				got = fmt.Sprintf("%q %d-%d", *g.Replacement, g.ReplacementOffsets.Start, g.ReplacementOffsets.End)
			}
			return fmt.Sprintf("match %d: replacement %s, want %q %d-%d", i, got, *w.Replacement, w.ReplacementByteStart, w.ReplacementByteEnd)
		}
	}
	mem := wfs.NewMemFS()
	root := testenv.Abs("/w")
	if err := mem.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := mem.OpenFile(filepath.Join(root, c.FileName), 0o1|0o100, 0o644) // O_WRONLY|O_CREATE
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(c.Source))
	f.Close()
	if _, err := plan.Apply(context.Background(), mem, root); err != nil {
		return "apply: " + err.Error()
	}
	got, _ := mem.ReadFile(filepath.Join(root, c.FileName))
	if string(got) != c.ExpectedFile {
		return fmt.Sprintf("file %q, want %q", got, c.ExpectedFile)
	}
	return ""
}

func TestConformanceRewriteNative(t *testing.T) {
	nb, err := Native()
	if err != nil {
		t.Skip(err)
	}
	runRewriteConformance(t, nb)
}

// TestConformanceFixtures runs the search and rewrite conformance on the committed
// flattened trees: the pure-Go matcher, templates, diffs and apply, also without cgo.
func TestConformanceFixtures(t *testing.T) {
	t.Run("search", func(t *testing.T) { runConformance(t, fixtureFactory) })
	t.Run("rewrite", func(t *testing.T) { runRewriteConformance(t, &nativeBackend{factory: fixtureFactory}) })
}

func runRewriteConformance(t *testing.T, nb Backend) {
	known := loadKnown(t, "native", "rewrite")
	for _, c := range loadConformance(t) {
		if c.Kind != "rewrite" {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			why := checkRewrite(t, c, nb)
			if reason, ok := known[c.ID]; ok {
				if why == "" {
					t.Errorf("listed as a known difference (%s) but passes", reason)
				}
				return
			}
			if why != "" {
				t.Errorf("%s %q -> %q on %q: %s", c.ID, c.Pattern, c.Rewrite, c.Source, why)
			}
		})
	}
}
