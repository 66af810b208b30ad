package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/pathguard"
)

// pathguardStep shows the two halves of pathguard: the grep/glob pre-check refusing a
// search path that does not exist (with the message the model sees), and containment
// refusing a write target that escapes the workspace while accepting a name that merely
// starts with "..".
func pathguardStep(_ context.Context, e *env) error {
	g := pathguard.NewSearchGuard(pathguard.WithHost(pathguard.HostV1))
	e.printf("Search-path pre-check (host v1, the running OS's path rules):\n")
	for _, c := range []struct{ tool, path string }{
		{"grep", "src"},
		{"grep", "lib"},
		{"glob", "src/missing"},
	} {
		resolved := g.Resolve(c.tool, e.root, c.path)
		err := g.Check(c.tool, map[string]any{"path": c.path, "pattern": "Hello"}, e.root)
		switch {
		case err == nil:
			e.printf("  %s path=%q -> %s exists: passed\n", c.tool, c.path, resolved)
		case errors.Is(err, pathguard.ErrMissing), errors.Is(err, pathguard.ErrNotDirectory):
			e.printf("  %s path=%q -> refused:\n    %v\n", c.tool, c.path, err)
		default:
			return err
		}
	}

	c, err := pathguard.NewContainment(e.root)
	if err != nil {
		return err
	}
	e.printf("\nContainment in $WORKSPACE (lexical and after symlinks):\n")
	for _, target := range []string{"src/new/file.go", "..cache/notes.txt", "../outside.txt", "src/../../etc/passwd"} {
		t, err := c.Check(target)
		switch {
		case err == nil:
			e.printf("  %-22s inside, Rel %s\n", target, t.Rel)
		case errors.Is(err, pathguard.ErrOutside):
			// The workspace's parent is the demo's temporary directory: name it by
			// its relation to the workspace so the transcript is the same everywhere.
			msg := strings.ReplaceAll(err.Error(), e.root, "$WORKSPACE")
			msg = strings.ReplaceAll(msg, filepath.Dir(e.root), "$WORKSPACE/..")
			e.printf("  %-22s refused: %s\n", target, msg)
		default:
			return err
		}
	}
	return nil
}
