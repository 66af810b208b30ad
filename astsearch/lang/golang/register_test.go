//go:build cgo

package golang_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/harnesskit/harnesskit/astsearch"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/golang"
)

// This test binary links the Go grammar only: it is a host that imported one language.

var sources = fstest.MapFS{
	"a.go": {Data: []byte("package a\n\nfunc f() { g(1) }\n")},
	"b.py": {Data: []byte("def f():\n    g(1)\n")},
}

// TestOnlyGoIsLinked: Go is searched in process; Python, whose package nobody imported,
// fails with an error naming the import to add, whether the native backend is asked
// directly, through Compile, or through Default with no ast-grep executable to fall back on.
func TestOnlyGoIsLinked(t *testing.T) {
	if got := astsearch.NativeLangs(); !slices.Equal(got, []astsearch.Lang{astsearch.Go}) {
		t.Fatalf("NativeLangs() = %v, want [go]", got)
	}
	native, err := astsearch.Native()
	if err != nil {
		t.Fatal(err)
	}
	res, err := astsearch.Search(context.Background(), sources, astsearch.Request{Pattern: "g($A)", Lang: astsearch.Go, Backend: native})
	if err != nil || len(res.Matches) != 1 {
		t.Fatalf("go search: %v, %v; want one match", res, err)
	}
	if !native.Supports(astsearch.Go) || native.Supports(astsearch.Python) {
		t.Errorf("Supports(go) = %v, Supports(python) = %v; want true, false", native.Supports(astsearch.Go), native.Supports(astsearch.Python))
	}

	t.Setenv("HARNESSKIT_AST_GREP", "harnesskit-no-such-ast-grep")
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"native_backend", func() error {
			_, err := astsearch.Search(context.Background(), sources, astsearch.Request{Pattern: "g($A)", Lang: astsearch.Python, Backend: native})
			return err
		}},
		{"default_without_ast_grep", func() error {
			_, err := astsearch.Search(context.Background(), sources, astsearch.Request{Pattern: "g($A)", Lang: "py"})
			return err
		}},
		{"compile", func() error {
			_, err := astsearch.Compile("g($A)", astsearch.Python)
			return err
		}},
		{"backend_find", func() error {
			_, err := native.Find(context.Background(), astsearch.Query{Pattern: "g($A)", Lang: astsearch.Python}, []astsearch.Source{{Path: "b.py", Data: sources["b.py"].Data}})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			var nl *astsearch.LangNotLinkedError
			if !errors.As(err, &nl) || !errors.Is(err, astsearch.ErrLangUnavailable) {
				t.Fatalf("err = %v (%T), want a *LangNotLinkedError wrapping ErrLangUnavailable", err, err)
			}
			if nl.Lang != astsearch.Python || !slices.Equal(nl.Linked, []astsearch.Lang{astsearch.Go}) {
				t.Errorf("error fields %+v, want python, linked [go]", nl)
			}
			for _, want := range []string{`import _ "github.com/harnesskit/harnesskit/astsearch/lang/python"`, "astsearch/lang/all", "can search: go"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestUnlinkedFallsBackToAstGrep: with the ast-grep executable there ($HARNESSKIT_AST_GREP,
// as CI sets it), Default searches an unlinked language through it.
func TestUnlinkedFallsBackToAstGrep(t *testing.T) {
	exe := os.Getenv("HARNESSKIT_AST_GREP")
	if exe == "" {
		t.Skip("HARNESSKIT_AST_GREP is not set: no ast-grep executable to fall back on")
	}
	res, err := astsearch.Search(context.Background(), sources, astsearch.Request{Pattern: "g($A)", Lang: astsearch.Python})
	if err != nil || len(res.Matches) != 1 || res.Matches[0].File != "b.py" {
		t.Fatalf("python through ast-grep: %+v, %v; want the one match in b.py", res, err)
	}
}
