package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/harnesskit/harnesskit/patch"
)

// patchStep applies four patches a model might send: one whose context leaves out a line of
// the file, rescued by aligning it with the file; a stale one (the line it removes changed
// since the model read it), refused with both versions of the line; an ambiguous one that is
// refused instead of guessed; and one naming a path outside the workspace, blocked before
// anything is read.
func patchStep(ctx context.Context, e *env) error {
	a, err := patch.Open(e.root)
	if err != nil {
		return err
	}
	defer a.Close()
	cases := []struct{ title, text string }{
		{
			title: "A patch whose context leaves out a line (the doc comment above Hello)",
			text: `*** Begin Patch
*** Update File: src/greet.go
@@
 import "fmt"
 
 func Hello(name string) string {
-	return fmt.Sprintf("Hello, %s!", name)
+	return fmt.Sprintf("Hi, %s!", name)
 }
*** End Patch`,
		},
		{
			title: "A stale patch: the model remembers an older Hello body",
			text: `*** Begin Patch
*** Update File: src/greet.go
@@
 func Hello(name string) string {
-	return "Hello, " + name + "!"
+	return "Hey, " + name + "!"
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
				e.printf("  chunk %d of %s: %s\n", r.Chunk, r.Path, inPlainWords(r))
			}
			for _, ch := range res.Changes {
				before, after := strings.Split(string(ch.Before), "\n"), strings.Split(string(ch.After), "\n")
				for i := range min(len(before), len(after)) {
					if before[i] != after[i] {
						e.printf("  line %d before: %s\n  line %d after:  %s\n", i+1, strings.TrimSpace(before[i]), i+1, strings.TrimSpace(after[i]))
						break
					}
				}
			}
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

// inPlainWords says how a chunk was placed, for a reader who does not know the strategies.
func inPlainWords(r patch.ChunkReport) string {
	switch r.Strategy {
	case patch.StrategyExact:
		return "found exactly as written"
	case patch.StrategyPrefixSuffix, patch.StrategyLCS:
		paired := 0
		for _, q := range r.Pairing {
			if q > 0 {
				paired++
			}
		}
		kept := r.Len - paired
		skipped := len(r.Pairing) - paired
		var parts []string
		if kept > 0 {
			parts = append(parts, fmt.Sprintf("the file has %d %s the patch's context left out, kept as %s", kept, lines(kept), pronoun(kept)))
		}
		if skipped > 0 {
			parts = append(parts, fmt.Sprintf("%d context %s of the patch %s not in the file", skipped, lines(skipped), isAre(skipped)))
		}
		parts = append(parts, fmt.Sprintf("only the %d %s the patch removes %s replaced", r.Removed, lines(r.Removed), wasWere(r.Removed)))
		return "rescued: " + strings.Join(parts, "; ")
	}
	return fmt.Sprintf("found when compared with %s (whitespace or typographic characters differed)", r.Strategy)
}

func lines(n int) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}

func pronoun(n int) string {
	if n == 1 {
		return "it is"
	}
	return "they are"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
