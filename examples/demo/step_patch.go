package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/harnesskit/harnesskit/patch"
)

// patchStep applies three patches a model might send: a stale one (its middle line no longer
// matches the file) that is rescued between unique edges, an ambiguous one that is refused
// instead of guessed, and one naming a path outside the workspace, blocked before anything is
// read.
func patchStep(ctx context.Context, e *env) error {
	fsys, err := patch.NewOSFS(e.root)
	if err != nil {
		return err
	}
	defer fsys.Close()
	a, err := patch.New(fsys, e.root)
	if err != nil {
		return err
	}
	cases := []struct{ title, text string }{
		{
			title: "A stale patch: the model remembers an older Hello body",
			text: `*** Begin Patch
*** Update File: src/greet.go
@@
 func Hello(name string) string {
-	return "Hello, " + name + "!"
+	return fmt.Sprintf("Hi, %s!", name)
 }
 
*** End Patch`,
		},
		{
			title: "An ambiguous patch: insert after a closing brace (there are two)",
			text: `*** Begin Patch
*** Update File: src/greet.go
@@ }
+
+// Version is the package version.
+const Version = "1.0"
*** End Patch`,
		},
		{
			title: "An escaping path: the patch writes next to the workspace",
			text: `*** Begin Patch
*** Update File: notes.txt
@@
-TODO: say hello in more languages
+DONE: say hello in more languages
*** Add File: ../outside.txt
+written outside the workspace
*** End Patch`,
		},
	}
	for i, c := range cases {
		if i > 0 {
			e.printf("\n")
		}
		e.printf("%s:\n", c.title)
		for _, l := range strings.Split(c.text, "\n") {
			e.printf("    %s\n", l)
		}
		res, err := a.Apply(ctx, c.text)
		var pe *patch.Error
		switch {
		case err == nil:
			e.printf("Applied. %s", res.Summary)
			for _, r := range res.Report {
				e.printf("  chunk %d of %s placed by %s at lines %d-%d (%s)\n",
					r.Chunk, r.Path, r.Strategy, r.Start, r.Start+r.Len-1, strings.Join(r.Notes, "; "))
			}
			b, err := os.ReadFile(e.path("src/greet.go"))
			if err != nil {
				return err
			}
			e.printf("  src/greet.go now has: %s\n", strings.TrimSpace(strings.Split(string(b), "\n")[6]))
		case errors.As(err, &pe):
			e.printf("Refused (%s), nothing written:\n  %s\n", pe.Kind, strings.ReplaceAll(err.Error(), "\n", "\n  "))
		default:
			return fmt.Errorf("unexpected error: %w", err)
		}
	}
	if _, err := os.Stat(e.path("../outside.txt")); !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("outside.txt exists next to the workspace (%v)", err)
	}
	b, err := os.ReadFile(e.path("notes.txt"))
	if err != nil {
		return err
	}
	e.printf("\nnotes.txt is untouched: %q\n", strings.TrimSpace(string(b)))
	return nil
}
