package tools

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var grepFull = flag.Bool("grep.full", false, "compare grep with ripgrep on the whole of GOROOT/src instead of a subtree")

// The two patterns of the ripgrep comparison: a literal and a regular expression. Neither
// uses '.', \w or \s, whose Unicode and invalid-UTF-8 rules differ between Go's regexp and
// ripgrep's default Unicode mode.
var rgPatterns = []struct{ name, pattern string }{
	{name: "literal", pattern: regexp.QuoteMeta("ErrNotExist")},
	{name: "regex", pattern: `func \([a-z]+ \*[A-Z][A-Za-z]*\) (Close|Read)\(`},
}

// rgArgs makes ripgrep apply our rules: .gitignore files (also outside a git repository)
// and nothing else (no .ignore, .rgignore, global or parent ignore files, no
// .git/info/exclude), hidden files searched, .git skipped, symbolic links not followed
// (its default), no transcoding, two threads, one "path:line:" per matching line.
func rgArgs(pattern string) []string {
	return []string{"--no-require-git", "--no-ignore-dot", "--no-ignore-global", "--no-ignore-parent",
		"--no-ignore-exclude", "--hidden", "--glob", "!.git", "--encoding", "none", "-j", "2",
		"--no-heading", "--with-filename", "--line-number", "--no-messages", "--color", "never", "--", pattern}
}

// rgTree is the directory of the comparison: GOROOT/src/net (about 800 files) by default,
// all of GOROOT/src with -grep.full.
func rgTree(tb testing.TB) string {
	src := filepath.Join(runtime.GOROOT(), "src")
	if !*grepFull {
		src = filepath.Join(src, "net")
	}
	if _, err := os.Stat(src); err != nil {
		tb.Skipf("GOROOT source not found at %s", src)
	}
	return src
}

func rgPath(tb testing.TB) string {
	rg, err := exec.LookPath("rg")
	if err != nil {
		tb.Skip("ripgrep (rg) not found on PATH: the grep comparison needs it (apt-get install ripgrep)")
	}
	return rg
}

// runRipgrep returns the matching "path:line" set of ripgrep, and the files it called
// binary.
func runRipgrep(tb testing.TB, rg, dir, pattern string) (map[string]bool, map[string]bool) {
	cmd := exec.Command(rg, rgArgs(pattern)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			tb.Fatalf("rg: %v", err)
		}
	}
	got, binary := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(line, ")") && strings.Contains(line, ": binary file matches") {
			binary[line[:strings.Index(line, ": binary file matches")]] = true
			continue
		}
		p, rest, _ := strings.Cut(line, ":")
		n, _, _ := strings.Cut(rest, ":")
		if _, err := strconv.Atoi(n); err != nil {
			tb.Fatalf("unexpected rg line %q", line)
		}
		got[p+":"+n] = true
	}
	return got, binary
}

func runOurs(tb testing.TB, dir, pattern string, workers int) map[string]bool {
	r, err := os.OpenRoot(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	found, _, err := searchTree(context.Background(), r, nil, regexp.MustCompile("(?m)"+pattern), "", workers, DefaultMaxSearchFileSize, math.MaxInt, nil)
	if err != nil {
		tb.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range found {
		for _, l := range f.lines {
			got[f.path+":"+strconv.Itoa(l.n)] = true
		}
	}
	return got
}

// TestGrepMatchesRipgrep: on GOROOT source, our search and ripgrep with the same ignore
// rules find the same matching lines, apart from files ripgrep reports as binary (which
// ours skips whole).
func TestGrepMatchesRipgrep(t *testing.T) {
	rg := rgPath(t)
	dir := rgTree(t)
	for _, p := range rgPatterns {
		t.Run(p.name, func(t *testing.T) {
			want, binary := runRipgrep(t, rg, dir, p.pattern)
			got := runOurs(t, dir, p.pattern, 2)
			var missing, extra []string
			for k := range want {
				if !got[k] {
					missing = append(missing, k)
				}
			}
			for k := range got {
				if !want[k] {
					extra = append(extra, k)
				}
			}
			slices.Sort(missing)
			slices.Sort(extra)
			if len(missing)+len(extra) > 0 {
				t.Fatalf("%d lines only ripgrep found: %v\n%d lines only ours found: %v", len(missing), head(missing), len(extra), head(extra))
			}
			if len(want) == 0 {
				t.Fatal("the pattern matched nothing: the comparison is vacuous")
			}
			t.Logf("%s in %s: %d matching lines, identical sets (ripgrep also reported %d binary files, skipped by both)", p.name, dir, len(want), len(binary))
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 10)] }

// BenchmarkGrepVsRipgrep times our search (two workers) and ripgrep (-j 2, a process per
// run) over the same tree with the same rules. Run with -grep.full for all of GOROOT/src.
func BenchmarkGrepVsRipgrep(b *testing.B) {
	rg := rgPath(b)
	dir := rgTree(b)
	for _, p := range rgPatterns {
		b.Run(p.name+"/harnesskit", func(b *testing.B) {
			for b.Loop() {
				runOurs(b, dir, p.pattern, 2)
			}
		})
		b.Run(p.name+"/ripgrep", func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(rg, rgArgs(p.pattern)...)
				cmd.Dir = dir
				if out, err := cmd.Output(); err != nil && len(out) == 0 {
					b.Fatal(fmt.Errorf("rg: %w", err))
				}
			}
		})
	}
}
