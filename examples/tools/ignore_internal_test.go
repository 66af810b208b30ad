package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestIgnoreRules(t *testing.T) {
	tests := []struct {
		name, gitignore, path string
		dir                   bool
		want                  bool
	}{
		{name: "basename_any_depth", gitignore: "*.log", path: "a/b/x.log", want: true},
		{name: "basename_no_match", gitignore: "*.log", path: "a/x.go", want: false},
		{name: "anchored_leading_slash", gitignore: "/x.go", path: "a/x.go", want: false},
		{name: "anchored_top", gitignore: "/x.go", path: "x.go", want: true},
		{name: "middle_slash_anchored", gitignore: "a/x.go", path: "b/a/x.go", want: false},
		{name: "dir_only_on_file", gitignore: "build/", path: "build", want: false},
		{name: "dir_only_on_dir", gitignore: "build/", path: "sub/build", dir: true, want: true},
		{name: "negation_last_wins", gitignore: "*.log\n!keep.log", path: "keep.log", want: false},
		{name: "negation_then_reignore", gitignore: "!keep.log\n*.log", path: "keep.log", want: true},
		{name: "comment_and_blank", gitignore: "# x.go\n\n", path: "x.go", want: false},
		{name: "escaped_hash", gitignore: `\#x`, path: "#x", want: true},
		{name: "double_star_middle", gitignore: "a/**/z", path: "a/b/c/z", want: true},
		{name: "double_star_lead", gitignore: "**/gen", path: "x/gen", dir: true, want: true},
		{name: "braces_literal", gitignore: "{a,b}", path: "a", want: false},
		{name: "braces_literal_match", gitignore: "{a,b}", path: "{a,b}", want: true},
		{name: "trailing_space_trimmed", gitignore: "x.go   ", path: "x.go", want: true},
		{name: "class", gitignore: "[ab].txt", path: "b.txt", want: true},
		{name: "question", gitignore: "?.txt", path: "ab.txt", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &ignoreSet{rules: parseGitignore([]byte(tc.gitignore))}
			if got := s.ignored(tc.path, tc.dir); got != tc.want {
				t.Fatalf("ignored(%q) = %v, want %v (rules %+v)", tc.path, got, tc.want, s.rules)
			}
		})
	}
}

// TestIgnoreAgainstGit compares the files walkFiles keeps with what git lists as not
// ignored in a small tree with nested .gitignore files. It skips without git.
func TestIgnoreAgainstGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not found on PATH: the differential ignore test needs it (apt-get install git)")
	}
	dir := t.TempDir()
	files := map[string]string{
		".gitignore": "*.log\n/top.txt\nbuild/\n!keep.log\ndocs/**/draft*\n",
		"top.txt":    "", "sub/top.txt": "", "a.log": "", "keep.log": "", "sub/b.log": "",
		"build/x.go": "", "sub/build/y.go": "", "docs/a/draft1.md": "", "docs/final.md": "",
		"sub/.gitignore": "*.go\n!main.go\n", "sub/main.go": "", "sub/other.go": "",
		"sub/deep/.gitignore": "!other.go\n", "sub/deep/other.go": "", "sub/deep/x.txt": "",
		".hidden/h.txt": "", "src/[x].txt": "",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
	}
	run := func(args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q")
	want := strings.Fields(run("-c", "core.excludesFile=/dev/null", "ls-files", "--others", "--exclude-standard"))
	sort.Strings(want)
	r, _ := os.OpenRoot(dir)
	defer r.Close()
	var got []string
	walkFiles(t.Context(), r, ".", nil, func(d *dirHandle, rel string) error { d.release(); got = append(got, rel); return nil })
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("walk kept:\n%s\n\ngit keeps:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
