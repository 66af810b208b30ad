package main

import (
	"context"
	"errors"
	"os"

	"github.com/harnesskit/harnesskit/astsearch"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/golang" // the sample workspace's code is Go: the one grammar the demo compiles
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/wfs"
)

// astsearchUnavailable says why the astsearch step cannot run here ("" when it can): the
// native backend needs cgo, the fallback needs the ast-grep executable.
func astsearchUnavailable() string {
	if _, err := astsearch.Native(); err == nil {
		return ""
	}
	b := astsearch.Default()
	if b.Supports(astsearch.Go) {
		if _, err := b.Find(context.Background(), astsearch.Query{Pattern: "x", Lang: astsearch.Go}, nil); err == nil {
			return ""
		} else if errors.Is(err, astsearch.ErrUnavailable) {
			return "built without cgo and no ast-grep executable found (set HARNESSKIT_AST_GREP)"
		}
	}
	return "no astsearch backend"
}

// astsearchStep finds every fmt.Sprintf call in the sample workspace by structure, shows the
// dry-run diff of a rewrite, then applies it.
func astsearchStep(ctx context.Context, e *env) error {
	if why := astsearchUnavailable(); why != "" {
		e.printf("skipped: %s\n", why)
		return nil
	}
	guard, err := pathguard.NewContainment(e.root)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(e.root)
	if err != nil {
		return err
	}
	defer root.Close()
	req := astsearch.Request{
		Pattern: "fmt.Sprintf($FORMAT, $$$ARGS)",
		Lang:    astsearch.Go,
		Paths:   []string{"src"},
		Guard:   guard,
		Dir:     e.root,
	}
	res, err := astsearch.Search(ctx, root.FS(), req)
	if err != nil {
		return err
	}
	e.printf("Search %q (lang go) in src:\n%s\n", req.Pattern, astsearch.FormatSearch(res, 0))

	req.Paths = []string{"lib"}
	if _, err := astsearch.Search(ctx, root.FS(), req); err != nil {
		e.printf("\nSearch in a missing directory is an error, not \"No matches found.\":\n  %v\n", err)
	}

	req.Paths = []string{"src"}
	tmpl := `"Goodbye, " + $NAME + "."`
	req.Pattern = `fmt.Sprintf("Goodbye, %s.", $NAME)`
	plan, err := astsearch.Rewrite(ctx, root.FS(), req, tmpl)
	if err != nil {
		return err
	}
	e.printf("\nRewrite %q -> %q, dry run (nothing written):\n%s", req.Pattern, tmpl, plan.Diff())
	w, err := wfs.NewOSFS(e.root)
	if err != nil {
		return err
	}
	defer w.Close()
	applied, err := plan.Apply(ctx, w, e.root)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(e.path("src/greet.go"))
	if err != nil {
		return err
	}
	e.printf("\nApplied: %d edit(s) in %v; src/greet.go now has %d bytes\n", applied.Edits, applied.Files, len(data))
	return nil
}
