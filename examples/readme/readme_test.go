package readme_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/harnesskit/harnesskit/astsearch"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/golang" // the README's astsearch snippet searches Go
)

// clone is the root of the repository, whose README these tests check.
const clone = "../.."

// readme returns the README and its sections by "## " or "### " heading.
func readme(t *testing.T) (string, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(clone, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	var name string
	var b strings.Builder
	for l := range strings.Lines(string(data)) {
		if h, ok := strings.CutPrefix(l, "## "); ok || strings.HasPrefix(l, "### ") {
			if !ok {
				h = strings.TrimPrefix(l, "### ")
			}
			sections[name] = b.String()
			name, b = strings.TrimSpace(h), strings.Builder{}
			continue
		}
		b.WriteString(l)
	}
	sections[name] = b.String()
	return string(data), sections
}

// fenced returns the bodies of the blocks fenced with ```lang in text ("" for a bare ```).
func fenced(text, lang string) []string {
	var out []string
	var cur *strings.Builder
	open, in := "", false
	for l := range strings.Lines(text) {
		t := strings.TrimSpace(l)
		switch {
		case !in && strings.HasPrefix(t, "```"):
			in, open, cur = true, strings.TrimPrefix(t, "```"), &strings.Builder{}
		case in && t == "```":
			if open == lang {
				out = append(out, cur.String())
			}
			in = false
		case in:
			cur.WriteString(l)
		}
	}
	return out
}

// readmeGiven declares, per README section, what its Go snippet takes as given (the
// host's values); the snippet itself must compile as it is.
var readmeGiven = map[string]string{
	"patch":     "var root, wt, modelPatchText string\nvar ctx context.Context",
	"pathguard": "var root, worktree, projectDir string",
	"loopguard": "var conv, id, msgID string\nvar rawArgs json.RawMessage\nvar runTool func(loopguard.Call) string",
	"taskboard": "var ctx context.Context\nvar rt *taskboardtest.Host\nvar orchestratorSession, sessionID string",
	"webfetch":  "var ctx context.Context\nvar sum webfetch.Summarizer\nvar modelURL, task string",
	"astsearch": "var ctx context.Context\nvar projectDir string",
	"format":    "var ctx context.Context\nvar root string\nvar newBytes []byte",
	"Several host processes: the cluster module": "var ctx context.Context\nvar etcdClient *clientv3.Client\nvar redisClient redis.UniversalClient\nvar host taskboard.Host",
}

// importPaths are the packages a snippet may name, by the name it uses.
var importPaths = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "os": "os", "json": "encoding/json",
	"patch": "github.com/harnesskit/harnesskit/patch", "pathguard": "github.com/harnesskit/harnesskit/pathguard",
	"loopguard": "github.com/harnesskit/harnesskit/loopguard", "taskboard": "github.com/harnesskit/harnesskit/taskboard",
	"taskboardtest": "github.com/harnesskit/harnesskit/taskboard/taskboardtest",
	"webfetch":      "github.com/harnesskit/harnesskit/webfetch", "astsearch": "github.com/harnesskit/harnesskit/astsearch",
	"format": "github.com/harnesskit/harnesskit/format", "time": "time", "wfs": "github.com/harnesskit/harnesskit/wfs",
	"cluster": "github.com/harnesskit/harnesskit/cluster", "clientv3": "go.etcd.io/etcd/client/v3",
	"redis": "github.com/redis/go-redis/v9",
}

