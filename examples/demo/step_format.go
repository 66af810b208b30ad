package main

import (
	"context"
	"strings"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// formatStep applies a patch whose new Go file the model wrote untidily, with the project's
// formatter wired into patch: gofmt (in process) tidies that file before the commit, and the
// model is told the diff, since its next patch must match the tidied text. A second file does
// not parse, so it is written as the patch made it and the model is told why; the README has
// no formatter in this project and is left alone.
func formatStep(ctx context.Context, e *env) error {
	f, err := format.New(e.root) // automatic mode: only formatters the project declares
	if err != nil {
		return err
	}
	fsys, err := wfs.NewOSFS(e.root)
	if err != nil {
		return err
	}
	defer fsys.Close()
	a, err := patch.New(fsys, e.root, patch.WithFormatter(f))
	if err != nil {
		return err
	}
	text := `*** Begin Patch
*** Add File: src/farewell.go
+package greet
+import "strings"
+// Shout returns s in capitals.
+func Shout( s string ) string { return strings.ToUpper(s)+"!" }
*** Add File: src/draft.go
+package greet
+func Draft() {
*** Update File: README.md
@@
+Formatting: gofmt runs on every Go file an agent writes.
*** End Patch`
	e.printf("The model's patch:\n")
	for _, l := range strings.Split(text, "\n") {
		e.printf("    %s\n", l)
	}
	res, err := a.Apply(ctx, text)
	if err != nil {
		return err
	}
	e.printf("Applied. %s", res.Summary)
	e.printf("\nWhat the model is told about formatting, per file:\n")
	for _, c := range res.Changes {
		switch {
		case c.FormatDiff != "":
			e.printf("  %s: formatted by %s:\n    %s\n", c.Path, c.Formatter,
				strings.ReplaceAll(strings.TrimSuffix(c.FormatDiff, "\n"), "\n", "\n    "))
		case c.FormatNote != "":
			e.printf("  %s: %s: %s\n", c.Path, c.Formatter, c.FormatNote)
		default:
			e.printf("  %s: no formatter declared for this file: written as the patch made it\n", c.Path)
		}
	}
	return nil
}
