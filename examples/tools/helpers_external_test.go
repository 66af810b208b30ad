package tools_test

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/examples/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// workspace copies testdata/workspace into a fresh temporary directory and returns it.
func workspace(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir("testdata/workspace", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/workspace", p)
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// toolbox builds a Toolbox over a fresh copy of the workspace.
func toolbox(t testing.TB, opts ...tools.Option) (*tools.Toolbox, string) {
	t.Helper()
	dir := workspace(t)
	b, err := tools.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, dir
}
