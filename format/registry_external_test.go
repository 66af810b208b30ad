package format_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/harnesskit/harnesskit/format"
)

var update = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares got with testdata/<name>, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./format -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the output (review, then go test ./format -update):\n--- got\n%s", p, got)
	}
}

// TestRegistryGolden dumps the built-in registry as JSON, so a change to it is a reviewable
// diff of testdata/registry.golden.json.
func TestRegistryGolden(t *testing.T) {
	b, err := json.MarshalIndent(format.Builtins(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "registry.golden.json", append(b, '\n'))
	// The dump loads back into the same registry.
	var back []format.Def
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(format.Builtins(), back); diff != "" {
		t.Errorf("registry JSON round trip (-builtins +loaded):\n%s", diff)
	}
}

// TestRegistryInvariants checks what the registry's data promises: the shipped minimum is
// there, names are unique, suffixes are lower case with a dot, NeedsOptIn is set exactly
// when no evidence goes beyond a binary (and a probe), every command but the in-process one
// names a binary, and stdin-mode commands never write the file.
func TestRegistryInvariants(t *testing.T) {
	reg := format.Builtins()
	names := map[string]bool{}
	for _, d := range reg {
		if names[d.Name] {
			t.Errorf("duplicate name %s", d.Name)
		}
		names[d.Name] = true
		for _, e := range d.Extensions {
			if !strings.HasPrefix(e, ".") || strings.ToLower(e) != e {
				t.Errorf("%s: extension %q must be lower case and start with a dot", d.Name, e)
			}
		}
		projectEvidence := slices.ContainsFunc(d.Evidence, func(e format.Evidence) bool {
			return len(e.ConfigFiles) > 0 || len(e.FileContains) > 0 || e.NPMDep != "" || e.ComposerDep != ""
		})
		if wantOptIn := d.InProcess == "" && !projectEvidence; d.NeedsOptIn != wantOptIn {
			t.Errorf("%s: NeedsOptIn = %v, want %v (project evidence: %v)", d.Name, d.NeedsOptIn, wantOptIn, projectEvidence)
		}
		if len(d.Args) == 0 {
			t.Errorf("%s: no command", d.Name)
		}
		if d.Mode == format.Stdin && d.InProcess == "" && slices.ContainsFunc(d.Args, func(a string) bool {
			return a == "-w" || a == "-i" || a == "--write" || a == "--fix"
		}) {
			t.Errorf("%s: a stdin formatter must not be told to write in place: %q", d.Name, d.Args)
		}
	}
	for _, want := range []string{"gofmt", "prettier", "biome", "clang-format", "shfmt", "ruff", "black", "rustfmt", "terraform", "zig", "stylua",
		"mix", "ktlint", "htmlbeautifier", "dart", "ocamlformat", "latexindent", "gleam", "nixfmt", "pint", "ormolu", "cljfmt", "dfmt",
		"swiftformat", "scalafmt", "typst", "csharpier", "rubocop", "standardrb", "uv", "air", "oxfmt"} {
		if !names[want] {
			t.Errorf("registry lacks %s", want)
		}
	}
}