var qualifier = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.[A-Z]`)

// exportImporter type-checks against the compiled packages (go list -export), so that
// the cgo packages need no source importer.
func exportImporter(t *testing.T, fset *token.FileSet, pkgs ...string) types.Importer {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not found on PATH: cannot list the packages' export data")
	}
	cmd := exec.Command(gobin, append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, pkgs...)...)
	cmd.Dir = clone // the workspace of the clone's go.work: every module of the README
	// The snippets' types do not depend on cgo or the architecture: list them in the default
	// configuration, whose build cache the other test runs (CGO_ENABLED=0, GOARCH=386) share.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "CGO_ENABLED" && k != "GOARCH" && k != "GO386" && k != "GOOS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	files := map[string]string{}
	for l := range strings.Lines(string(out)) {
		if p, f, ok := strings.Cut(strings.TrimSpace(l), "="); ok && f != "" {
			files[p] = f
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
}

// typeCheck reports the errors of src that are not soft (unused variables and imports are
// fine in a snippet).
func typeCheck(t *testing.T, fset *token.FileSet, imp types.Importer, name, src string) []string {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	conf := types.Config{Importer: imp, Error: func(err error) {
		var te types.Error
		if errors.As(err, &te) && te.Soft {
			return
		}
		errs = append(errs, err.Error())
	}}
	conf.Check("snippet", fset, []*ast.File{f}, nil)
	return errs
}

// TestREADMEGoSnippets type-checks every Go snippet of the README as a reader would paste
// it: in a function returning error, with the values its section takes as given and the
// imports of the packages it names. A "{ … }" body stands for code left out.
func TestREADMEGoSnippets(t *testing.T) {
	_, sections := readme(t)
	var pkgs []string
	for _, p := range importPaths {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	fset := token.NewFileSet()
	imp := exportImporter(t, fset, pkgs...)
	checked := 0
	for name, text := range sections {
		for i, snippet := range fenced(text, "go") {
			t.Run(fmt.Sprintf("%s_%d", name, i+1), func(t *testing.T) {
				given, ok := readmeGiven[name]
				if !ok {
					t.Fatalf("section %q has a Go snippet but readmeGiven does not say what it takes as given", name)
				}
				body := strings.ReplaceAll(snippet, "{ … }", "{}")
				used := map[string]bool{}
				for _, m := range qualifier.FindAllStringSubmatch(given+"\n"+body, -1) {
					if p, ok := importPaths[m[1]]; ok {
						used[p] = true
					}
				}
				var src strings.Builder
				src.WriteString("package snippet\n\nimport (\n")
				for p := range used {
					fmt.Fprintf(&src, "\t%q\n", p)
				}
				fmt.Fprintf(&src, ")\n\nfunc _() error {\n%s\n%s\nreturn nil\n}\n", given, body)
				if errs := typeCheck(t, fset, imp, name+".go", src.String()); len(errs) > 0 {
					t.Errorf("the README's %s snippet does not compile:\n%s\n\n%s", name, strings.Join(errs, "\n"), snippet)
				}
			})
			checked++
		}
	}
	if checked < 7 {
		t.Fatalf("only %d Go snippets found in the README", checked)
	}
}

// TestREADMEAstRewriteCompiles: the README's astsearch snippet rewrites code with a
// pattern and a template; applied to a Go file that the pattern matches, the result must
// still compile (a template that brings in a package the file does not import would not).
func TestREADMEAstRewriteCompiles(t *testing.T) {
	if _, err := astsearch.Native(); err != nil {
		t.Skipf("no native astsearch backend (built without cgo): %v", err)
	}
	_, sections := readme(t)
	snippets := fenced(sections["astsearch"], "go")
	if len(snippets) == 0 {
		t.Fatal("the README has no astsearch snippet")
	}
	pattern := regexp.MustCompile(`Pattern: ("(?:[^"\\]|\\.)*")`).FindStringSubmatch(snippets[0])
	template := regexp.MustCompile(`astsearch\.Rewrite\([^"]*("(?:[^"\\]|\\.)*")\)`).FindStringSubmatch(snippets[0])
	if pattern == nil || template == nil {
		t.Fatalf("the astsearch snippet has no Pattern or no Rewrite template:\n%s", snippets[0])
	}
	pat, err1 := strconv.Unquote(pattern[1])
	tmpl, err2 := strconv.Unquote(template[1])
	if err1 != nil || err2 != nil {
		t.Fatalf("cannot read the pattern %s or the template %s", pattern[1], template[1])
	}
	// Code of the kind the pattern is written for, each call in a context of its own.
	sample := `package sample

import (
	"fmt"
	"strings"
)

func check(name, s string) error {
	if strings.Index(s, "..") != -1 {
		return fmt.Errorf("%s: %q climbs out", name, s)
	}
	if strings.Index(name, " ") != -1 && len(s) > 0 {
		return fmt.Errorf("bad name %q", name)
	}
	return nil
}
`
	fsys := fstest.MapFS{"sample.go": {Data: []byte(sample)}}
	plan, err := astsearch.Rewrite(context.Background(), fsys, astsearch.Request{Pattern: pat, Lang: astsearch.Go}, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 || len(plan.Files[0].Edits) == 0 {
		t.Fatalf("the README's pattern %q rewrites nothing in a file written for it", pat)
	}
	fset := token.NewFileSet()
	imp := exportImporter(t, fset, "fmt", "strings", "errors", "os")
	if errs := typeCheck(t, fset, imp, "sample.go", string(plan.Files[0].Content)); len(errs) > 0 {
		t.Errorf("rewriting %q to %q leaves code that does not compile:\n%s\n\n%s", pat, tmpl, strings.Join(errs, "\n"), plan.Files[0].Content)
	}
}

