package testenv_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
)

// TestRemoveAll empties a tree with nested directories and a read-only file, keeps the
// directory itself unless asked, and then removes it too.
func TestRemoveAll(t *testing.T) {
	dir := testenv.TempDir(t)
	for _, d := range []string{"a/b/c", "d"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/b/c/f", "a/g", "h"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "a/g"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := testenv.RemoveAll(dir, false); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("after RemoveAll(dir, false): %v entries, %v; want an empty directory", len(ents), err)
	}
	if err := testenv.RemoveAll(dir, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("after RemoveAll(dir, true): %v; want not-exist", err)
	}
}

// TestWine: only a Windows binary can run under Wine.
func TestWine(t *testing.T) {
	if runtime.GOOS != "windows" && testenv.Wine() {
		t.Fatal("Wine() = true on " + runtime.GOOS)
	}
	t.Logf("GOOS=%s, Wine=%v", runtime.GOOS, testenv.Wine())
}

// TestAbs: the path is absolute for filepath on every OS and keeps its components.
func TestAbs(t *testing.T) {
	for _, p := range []string{"/w/root", "/w/root/a b/c.txt", "/"} {
		got := testenv.Abs(p)
		if !filepath.IsAbs(got) || filepath.ToSlash(got) != p && filepath.ToSlash(got) != "C:"+p {
			t.Errorf("Abs(%q) = %q", p, got)
		}
	}
}
