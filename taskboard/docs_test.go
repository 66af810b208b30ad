package taskboard

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPublicDocsStandAlone: the package's non-test Go files (its doc comments and texts)
// cite no document a user does not have: no "spec §", no DESIGN.md, no rule id R<n>.
func TestPublicDocsStandAlone(t *testing.T) {
	bad := regexp.MustCompile(`spec §|DESIGN\.md|§\s*\d|\bR\d+\b`)
	var files []string
	for _, dir := range []string{".", "taskboardtest"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if loc := bad.FindString(line); loc != "" {
				t.Errorf("%s:%d cites %q: say it in the package's own words", f, i+1, loc)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files checked", checked)
	}
}