// TestREADMEUseFromModule follows "Use it from your module" in a new module, offline: the
// go.mod lines it shows (the replace pointed at this clone), a program importing patch,
// the go commands it gives (the ones that need the module published left out), then go
// build. It needs the module cache the root module's own tests use.
func TestREADMEUseFromModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program in a new module (-short)")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not found on PATH")
	}
	_, sections := readme(t)
	sec := sections["Use it from your module"]
	var modLines string
	for _, b := range fenced(sec, "") {
		if strings.Contains(b, "replace github.com/harnesskit/harnesskit") {
			modLines = b
		}
	}
	if modLines == "" {
		t.Fatalf("the section shows no go.mod lines with a replace directive:\n%s", sec)
	}
	abs, _ := filepath.Abs(clone)
	modLines = strings.ReplaceAll(modLines, "=> ../harnesskit", "=> "+abs)
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/agent\n\ngo 1.26\n\n"+modLines)
	write("main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/harnesskit/harnesskit/patch\"\n)\n\nfunc main() { fmt.Println(patch.Open) }\n")
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOPROXY=off", "GOSUMDB=off")
	runGo := func(args ...string) (string, error) {
		cmd := exec.Command(gobin, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, b := range fenced(sec, "sh") {
		for l := range strings.Lines(b) {
			l, _, _ = strings.Cut(l, "#")
			f := strings.Fields(l)
			if len(f) < 2 || f[0] != "go" || strings.Contains(l, "@latest") {
				continue // go get …@latest needs the module published
			}
			if out, err := runGo(f[1:]...); err != nil {
				if strings.Contains(out, "GOPROXY=off") {
					t.Skipf("the module cache lacks a module the README's steps need (run the root module's tests online once): %s", out)
				}
				t.Fatalf("%s: %v\n%s", strings.TrimSpace(l), err, out)
			}
		}
	}
	if out, err := runGo("build", "./..."); err != nil {
		t.Fatalf("after the README's steps, go build fails: %v\n%s", err, out)
	}
}

// TestREADMEFirstBuild: the quick start says, before the commands run, that the first
// build compiles the cgo grammars for minutes and prints nothing meanwhile.
func TestREADMEFirstBuild(t *testing.T) {
	_, sections := readme(t)
	qs := sections["Quick start"]
	for _, w := range []string{"first", "minutes", "cgo", "grammars"} {
		if !strings.Contains(qs, w) {
			t.Errorf("the quick start does not say %q about the first build:\n%s", w, qs)
		}
	}
}

// TestDocConstructorsMatchREADME: a type whose doc says "Create one with" names every
// constructor of it that the README's snippets use (the patch README uses Open; the doc
// once named only New).
func TestDocConstructorsMatchREADME(t *testing.T) {
	text, _ := readme(t)
	for _, pkg := range []string{"patch", "loopguard", "webfetch", "format", "pathguard", "astsearch", "taskboard"} {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, filepath.Join(clone, pkg), func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			d := doc.New(p, "github.com/harnesskit/harnesskit/"+pkg, 0)
			for _, typ := range d.Types {
				_, says, ok := strings.Cut(typ.Doc, "Create one with")
				if !ok {
					continue
				}
				says, _, _ = strings.Cut(says, ".")
				for _, f := range typ.Funcs {
					if strings.Contains(text, pkg+"."+f.Name+"(") && !strings.Contains(says, f.Name) {
						t.Errorf("%s.%s's doc says \"Create one with%s\" but the README creates one with %s.%s", pkg, typ.Name, says, pkg, f.Name)
					}
				}
			}
		}
	}
}
