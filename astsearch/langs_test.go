package astsearch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/harnesskit/harnesskit/astsearch/lang/all" // every test here may search any of the 25
)

// TestImportPaths: every language names a package of this module that exists and whose doc
// says it registers that language, so the import a LangNotLinkedError asks for compiles.
func TestImportPaths(t *testing.T) {
	for _, l := range Langs() {
		p := l.ImportPath()
		rel, ok := strings.CutPrefix(p, "github.com/harnesskit/harnesskit/astsearch/")
		if !ok {
			t.Errorf("%s: import path %q is not under astsearch/", l, p)
			continue
		}
		doc, err := os.ReadFile(filepath.Join(filepath.FromSlash(rel), "doc.go"))
		if err != nil {
			t.Errorf("%s: %v", l, err)
			continue
		}
		if !strings.Contains(string(doc), `import _ "`+p+`"`) || !strings.Contains(string(doc), `"`+string(l)+`"`) {
			t.Errorf("%s: %s/doc.go does not show its import or name the language %q", l, rel, l)
		}
	}
	for _, bad := range []Lang{"", "golang", "Go", "cobol"} {
		if p := bad.ImportPath(); p != "" {
			t.Errorf("Lang(%q).ImportPath() = %q, want \"\" (not a canonical name)", bad, p)
		}
	}
}
