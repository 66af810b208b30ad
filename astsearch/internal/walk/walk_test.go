package walk

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/harnesskit/harnesskit/internal/testenv"
)

func list(t *testing.T, fsys fstest.MapFS, roots []string, opt Options) []string {
	t.Helper()
	var got []string
	if err := Walk(context.Background(), fsys, roots, opt, func(n string) error { got = append(got, n); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWalkRules(t *testing.T) {
	fsys := fstest.MapFS{
		".git/HEAD":       {Data: []byte("x")},
		".gitignore":      {Data: []byte("*.log\nbuild/\n/root.txt\ndocs/*.md\n!docs/keep.md\n")},
		"root.txt":        {Data: []byte("x")},
		"sub/root.txt":    {Data: []byte("x")},
		"a.log":           {Data: []byte("x")},
		"build/b.txt":     {Data: []byte("x")},
		"docs/x.md":       {Data: []byte("x")},
		"docs/keep.md":    {Data: []byte("x")},
		".env":            {Data: []byte("x")},
		".cache/c.txt":    {Data: []byte("x")},
		"sub/.ignore":     {Data: []byte("*.txt\n")},
		"sub/s.txt":       {Data: []byte("x")},
		"sub/s.go":        {Data: []byte("x")},
		"z/deep/keep.txt": {Data: []byte("x")},
	}
	tests := []struct {
		name  string
		roots []string
		opt   Options
		want  []string
	}{
		{name: "defaults", roots: []string{"."}, want: []string{"docs/keep.md", "sub/s.go", "z/deep/keep.txt"}},
		{name: "hidden", roots: []string{"."}, opt: Options{Hidden: true},
			want: []string{".cache/c.txt", ".env", ".git/HEAD", ".gitignore", "docs/keep.md", "sub/.ignore", "sub/s.go", "z/deep/keep.txt"}}, // like rg --hidden, .git is walked too
		{name: "no_ignore", roots: []string{"."}, opt: Options{NoIgnore: true}, want: []string{"a.log", "build/b.txt", "docs/keep.md", "docs/x.md", "root.txt", "sub/root.txt", "sub/s.go", "sub/s.txt", "z/deep/keep.txt"}},
		{name: "E40_explicit_ignored_file", roots: []string{"a.log", ".env"}, want: []string{"a.log", ".env"}},
		{name: "E43_subdir_root_keeps_parent_rules", roots: []string{"docs"}, want: []string{"docs/keep.md"}},
		{name: "glob_whitelist_only", roots: []string{"."}, opt: Options{Globs: []string{"*.go"}}, want: []string{"sub/s.go"}},
		{name: "E42_whitelist_beats_ignore_file", roots: []string{"sub"}, opt: Options{Globs: []string{"*.txt"}}, want: []string{"sub/root.txt", "sub/s.txt"}},
		{name: "want_filter", roots: []string{"."}, opt: Options{Want: func(n string) bool { return strings.HasSuffix(n, ".md") }}, want: []string{"docs/keep.md"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := list(t, fsys, tc.roots, tc.opt); !slices.Equal(got, tc.want) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestIgnoreAgainstGit compares the .gitignore verdicts with `git check-ignore --no-index`
// on a real tree (skipped without git).
func TestIgnoreAgainstGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not found: the ignore oracle is `git check-ignore`")
	}
	dir := t.TempDir()
	rules := "*.log\n!keep.log\nbuild/\n/top.txt\ndocs/*.md\n**/tmp/**\na/**/b.txt\nnode_modules\n*.min.*\n"
	files := []string{"x.log", "keep.log", "d/x.log", "build/y.txt", "d/build/z.txt", "top.txt", "d/top.txt", "docs/r.md", "docs/s/r.md",
		"q/tmp/f.txt", "a/b.txt", "a/x/y/b.txt", "node_modules/m.js", "d/node_modules/n.js", "app.min.js", "plain.txt"}
	run := func(args ...string) []byte {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		out, _ := cmd.Output()
		return out
	}
	run("init", "-q")
	fsys := fstest.MapFS{".git/HEAD": {Data: []byte("x")}, ".gitignore": {Data: []byte(rules)}}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
		fsys[f] = &fstest.MapFile{Data: []byte("x")}
	}
	walked := map[string]bool{}
	for _, f := range list(t, fsys, []string{"."}, Options{}) {
		walked[f] = true
	}
	for _, f := range files {
		ignored := strings.TrimSpace(string(run("check-ignore", "--no-index", f))) != ""
		if walked[f] == ignored {
			t.Errorf("%s: git says ignored=%v, the walk listed it=%v", f, ignored, walked[f])
		}
	}
}

// E47: symbolic links are skipped unless FollowSymlinks; with it, a loop is cut.
func TestE47_symlinks(t *testing.T) {
	testenv.Symlinks(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "real"), 0o755)
	os.WriteFile(filepath.Join(dir, "real", "a.js"), []byte("x"), 0o644)
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	os.Symlink("a.js", filepath.Join(dir, "real", "b.js"))
	os.Symlink("..", filepath.Join(dir, "real", "loop"))
	walk := func(opt Options) []string {
		var got []string
		if err := Walk(context.Background(), os.DirFS(dir), []string{"."}, opt, func(n string) error { got = append(got, n); return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := walk(Options{}); !slices.Equal(got, []string{"real/a.js"}) {
		t.Errorf("default: %v", got)
	}
	got := walk(Options{FollowSymlinks: true})
	if !slices.Contains(got, "link/a.js") || !slices.Contains(got, "real/b.js") || len(got) > 200 {
		t.Errorf("follow: %d files, %v", len(got), got[:min(len(got), 10)])
	}
}

// TestHeldSymlinkInputs holds inputs that once made the walk leave the fs root or run
// without end, on a real tree through os.DirFS (which itself follows any link).
func TestHeldSymlinkInputs(t *testing.T) {
	testenv.Symlinks(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, outside string)
		want  []string // files listed, or nil for "no file from outside and it ends"
		max   int      // at most this many files
	}{
		{name: "file_link_to_outside_root", setup: func(t *testing.T, dir, outside string) {
			mustLink(t, filepath.Join(outside, "secret.go"), filepath.Join(dir, "out.go"))
		}, want: []string{"in.go"}},
		{name: "dir_link_through_link_to_outside", setup: func(t *testing.T, dir, outside string) {
			mustLink(t, outside, filepath.Join(dir, "b")) // absolute: skipped itself
			mustLink(t, "b", filepath.Join(dir, "a"))     // lexically inside, really outside
		}, want: []string{"in.go"}},
		{name: "dir_link_relative_through_link_to_parent", setup: func(t *testing.T, dir, outside string) {
			mustLink(t, "..", filepath.Join(dir, "up")) // skipped itself
			mustLink(t, "up/"+filepath.Base(outside), filepath.Join(dir, "a"))
		}, want: []string{"in.go"}},
		{name: "two_links_each_way_loop", setup: func(t *testing.T, dir, outside string) {
			for _, d := range []string{"p", "q"} {
				os.MkdirAll(filepath.Join(dir, d), 0o755)
				os.WriteFile(filepath.Join(dir, d, d+".go"), []byte("x"), 0o644)
			}
			for _, l := range []string{"l1", "l2", "l3"} {
				mustLink(t, "../q", filepath.Join(dir, "p", l))
				mustLink(t, "../p", filepath.Join(dir, "q", l))
			}
		}, max: 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
			os.MkdirAll(dir, 0o755)
			os.MkdirAll(outside, 0o755)
			os.WriteFile(filepath.Join(dir, "in.go"), []byte("x"), 0o644)
			os.WriteFile(filepath.Join(outside, "secret.go"), []byte("x"), 0o644)
			tc.setup(t, dir, outside)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var got []string
			err := Walk(ctx, os.DirFS(dir), []string{"."}, Options{FollowSymlinks: true}, func(n string) error {
				got = append(got, n)
				if tc.max > 0 && len(got) > tc.max {
					return fmt.Errorf("more than %d files listed: %v", tc.max, got[:10])
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func mustLink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}
