package astsearch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/wfs"
	"pgregory.net/rapid"
)

// fixtureBackend is the native pipeline on the committed trees: it runs without cgo.
var fixtureBackend = &nativeBackend{factory: fixtureFactory}

const (
	srcApp   = "const fs = require('fs');\nfunction load(p) {\n  console.log(p);\n  return fs.readFileSync(p);\n}\n"
	srcUtil  = "console.log('util');\n"
	srcThree = "console.log(1);\nconsole.log(2);\nconsole.log(3);\n"
	srcCRLF  = "if (a) {\r\n  console.log(x);\r\n}\r\n"
)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o644}
	}
	return m
}

func matchKeys(r *Result) []string {
	var out []string
	for _, m := range r.Matches {
		out = append(out, fmt.Sprintf("%s:%d-%d", m.File, m.Range.ByteOffset.Start, m.Range.ByteOffset.End))
	}
	return out
}

func TestSearchEdgeCases(t *testing.T) {
	tree := map[string]string{
		"src/app.js":       srcApp,
		"src/util.js":      srcUtil,
		".hidden/x.js":     srcUtil,
		"src/.h.js":        srcUtil,
		"a.txt":            srcUtil,
		"page.html":        srcUtil,
		"empty.js":         "",
		"latin1.js":        "console.log('\xe9');\n",
		"three/three.js":   srcThree,
		"nested/n.js":      "foo(foo(1))",
		"ign/.ignore":      "skipped.js\n",
		"ign/skipped.js":   srcUtil,
		"ign/kept.js":      srcUtil,
		"nogit/.gitignore": "util.js\n",
		"nogit/util.js":    srcUtil,
		"repo/.git/HEAD":   "ref: refs/heads/main\n",
		"repo/.gitignore":  "util.js\nbuild/\n",
		"repo/util.js":     srcUtil,
		"repo/app.js":      srcApp,
		"repo/build/b.js":  srcUtil,
	}
	fsys := mapFS(tree)
	tests := []struct {
		name      string
		req       Request
		want      []string
		wantErr   error
		wantTotal int
		check     func(t *testing.T, r *Result)
	}{
		{name: "walk_skips_hidden_ignored_and_other_extensions", req: Request{Pattern: "console.log($A)"},
			want: []string{"ign/kept.js:0-19", "nogit/util.js:0-19", "repo/app.js:47-61", "src/app.js:47-61", "src/util.js:0-19", "three/three.js:0-14", "three/three.js:16-30", "three/three.js:32-46"}},
		{name: "E39_explicit_txt_not_searched", req: Request{Pattern: "console.log($A)", Paths: []string{"a.txt"}}, want: nil},
		{name: "E40_explicit_hidden_file_searched", req: Request{Pattern: "console.log($A)", Paths: []string{".hidden/x.js"}}, want: []string{".hidden/x.js:0-19"}},
		{name: "E41_gitignore_without_git_is_ignored", req: Request{Pattern: "console.log($A)", Paths: []string{"nogit"}}, want: []string{"nogit/util.js:0-19"}},
		{name: "E41_gitignore_inside_repo_and_ignore_everywhere", req: Request{Pattern: "console.log($A)", Paths: []string{"repo", "ign"}}, want: []string{"repo/app.js:47-61", "ign/kept.js:0-19"}},
		{name: "E42_glob_whitelists_a_file_in_ignore", req: Request{Pattern: "console.log($A)", Paths: []string{"ign"}, Globs: []string{"*.js"}}, want: []string{"ign/kept.js:0-19", "ign/skipped.js:0-19"}},
		{name: "E42_glob_does_not_enter_an_ignored_directory", req: Request{Pattern: "console.log($A)", Paths: []string{"repo"}, Globs: []string{"build/**"}}, want: nil},
		{name: "glob_exclude_last_wins", req: Request{Pattern: "console.log($A)", Paths: []string{"src"}, Globs: []string{"*.js", "!util.js"}}, want: []string{"src/app.js:47-61"}},
		{name: "E10_nested_matches_outer_first", req: Request{Pattern: "foo($$$)", Paths: []string{"nested"}}, want: []string{"nested/n.js:0-11", "nested/n.js:4-10"}},
		{name: "E45_missing_path_is_blocked", req: Request{Pattern: "console.log($A)", Paths: []string{"nope"}}, wantErr: pathguard.ErrMissing},
		{name: "E45_file_as_directory_is_blocked", req: Request{Pattern: "console.log($A)", Paths: []string{"src/util.js/x"}}, wantErr: ErrBlocked},
		{name: "E46_escaping_path_is_blocked", req: Request{Pattern: "console.log($A)", Paths: []string{"../etc"}}, wantErr: ErrBlocked},
		{name: "E1_lone_multi_metavariable_rejected", req: Request{Pattern: "$$$A"}, wantErr: ErrBadPattern},
		{name: "unknown_language", req: Request{Pattern: "x", Lang: "cobol"}, wantErr: ErrUnknownLang},
		{name: "E53_max_matches_minus_one", req: Request{Pattern: "console.log($A)", Paths: []string{"three"}, MaxMatches: 2},
			want: []string{"three/three.js:0-14", "three/three.js:16-30"}, wantTotal: 3,
			check: func(t *testing.T, r *Result) {
				if !r.Truncated || r.TruncatedReason != "max_matches" {
					t.Errorf("truncated %v %q", r.Truncated, r.TruncatedReason)
				}
			}},
		{name: "E53_max_matches_exact", req: Request{Pattern: "console.log($A)", Paths: []string{"three"}, MaxMatches: 3},
			want: []string{"three/three.js:0-14", "three/three.js:16-30", "three/three.js:32-46"}, wantTotal: 3,
			check: func(t *testing.T, r *Result) {
				if r.Truncated {
					t.Errorf("truncated at exactly the cap")
				}
			}},
		{name: "max_output_bytes", req: Request{Pattern: "console.log($A)", Paths: []string{"three"}, MaxOutputBytes: 600},
			want: []string{"three/three.js:0-14"}, wantTotal: 3,
			check: func(t *testing.T, r *Result) {
				if r.TruncatedReason != "max_output_bytes" {
					t.Errorf("reason %q", r.TruncatedReason)
				}
			}},
		{name: "E36_skips_counted", req: Request{Pattern: "console.log($A)", Paths: []string{"empty.js", "latin1.js"}}, want: nil,
			check: func(t *testing.T, r *Result) {
				if r.Stats.Skipped.Empty != 1 || r.Stats.Skipped.NotUTF8 != 1 {
					t.Errorf("skips %+v", r.Stats.Skipped)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			if req.Lang == "" {
				req.Lang = JavaScript
			}
			req.Backend = fixtureBackend
			r, err := Search(context.Background(), fsys, req)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := matchKeys(r)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("matches\n got %v\nwant %v", got, tc.want)
			}
			if tc.wantTotal != 0 && r.TotalMatches != tc.wantTotal {
				t.Errorf("TotalMatches %d, want %d", r.TotalMatches, tc.wantTotal)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// TestPrefilterProperty: with the literal prefilter on and off, results are identical
// (the prefilter only skips files that cannot match).
func TestPrefilterProperty(t *testing.T) {
	texts := []string{srcApp, srcUtil, srcThree, srcCRLF, "console.log(x)", "foo(foo(1))", ""}
	patterns := []string{"console.log($A)", "console.log($$$)", "foo($$$)"}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(t, "files")
		fsys := fstest.MapFS{}
		for i := range n {
			fsys[fmt.Sprintf("d%d/f%d.js", i%2, i)] = &fstest.MapFile{Data: []byte(rapid.SampledFrom(texts).Draw(t, "text")), Mode: 0o644}
		}
		req := Request{Pattern: rapid.SampledFrom(patterns).Draw(t, "pattern"), Lang: JavaScript, Backend: fixtureBackend,
			Threads: rapid.IntRange(1, 3).Draw(t, "threads")}
		on, err := Search(context.Background(), fsys, req)
		if err != nil {
			t.Fatal(err)
		}
		req.NoPrefilter = true
		off, err := Search(context.Background(), fsys, req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(matchKeys(on), " ") != strings.Join(matchKeys(off), " ") || on.TotalMatches != off.TotalMatches {
			t.Fatalf("prefilter changed the result: on %v, off %v", matchKeys(on), matchKeys(off))
		}
		if on.Stats.Searched+on.Stats.Prefiltered+on.Stats.Skipped.Empty != off.Stats.Searched+off.Stats.Skipped.Empty {
			t.Fatalf("file accounting differs: %+v vs %+v", on.Stats, off.Stats)
		}
	})
}

func TestSearchCancelAndProgress(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": srcUtil, "b.js": srcUtil, "c.js": srcThree})
	var calls [][2]int
	r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Threads: 2,
		Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(calls) != "[[1 3] [2 3] [3 3]]" || r.TotalMatches != 5 {
		t.Errorf("progress %v, total %d", calls, r.TotalMatches)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: err = %v, want context.Canceled", err)
	}
}

// E24: CRLF lines keep their \r in Lines and charCount counts it; with context, charCount
// counts the context lines too (observed on ast-grep 0.51.1 with -C 1: leading 12, trailing 5).
func TestE24_crlf_lines(t *testing.T) {
	fsys := mapFS(map[string]string{"w.js": srcCRLF})
	r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Context: 1})
	if err != nil || len(r.Matches) != 1 {
		t.Fatalf("%v %+v", err, r)
	}
	m := r.Matches[0]
	if m.Lines != "if (a) {\r\n  console.log(x);\r\n}\r" || m.CharCount.Trailing != 5 || m.CharCount.Leading != 12 {
		t.Errorf("lines %q charCount %+v", m.Lines, m.CharCount)
	}
}

func rewriteFixture(t *testing.T, files map[string]string, pattern, tmpl string) (*Plan, *MemFSRoot) {
	t.Helper()
	plan, err := Rewrite(context.Background(), mapFS(files), Request{Pattern: pattern, Lang: JavaScript, Backend: fixtureBackend}, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	mem := newMemRoot(t, files)
	return plan, mem
}

// MemFSRoot is a MemFS holding a tree under Root.
type MemFSRoot struct {
	FS   wfs.FS
	Root string
}

func newMemRoot(t *testing.T, files map[string]string) *MemFSRoot {
	t.Helper()
	mem := wfs.NewMemFS()
	root := testenv.Abs("/w")
	mk := func(dir string) { mem.MkdirAll(dir, 0o755) }
	mk(root)
	for name, data := range files {
		abs := filepath.Join(root, filepath.FromSlash(name))
		mk(filepath.Dir(abs))
		f, err := mem.OpenFile(abs, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(data))
		f.Close()
	}
	return &MemFSRoot{FS: mem, Root: root}
}

func TestRewriteEdgeCases(t *testing.T) {
	t.Run("E32_identity_edit_not_written_nor_counted", func(t *testing.T) {
		plan, _ := rewriteFixture(t, map[string]string{"u.js": srcUtil}, "console.log($A)", "console.log($A)")
		if len(plan.Files) != 0 {
			t.Fatalf("planned %d files for an identity rewrite", len(plan.Files))
		}
		if FormatRewrite(plan, nil) != "No matches found for replacement." {
			t.Errorf("text %q", FormatRewrite(plan, nil))
		}
	})
	t.Run("E33_conflict_writes_nothing", func(t *testing.T) {
		files := map[string]string{"a.js": srcUtil, "b.js": srcThree}
		plan, mem := rewriteFixture(t, files, "console.log($A)", "logger.info($A)")
		f, _ := mem.FS.OpenFile(filepath.Join(mem.Root, "b.js"), os.O_WRONLY|os.O_TRUNC, 0o644)
		f.Write([]byte("changed\n"))
		f.Close()
		if _, err := plan.Apply(context.Background(), mem.FS, mem.Root); !errors.Is(err, ErrConflict) {
			t.Fatalf("err = %v, want ErrConflict", err)
		}
		if got, _ := mem.FS.ReadFile(filepath.Join(mem.Root, "a.js")); string(got) != srcUtil {
			t.Errorf("a.js written despite the conflict: %q", got)
		}
	})
	t.Run("E34_read_only_target_fails_before_any_rename", func(t *testing.T) {
		plan, mem := rewriteFixture(t, map[string]string{"a.js": srcUtil, "b.js": srcThree}, "console.log($A)", "logger.info($A)")
		if err := mem.FS.Chmod(filepath.Join(mem.Root, "b.js"), 0o444); err != nil {
			t.Fatal(err)
		}
		if _, err := plan.Apply(context.Background(), mem.FS, mem.Root); !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("err = %v, want a permission error", err)
		}
		if got, _ := mem.FS.ReadFile(filepath.Join(mem.Root, "a.js")); string(got) != srcUtil {
			t.Errorf("a.js written: %q", got)
		}
	})
	t.Run("E25_crlf_template_newline_follows_the_line", func(t *testing.T) {
		plan, mem := rewriteFixture(t, map[string]string{"w.js": srcCRLF}, "console.log($A)", "a($A)\nb($A)")
		if _, err := plan.Apply(context.Background(), mem.FS, mem.Root); err != nil {
			t.Fatal(err)
		}
		got, _ := mem.FS.ReadFile(filepath.Join(mem.Root, "w.js"))
		if want := "if (a) {\r\n  a(x)\r\n  b(x);\r\n}\r\n"; string(got) != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("E31_empty_template_deletes_only_the_range", func(t *testing.T) {
		plan, mem := rewriteFixture(t, map[string]string{"t.js": srcThree}, "console.log($A)", "")
		applied, err := plan.Apply(context.Background(), mem.FS, mem.Root)
		if err != nil || applied.Edits != 3 {
			t.Fatalf("%v %+v", err, applied)
		}
		if got, _ := mem.FS.ReadFile(filepath.Join(mem.Root, "t.js")); string(got) != ";\n;\n;\n" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("E10_nested_rewrite_outer_wins", func(t *testing.T) {
		plan, _ := rewriteFixture(t, map[string]string{"n.js": "foo(foo(1))"}, "foo($$$)", "bar()")
		if len(plan.Files) != 1 || len(plan.Files[0].Edits) != 1 || len(plan.Files[0].Dropped) != 1 {
			t.Fatalf("plan %+v", plan.Files)
		}
	})
}

// TestDiffRoundTrip applies each planned diff with `git apply` and compares with the planned
// content (skipped without git).
func TestDiffRoundTrip(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not found: the diff round trip needs `git apply`")
	}
	files := map[string]string{"src/app.js": srcApp, "src/util.js": srcUtil, "t.js": srcThree, "w.js": srcCRLF, "n.js": "foo(foo(1))"}
	for _, tc := range []struct{ pattern, tmpl string }{
		{"console.log($A)", "logger.info($A)"},
		{"console.log($A)", ""},
		{"console.log($A)", "a($A)\nb($A)"},
		{"foo($$$)", "bar()"},
	} {
		plan, err := Rewrite(context.Background(), mapFS(files), Request{Pattern: tc.pattern, Lang: JavaScript, Backend: fixtureBackend}, tc.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for name, data := range files {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
			os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
		}
		cmd := exec.Command(git, "apply", "--unsafe-paths", "-")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(string(plan.Diff()))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%q -> %q: git apply: %v\n%s\n%s", tc.pattern, tc.tmpl, err, out, plan.Diff())
		}
		for _, fp := range plan.Files {
			got, _ := os.ReadFile(filepath.Join(dir, fp.Path))
			if string(got) != string(fp.Content) {
				t.Errorf("%s after git apply: %q, planned %q", fp.Path, got, fp.Content)
			}
		}
	}
}
