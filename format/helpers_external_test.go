package format_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/internal/udiff"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// codexFromUnified turns a unified diff of one file into a Codex apply_patch text that
// updates name: each hunk becomes an "@@" chunk with the same body, and a hunk that reaches
// the end of the old file is marked "*** End of File".
func codexFromUnified(name, diff string, oldLines int) (string, error) {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: " + name + "\n")
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	endOld := -1
	flush := func() {
		if endOld == oldLines {
			b.WriteString("*** End of File\n")
		}
	}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, `\ `):
		case strings.HasPrefix(l, "@@ "):
			flush()
			var os, on, ns, nn int
			if _, err := fmt.Sscanf(normalizeRange(l), "@@ -%d,%d +%d,%d @@", &os, &on, &ns, &nn); err != nil {
				return "", fmt.Errorf("bad hunk header %q: %v", l, err)
			}
			if on == 0 {
				os++
			}
			endOld = os - 1 + on
			b.WriteString("@@\n")
		default:
			b.WriteString(l + "\n")
		}
	}
	flush()
	b.WriteString("*** End Patch\n")
	return b.String(), nil
}

// normalizeRange writes "-a" and "+c" ranges without a length as "-a,1".
func normalizeRange(h string) string {
	f := strings.Fields(h)
	for i := 1; i <= 2 && i < len(f); i++ {
		if !strings.Contains(f[i], ",") {
			f[i] += ",1"
		}
	}
	return strings.Join(f, " ")
}

// patchExpressible says whether a Codex patch can carry the change from before to after:
// it keeps the final-newline state, a BOM and each line's terminator of context lines, so a
// change of those alone is out of its reach.
func patchExpressible(before, after []byte) bool {
	endNL := func(b []byte) bool { return len(b) == 0 || b[len(b)-1] == '\n' }
	return endNL(before) == endNL(after) && len(before) > 0 &&
		!strings.Contains(string(before), "\r") && !strings.Contains(string(after), "\r") &&
		!strings.HasPrefix(string(before), "\ufeff")
}

// fatalT is what the helpers need of a *testing.T or a *rapid.T.
type fatalT interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// applyWithPatch applies diff to before with our own patch package and returns the result.
func applyWithPatch(t fatalT, before []byte, diff string) []byte {
	t.Helper()
	m := wfs.NewMemFS()
	if err := m.WriteFile(testenv.Abs("/w/f.txt"), before, 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := codexFromUnified("f.txt", diff, strings.Count(string(before), "\n")+boolInt(!strings.HasSuffix(string(before), "\n") && len(before) > 0))
	if err != nil {
		t.Fatal(err)
	}
	a, err := patch.New(m, testenv.Abs("/w"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Apply(context.Background(), text); err != nil {
		t.Fatalf("patch did not apply the formatter's diff: %v\n%s", err, text)
	}
	out, err := m.ReadFile(testenv.Abs("/w/f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// applyUnified applies a unified diff strictly (by line numbers, every context and removed
// line must match exactly, "\ No newline at end of file" honoured). It is the exact check
// for changes a Codex patch cannot carry (final newline, CRLF, BOM).
func applyUnified(before []byte, diff string) ([]byte, error) {
	old := udiff.Lines(string(before))
	var out []string
	next := 0 // index in old of the next line not yet copied
	lines := strings.SplitAfter(diff, "\n")
	var last *string // the last line written or consumed, for "\ No newline"
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "":
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "@@ "):
			f := strings.Fields(normalizeRange(strings.TrimSpace(l)))
			start, _ := strconv.Atoi(strings.Split(f[1][1:], ",")[0])
			n, _ := strconv.Atoi(strings.Split(f[1][1:], ",")[1])
			if n > 0 {
				start--
			}
			if start < next {
				return nil, fmt.Errorf("hunk %q goes backwards", l)
			}
			out = append(out, old[next:start]...)
			next = start
		case strings.HasPrefix(l, `\ No newline at end of file`):
			if last == nil {
				return nil, fmt.Errorf("stray no-newline marker")
			}
			*last = strings.TrimSuffix(*last, "\n")
		default:
			body := l[1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ `) {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if next >= len(old) || old[next] != body {
					return nil, fmt.Errorf("line %d: want %q, file has %q", next+1, body, at(old, next))
				}
				next++
				if l[0] == ' ' {
					out = append(out, body)
				}
			case '+':
				out = append(out, body)
			default:
				return nil, fmt.Errorf("bad diff line %q", l)
			}
		}
	}
	out = append(out, old[next:]...)
	return []byte(strings.Join(out, "")), nil
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<end of file>"
}

// checkDiff checks that the result's diff turns Before into After: strictly always, and with
// the patch package whenever a Codex patch can carry the change. It returns whether patch
// was used.
func checkDiff(t testing.TB, res format.Result) bool {
	t.Helper()
	if !res.Changed {
		if res.Diff != "" {
			t.Errorf("unchanged result has a diff:\n%s", res.Diff)
		}
		return false
	}
	got, err := applyUnified(res.Before, res.Diff)
	if err != nil || string(got) != string(res.After) {
		t.Fatalf("strict apply of the diff: err %v, got %q, want %q\n%s", err, got, res.After, res.Diff)
	}
	if !patchExpressible(res.Before, res.After) {
		return false
	}
	if got := applyWithPatch(t, res.Before, res.Diff); string(got) != string(res.After) {
		t.Fatalf("patch applied the diff to %q, want %q\n%s", got, res.After, res.Diff)
	}
	return true
}

// groupAlive counts the live (not zombie) processes in process group pgid, from /proc.
func groupAlive(pgid int) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		// pid (comm) state ppid pgrp …; comm may hold spaces, so split after the last ')'.
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			n++
		}
	}
	return n
}

// waitGroupGone polls until group pgid has no live process or the deadline passes, and
// returns the count left.
func waitGroupGone(pgid int, within time.Duration) int {
	deadline := time.Now().Add(within)
	for {
		n := groupAlive(pgid)
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// needShell skips t where the fake formatters, /bin/sh scripts, cannot run.
func needShell(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil || runtime.GOOS == "windows" {
		t.Skip("skipped: the fake formatters are /bin/sh scripts, which this system does not run")
	}
}

// needBinary skips the test when a real formatter is absent, saying how to get it.
func needBinary(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p, err := filepath.Abs(filepath.Join("testdata", "node", "node_modules", ".bin", name)); err == nil {
		// LookPath also refuses an install this system cannot start (npm's shims for
		// another system: a Unix script where Windows needs a .cmd).
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	t.Skipf("%s is not installed for this system: apt-get install shfmt clang-format, or npm ci in format/testdata/node (see .ci/run)", name)
	return ""
}
