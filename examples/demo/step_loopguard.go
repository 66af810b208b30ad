package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/harnesskit/harnesskit/loopguard"
)

// loopguardStep plays a model stuck re-reading the same file: each read returns the same
// text, so the third result carries a notice, and once five identical results have come
// back the sixth read is refused before it runs. A different call (another file) restarts
// the streak and goes through. Nothing in the workspace is changed.
func loopguardStep(_ context.Context, e *env) error {
	g, err := loopguard.New()
	if err != nil {
		return err
	}
	shown := false
	read := func(n int, rel string) error {
		args := json.RawMessage(fmt.Sprintf(`{"filePath":%q}`, e.path(rel)))
		c := loopguard.Call{Session: "demo", CallID: fmt.Sprint("read-", n), Tool: "read", Args: args}
		if err := g.Before(c); err != nil {
			var re *loopguard.RefusedError
			if !errors.As(err, &re) {
				return err
			}
			e.printf("read %d: refused before running (%s guard, %d identical results)\n  %s\n", n, re.Kind, re.Runs, err)
			return nil
		}
		data, err := os.ReadFile(e.path(rel))
		if err != nil {
			g.Abandon("demo", c.CallID)
			return err
		}
		v, err := g.After(c, loopguard.TextOutput(string(data)))
		if err != nil {
			return err
		}
		if v.Notice == "" {
			e.printf("read %d: run %d, result passed through unchanged (%d bytes)\n", n, v.Runs, len(v.Output.Text))
			return nil
		}
		if shown {
			e.printf("read %d: run %d, the notice again (now saying %d times)\n", n, v.Runs, v.Runs)
			return nil
		}
		shown = true
		e.printf("read %d: run %d, notice appended:\n", n, v.Runs)
		for _, line := range strings.Split(strings.TrimSpace(v.Notice), "\n") {
			e.printf("%s\n", strings.TrimRight("  | "+line, " "))
		}
		return nil
	}
	e.printf("A model reads notes.txt again and again; every read returns the same text.\n\n")
	for n := 1; n <= 6; n++ {
		if err := read(n, "notes.txt"); err != nil {
			return err
		}
	}
	e.printf("\nThe model changes course and reads README.md: a different call, so it runs.\n")
	return read(7, "README.md")
}
