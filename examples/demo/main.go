// Command demo is the first thing to run after cloning harnesskit: it copies a small sample
// workspace (embedded in the binary) into a temporary directory, walks through each package
// on it, and prints a transcript of what each guard or tool did and why.
//
//	go run ./examples/demo
//
// It needs no network and touches nothing outside its temporary directory, which it removes
// before it exits. The transcript is deterministic: paths are shown relative to the sample
// workspace, written $WORKSPACE.
package main

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed all:_sample
var sample embed.FS

// env is what every step gets: where to write and the workspace to work on.
type env struct {
	out  io.Writer
	root string // absolute path of the temporary copy of the sample workspace
}

// printf writes to the transcript, with the workspace path replaced by $WORKSPACE so the
// transcript is the same on every machine.
func (e *env) printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	s = strings.ReplaceAll(s, e.root, "$WORKSPACE")
	io.WriteString(e.out, s)
}

// path returns the absolute path of a slash-separated path inside the workspace.
func (e *env) path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// A step shows one package at work.
type step struct {
	title string
	run   func(ctx context.Context, e *env) error
}

// steps is the tour, in order. Each package's step lives in its own file (step_<package>.go)
// and adds one line here when the package lands.
func steps() []step {
	return []step{
		{title: "The sample workspace", run: showWorkspace},
		{title: "patch: rescue a patch that left out a line, refuse a stale and an ambiguous one, block an escaping path", run: patchStep},
		{title: "pathguard: refuse a missing search path, keep writes inside the workspace", run: pathguardStep},
		{title: "astsearch: find a pattern by structure, show the dry-run diff of a rewrite, apply it", run: astsearchStep},
		{title: "taskboard: launch, status, message, completion, result, revive, cancel", run: taskboardStep},
		{title: "loopguard: a looping read is warned, then refused", run: loopguardStep},
		{title: "webfetch: llms.txt, an article without its boilerplate, a refused redirect and address", run: webfetchStep},
		{title: "tools over MCP: list, grep, and a tool error the model can act on", run: toolsStep},
		{title: "format: gofmt tidies a patched file, and the model is told the diff", run: formatStep},
	}
}

func main() {
	if err := run(context.Background(), os.Stdout, ""); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run copies the sample into a new directory under tmpParent ("" = the system's temporary
// directory), runs every step on it, and removes it.
func run(ctx context.Context, out io.Writer, tmpParent string) (err error) {
	dir, err := os.MkdirTemp(tmpParent, "harnesskit-demo-")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.RemoveAll(dir); err == nil {
			err = rerr
		}
	}()
	// Resolve symlinks in the temporary directory itself (macOS /var → /private/var), so
	// that paths the packages resolve compare equal to the ones the demo prints.
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return err
	}
	root := filepath.Join(dir, "workspace")
	sub, err := fs.Sub(sample, "_sample")
	if err != nil {
		return err
	}
	if err := os.CopyFS(root, sub); err != nil {
		return fmt.Errorf("copying the sample workspace: %w", err)
	}
	e := &env{out: out, root: root}
	e.printf("harnesskit demo: each package at work on a sample workspace in a temporary directory.\n")
	for i, s := range steps() {
		e.printf("\n== %d. %s\n\n", i+1, s.title)
		if err := s.run(ctx, e); err != nil {
			return fmt.Errorf("step %q: %w", s.title, err)
		}
	}
	e.printf("\nDone. The temporary workspace is removed; nothing outside it was touched.\n")
	return nil
}

// showWorkspace lists the files of the sample workspace.
func showWorkspace(_ context.Context, e *env) error {
	e.printf("Files in $WORKSPACE:\n")
	return filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(e.root, p)
		if err != nil {
			return err
		}
		e.printf("  %-16s %4d bytes\n", filepath.ToSlash(rel), info.Size())
		return nil
	})
}
