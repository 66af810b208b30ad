package webfetch

import (
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGoldenMarkdown pins the Markdown of representative pages (tables, code, links in
// tables, MathJax, CJK, right-to-left). Refresh with: go test -run Golden -update
func TestGoldenMarkdown(t *testing.T) {
	base, _ := url.Parse(pageBase)
	for _, name := range []string{"001", "ietf-1", "keep-tabular-data", "links-in-tables", "mathjax", "qq", "rtl-1"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "readability", name, "source.html"))
			if err != nil {
				t.Fatal(err)
			}
			ex, err := extractHTML(src, "text/html; charset=utf-8", base, false, DefaultMaxHeadings)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", name+".md")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(ex.markdown), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if ex.markdown != string(want) {
				t.Errorf("Markdown of %s differs from %s (run with -update after a deliberate change)", name, path)
			}
		})
	}
}
