package main

import (
	"context"
	"strings"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/patch"
)

// formatStep applies a patch whose new Go file the model wrote untidily, then formats the
// written files as a host's write path would: gofmt (in process) tidies the first, and the
// model is told the diff, since its next patch must match the tidied text; the second does
// not parse, so it stays as written and the model is told why. The README is left alone:
// no formatter is declared for Markdown in the sample workspace.
func formatStep(ctx context.Context, e *env) error {
	fsys, err := patch.NewOSFS(e.root)
	if err != nil {
		return err
	}
	defer fsys.Close()
	a, err := patch.New(fsys, e.root)
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

	f, err := format.New(e.root) // automatic mode: only formatters the project declares
	if err != nil {
		return err
	}
	e.printf("\nFormatting each written file (what the model is told):\n")
	for _, name := range []string{"src/farewell.go", "src/draft.go", "README.md"} {
		r := f.File(ctx, name)
		rep := r.Report()
		if rep == "" {
			rep = "no formatter declared for this file: left as written"
		}
		e.printf("  %s: %s\n", name, strings.ReplaceAll(strings.TrimSuffix(rep, "\n"), "\n", "\n    "))
	}
	return nil
}
