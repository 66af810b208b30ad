package harnesskit_test

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/harnesskit/harnesskit"

// allowed lists, for each package of the module, the harnesskit packages it may import
// (DESIGN §2). Packages under internal/ may be imported by any package and import no public
// one; a package may import its own sub-packages.
var allowed = map[string][]string{
	".":         nil, // the doc-only root package
	"patch":     {"pathguard", "wfs"},
	"astsearch": {"pathguard", "wfs"},
	"pathguard": nil,
	"loopguard": nil,
	"taskboard": nil,
	"webfetch":  {"wfs"},
	"format":    {"wfs"},
	"wfs":       nil,
}

// testOnly lists edges allowed only from a package's external tests (package x_test), which
// the package itself never links: format's tests check its diffs by applying them with patch.
var testOnly = map[string][]string{
	"format": {"patch"},
}

// TestDependencyDAG reads the imports of every Go file of the root module (tests included,
// build tags ignored, so a cgo-only or Windows-only file is checked too) and fails on any edge
// between harnesskit packages that the design does not allow, and on a package the table does
// not know. It parses the files itself rather than asking "go list", so that "go test" notices
// when a file changes and does not answer from its cache.
func TestDependencyDAG(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || name == "examples" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); p != "." && err == nil {
				return filepath.SkipDir // a nested module: TestNestedModules checks it
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := path.Dir(filepath.ToSlash(p))
		top, _, _ := strings.Cut(pkg, "/")
		isInternal := top == "internal"
		if _, known := allowed[top]; !known && !isInternal {
			t.Errorf("%s: package %s is not in the dependency table of DESIGN §2", p, pkg)
			return nil
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			depTop, _, _ := strings.Cut(dep, "/")
			switch {
			case depTop == top, depTop == "internal":
			case isInternal:
				t.Errorf("%s imports public package %s: internal packages import no public one", p, imp)
			case depTop == "examples":
				t.Errorf("%s imports %s: nothing imports the examples module", p, imp)
			case strings.HasSuffix(name, "_test.go") && strings.HasSuffix(f.Name.Name, "_test") && slices.Contains(testOnly[top], depTop):
			case !slices.Contains(allowed[top], depTop):
				t.Errorf("%s imports %s: not an edge of DESIGN §2", p, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("found no Go file in the module")
	}
}

// nested lists, for each nested module, the packages of the root module it may import
// (with their sub-packages) and the module paths its go.mod may require directly besides
// the root module. Nothing imports a nested module; the root module's go.mod names none
// of their dependencies, so a one-process host never downloads etcd or Redis clients.
var nested = map[string]struct {
	imports []string
	modules []string
}{
	"cluster":     {imports: []string{"taskboard", "webfetch"}, modules: []string{"go.etcd.io/etcd/client/v3", "github.com/redis/go-redis/v9"}},
	"cluster/e2e": {imports: []string{"taskboard", "webfetch", "cluster"}, modules: []string{"github.com/harnesskit/harnesskit/cluster", "go.etcd.io/etcd/client/v3", "go.etcd.io/etcd/server/v3", "github.com/anishathalye/porcupine", "github.com/redis/go-redis/v9", "go.uber.org/zap"}},
}

// TestNestedModules checks each nested module's own rules: which root packages its files
// import, which modules its go.mod requires directly, and that the root go.mod requires
// none of them.
func TestNestedModules(t *testing.T) {
	rootMod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for dir, rule := range nested {
		for _, m := range rule.modules {
			if strings.Contains(string(rootMod), m+" ") {
				t.Errorf("the root go.mod requires %s, a dependency of the nested module %s", m, dir)
			}
		}
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if strings.HasSuffix(line, "// indirect") || !strings.Contains(line, " v") || strings.HasPrefix(line, "module") || strings.HasPrefix(line, "go ") || strings.Contains(line, "=>") {
				continue
			}
			mod := strings.Fields(strings.TrimPrefix(line, "require "))[0]
			if mod != module && !slices.Contains(rule.modules, mod) {
				t.Errorf("%s/go.mod requires %s directly: not in its rules", dir, mod)
			}
		}
		f.Close()
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() && p != dir && (d.Name() == "testdata" || fileExists(filepath.Join(p, "go.mod"))) {
				if err == nil {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") {
				return nil
			}
			pf, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, spec := range pf.Imports {
				imp, _ := strconv.Unquote(spec.Path.Value)
				dep, ok := strings.CutPrefix(imp, module+"/")
				if !ok {
					continue
				}
				top, _, _ := strings.Cut(dep, "/")
				if dep == dir || strings.HasPrefix(dep, dir+"/") || slices.Contains(rule.imports, top) || slices.Contains(rule.imports, dep) {
					continue
				}
				if top == "taskboard" && strings.HasPrefix(dep, "taskboard/taskboardtest") && slices.Contains(rule.imports, "taskboard") {
					continue
				}
				t.Errorf("%s imports %s: not allowed for the nested module %s", p, imp, dir)
			}
			return nil
		})
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// grammarModule reports whether a module is a tree-sitter grammar: one of the official
// grammar modules or a go-sitter-forest one. The runtime, github.com/tree-sitter/go-tree-sitter,
// is not a grammar (it costs seconds to compile, not minutes) and comes with the first one.
func grammarModule(mod string) bool {
	return strings.HasPrefix(mod, "github.com/tree-sitter/tree-sitter-") ||
		strings.HasPrefix(mod, "github.com/tree-sitter-grammars/") ||
		strings.HasPrefix(mod, "github.com/alexaandru/go-sitter-forest/")
}

// TestNoGrammarLinked: the packages that search no language link no tree-sitter code, so a
// host that imports them compiles none: patch, format, webfetch, wfs, and astsearch and
// examples/tools too, which import no astsearch/lang package (the runtime comes with the
// first grammar a host imports). astsearch/lang/golang is the case that shows the check sees
// a grammar and the runtime. It asks "go list
// -deps" with cgo on (the grammar imports are in cgo files), then reads every Go file of the
// harnesskit packages listed, so that a cached pass is redone when one of them changes.
func TestNoGrammarLinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command here:", err)
	}
	for _, c := range []struct {
		dir, pkg     string
		runtimeOK    bool
		wantGrammars []string
	}{
		{".", "./patch", false, nil},
		{".", "./format", false, nil},
		{".", "./webfetch", false, nil},
		{".", "./wfs", false, nil},
		{".", "./astsearch", false, nil},
		{"examples", "./tools", false, nil},
		{".", "./astsearch/lang/golang", true, []string{"github.com/tree-sitter/tree-sitter-go"}},
	} {
		t.Run(strings.Trim(c.pkg, "./"), func(t *testing.T) {
			cmd := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}\t{{with .Module}}{{.Path}}{{end}}\t{{.Dir}}", c.pkg)
			cmd.Dir = c.dir
			cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v\n%s", c.pkg, err, stderrOf(err))
			}
			var grammars []string
			for line := range strings.Lines(string(out)) {
				f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
				if len(f) != 3 {
					t.Fatalf("go list printed %q", line)
				}
				pkg, mod, dir := f[0], f[1], f[2]
				switch {
				case grammarModule(mod):
					if !slices.Contains(grammars, mod) {
						grammars = append(grammars, mod)
					}
				case mod == "github.com/tree-sitter/go-tree-sitter" && !c.runtimeOK:
					t.Errorf("%s links the tree-sitter runtime (%s)", c.pkg, pkg)
				case strings.HasPrefix(mod, module):
					readGoFiles(t, dir)
				}
			}
			if !slices.Equal(grammars, c.wantGrammars) {
				t.Errorf("%s links the grammar modules %v, want %v", c.pkg, grammars, c.wantGrammars)
			}
		})
	}
}

// readGoFiles reads the Go files of a directory, for the test cache to notice a change.
func readGoFiles(t *testing.T, dir string) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := os.ReadFile(n); err != nil {
			t.Fatal(err)
		}
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
