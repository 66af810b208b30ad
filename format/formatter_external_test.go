package format_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
)

// Formatter is the seam patch and astsearch declare, copied here word for word: a host passes
// a *format.Formatter straight to their WithFormatter options.
type Formatter interface {
	// Format returns the formatted bytes and the name of the formatter that ran ("" and src
	// unchanged when none applies). An error means "leave the edit as written".
	Format(ctx context.Context, path string, src []byte) (out []byte, formatter string, err error)
}

var _ Formatter = (*format.Formatter)(nil)

// TestSeam checks the seam's three outcomes and that it writes nothing.
func TestSeam(t *testing.T) {
	root := testenv.TempDir(t)
	f, err := format.New(root, format.WithLookPath(fakePath()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name, path, src string
		want, wantName  string
		wantErr         error
	}{
		{name: "no formatter applies", path: "a.txt", src: "x  y\n", want: "x  y\n", wantName: ""},
		{name: "formatted", path: "a.go", src: "package a\nvar  x = 1\n", want: "package a\n\nvar x = 1\n", wantName: "gofmt"},
		{name: "absolute path", path: filepath.Join(root, "b.go"), src: "package a\nvar  x = 1\n", want: "package a\n\nvar x = 1\n", wantName: "gofmt"},
		{name: "failure leaves the edit as written", path: "c.go", src: "package a\nvar x =\n", want: "package a\nvar x =\n", wantName: "gofmt", wantErr: format.ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, name, err := f.Format(ctx, tc.path, []byte(tc.src))
			if string(out) != tc.want || name != tc.wantName || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("Format = %q, %q, %v; want %q, %q, %v", out, name, err, tc.want, tc.wantName, tc.wantErr)
			}
		})
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("Format wrote into the root: %v", ents)
	}
}

// TestSeamConcurrent formats from several goroutines at once (run with -race).
func TestSeamConcurrent(t *testing.T) {
	root := testenv.TempDir(t)
	os.WriteFile(filepath.Join(root, "biome.json"), []byte("{}"), 0o644)
	f, err := format.New(root, format.WithLookPath(fakePath()))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				out, name, err := f.Format(context.Background(), "x.go", []byte("package x\nvar  y = 1\n"))
				if err != nil || name != "gofmt" || string(out) != "package x\n\nvar y = 1\n" {
					t.Errorf("goroutine %d: %q %q %v", i, out, name, err)
				}
				f.Detect("web/a.ts")
				f.Invalidate("biome.json")
			}
		})
	}
	wg.Wait()
}

// TestNew checks the constructor's errors.
func TestNew(t *testing.T) {
	missing := filepath.Join(testenv.TempDir(t), "missing")
	if _, err := format.New(missing); !errors.Is(err, format.ErrIO) || !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), missing+" does not exist") || strings.Contains(err.Error(), "not a directory") {
		t.Errorf("missing root: %v", err)
	}
	file := filepath.Join(testenv.TempDir(t), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := format.New(file); !errors.Is(err, format.ErrIO) || !strings.Contains(err.Error(), "is a file, not a directory") {
		t.Errorf("file as root: %v", err)
	}
	bad := format.Config{Overrides: map[string]format.Override{"deno": {Extensions: []string{".md"}}}}
	if _, err := format.New(testenv.TempDir(t), format.WithConfig(bad)); !errors.Is(err, format.ErrConfig) {
		t.Errorf("bad config: %v", err)
	}
	// WithExec and WithTimeout reach the runner.
	root := testenv.TempDir(t)
	os.WriteFile(filepath.Join(root, "a.sh"), []byte("echo hi\n"), 0o644)
	var gotArgv []string
	f, err := format.New(root, format.WithConfig(format.Config{Enabled: format.On()}),
		format.WithLookPath(func(n string) (string, error) {
			if n == "shfmt" {
				return "/x/shfmt", nil
			}
			return "", exec.ErrNotFound
		}),
		format.WithExec(func(ctx context.Context, argv []string, dir string, env []string, stdin []byte) ([]byte, []byte, error) {
			gotArgv = argv
			return []byte("echo HI\n"), nil, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	res := f.File(context.Background(), "a.sh")
	if res.Err != nil || string(res.After) != "echo HI\n" || len(gotArgv) == 0 || gotArgv[0] != "/x/shfmt" {
		t.Errorf("res %+v, argv %q", res, gotArgv)
	}
}

// TestSymlinkedRoot: a root reached through a symlink accepts absolute paths in either
// spelling.
func TestSymlinkedRoot(t *testing.T) {
	testenv.Symlinks(t)
	real := testenv.TempDir(t)
	link := filepath.Join(testenv.TempDir(t), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	f, err := format.New(link, format.WithLookPath(fakePath()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(link, "a.go"), filepath.Join(real, "b.go")} {
		os.WriteFile(p, []byte("package a\nvar  x = 1\n"), 0o644)
		res := f.File(context.Background(), p)
		if res.Err != nil || !res.Changed || res.Diff == "" || strings.Contains(res.Diff, "..") {
			t.Errorf("%s: %+v", p, res)
		}
	}
}
