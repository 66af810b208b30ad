package harnesskit_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/harnesskit/harnesskit"

// allowed lists, for each package of the module, the harnesskit packages it may import
// (DESIGN §2). internal packages may be imported by any package and import no public one.
var allowed = map[string][]string{
	"":          nil, // the doc-only root package
	"patch":     {"pathguard"},
	"astsearch": {"pathguard"},
	"pathguard": nil,
	"loopguard": nil,
	"taskboard": nil,
	"webfetch":  nil,
}

// TestDependencyDAG fails on any import edge between harnesskit packages that the design
// does not allow, and on a module package that the table does not know.
func TestDependencyDAG(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test=false", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg, ok := local(fields[0])
		if !ok {
			continue
		}
		seen++
		isInternal := pkg == "internal" || strings.HasPrefix(pkg, "internal/")
		top, _, _ := strings.Cut(pkg, "/")
		if !isInternal {
			if _, known := allowed[top]; !known {
				t.Errorf("package %s is not in the dependency table of DESIGN §2", fields[0])
				continue
			}
		}
		for _, imp := range fields[1:] {
			dep, ok := local(imp)
			if !ok {
				continue
			}
			depTop, _, _ := strings.Cut(dep, "/")
			switch {
			case depTop == top: // a package's own sub-packages
			case depTop == "internal": // shared code, allowed everywhere
			case isInternal:
				t.Errorf("%s imports public package %s: internal packages import no public one", fields[0], imp)
			case !slices.Contains(allowed[top], depTop):
				t.Errorf("%s imports %s: not an edge of DESIGN §2", fields[0], imp)
			}
		}
	}
	if seen == 0 {
		t.Fatal("go list reported no package of the module")
	}
}

// local returns the module-relative path of a package of this module.
func local(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	rest, ok := strings.CutPrefix(importPath, module+"/")
	if !ok || strings.HasPrefix(rest, "examples") {
		return "", false
	}
	return rest, true
}
