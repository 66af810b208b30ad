package patch_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Public docs stand alone: no non-test Go file of the package (or of patchtest) points at the
// specification, the design document or a rule number the user does not have.
func TestDocsStandAlone(t *testing.T) {
	bad := regexp.MustCompile(`spec §|§\d|DESIGN\.md|\bR\d+\b`)
	for _, pattern := range []string{"*.go", "patchtest/*.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if m := bad.FindString(line); m != "" {
					t.Errorf("%s:%d mentions %q: %s", f, i+1, m, strings.TrimSpace(line))
				}
			}
		}
	}
}
