package crashtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// A writer is one way of committing a multi-file edit that the kill test alternates between
// two trees, a and b (relative path → content; a name ending in "/" is a directory).
type writer struct {
	name string
	a, b map[string]string
	// there commits a → b, back commits b → a.
	there, back func(ctx context.Context, dir string) error
	// needs is a reason the writer cannot run here ("" when it can).
	needs func() string
}

func writers() []writer {
	return []writer{patchWriter(), astWriter()}
}

const (
	patchThere = `*** Begin Patch
*** Update File: a.txt
@@
-a0
+a1
*** Update File: sub/c.txt
@@
-c0
+c1
*** Delete File: old.txt
*** Add File: new/n.txt
+n
*** Update File: b.txt
*** Move to: new/b.txt
@@
-b0
+b1
*** End Patch
`
	patchBack = `*** Begin Patch
*** Update File: a.txt
@@
-a1
+a0
*** Update File: sub/c.txt
@@
-c1
+c0
*** Add File: old.txt
+o
*** Delete File: new/n.txt
*** Update File: new/b.txt
*** Move to: b.txt
@@
-b1
+b0
*** End Patch
`
)

// patchWriter commits a five-file patch (two updates, a delete, an add, a move) through
// patch.Open, which recovers the tree first, as the next "harnesskit patch apply" does.
func patchWriter() writer {
	apply := func(text string) func(context.Context, string) error {
		return func(ctx context.Context, dir string) error {
			a, err := patch.Open(dir)
			if err != nil {
				return err
			}
			defer a.Close()
			_, err = a.Apply(ctx, text)
			return err
		}
	}
	return writer{
		name:  "patch",
		a:     map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "sub/": "", "sub/c.txt": "c0\n", "old.txt": "o\n", "new/": "", "new/keep.txt": "k\n"},
		b:     map[string]string{"a.txt": "a1\n", "new/b.txt": "b1\n", "sub/": "", "sub/c.txt": "c1\n", "new/n.txt": "n\n", "new/": "", "new/keep.txt": "k\n"},
		there: apply(patchThere), back: apply(patchBack),
		needs: func() string { return "" },
	}
}

// astWriter commits a rewrite of two files (in two directories) through Plan.Apply.
func astWriter() writer {
	rewrite := func(pattern, tmpl string) func(context.Context, string) error {
		return func(ctx context.Context, dir string) error {
			plan, err := astsearch.Rewrite(ctx, os.DirFS(dir), astsearch.Request{Pattern: pattern, Lang: astsearch.JavaScript,
				Paths: []string{"x.js", "sub/y.js"}}, tmpl)
			if err != nil {
				return err
			}
			if len(plan.Files) != 2 {
				return fmt.Errorf("planned %d files, want 2", len(plan.Files))
			}
			w, err := wfs.NewOSFS(dir)
			if err != nil {
				return err
			}
			defer w.Close()
			_, err = plan.Apply(ctx, w, dir)
			return err
		}
	}
	return writer{
		name:  "astsearch",
		a:     map[string]string{"x.js": "console.log(1);\nconsole.log(2);\n", "sub/": "", "sub/y.js": "console.log(3);\n", "z.js": "console.log(4);\n"},
		b:     map[string]string{"x.js": "logger.info(1);\nlogger.info(2);\n", "sub/": "", "sub/y.js": "logger.info(3);\n", "z.js": "console.log(4);\n"},
		there: rewrite("console.log($A)", "logger.info($A)"), back: rewrite("logger.info($A)", "console.log($A)"),
		needs: func() string {
			if _, err := astsearch.Native(); err != nil {
				return "astsearch's native backend is unavailable (built without cgo): " + err.Error()
			}
			return ""
		},
	}
}

func writerNamed(name string) (writer, bool) {
	for _, w := range writers() {
		if w.name == name {
			return w, true
		}
	}
	return writer{}, false
}

// plant writes tree into dir.
func plant(dir string, tree map[string]string) error {
	for rel, data := range tree {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// snapshot reads dir back in plant's shape: every entry, hidden ones included.
func snapshot(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			out[rel+"/"] = ""
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		default:
			out[rel] = "<" + d.Type().String() + ">"
		}
		return nil
	})
	return out, err
}

// commitLoop is the child of the kill test: it says "go" and commits the writer's edit
// there and back until it is killed.
func commitLoop(ctx context.Context, name, dir string) int {
	w, ok := writerNamed(name)
	if !ok {
		fmt.Fprintln(os.Stderr, "unknown writer", name)
		return 2
	}
	os.Stdout.WriteString("go\n")
	for i := 0; ; i++ {
		err := w.there(ctx, dir)
		if err != nil {
			err = w.back(ctx, dir)
		}
		if err != nil && !errors.Is(err, patch.ErrBusy) && !errors.Is(err, wfs.ErrBusy) {
			fmt.Fprintf(os.Stderr, "commit %d: %v\n", i, err)
			time.Sleep(time.Millisecond)
		}
	}
}
