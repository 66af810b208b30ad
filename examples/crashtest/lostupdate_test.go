package crashtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/astsearch"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/javascript" // the astsearch workers rewrite JavaScript
	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// The shared files of the lost-update test: JavaScript files that the patch workers append
// comment lines to, the astsearch workers rewrite one call at a time, and the format workers
// format with [tidy].
var sharedFiles = []string{"one.js", "sub/two.js"}

// slotLine is the call an astsearch operation rewrites: one per operation, so that
// operations of different processes never claim the same text.
func slotLine(slot int) string { return fmt.Sprintf("console.log(\"slot-%d\");\n", slot) }

// The lines patch and astsearch write are untidy on purpose, and the format workers' formatter
// tidies them: "//p1-7" becomes "// p1-7", `logger.info( "a3-7" );` becomes
// `logger.info("a3-7");`. It touches nothing else (the slot calls are tidy already), it is
// deterministic and idempotent, so a line in its tidy form is the format workers' result: a
// format result lost to an older text shows as a line left untidy that a format worker
// reported tidied, and a patch or astsearch edit lost to a formatter that wrote back what it
// read before the edit shows as a line missing altogether.
var (
	untidyComment = regexp.MustCompile(`(?m)^//p(\d+-\d+)$`)
	untidyCall    = regexp.MustCompile(`(?m)^logger\.info\( ("a\d+-\d+") \);$`)
)

// tidy is the format workers' formatter.
func tidy(src []byte) []byte {
	src = untidyComment.ReplaceAll(src, []byte("// p$1"))
	return untidyCall.ReplaceAll(src, []byte("logger.info($1);"))
}

// untidyLines lists the lines of src that tidy changes.
func untidyLines(src []byte) []string {
	var out []string
	for _, re := range []*regexp.Regexp{untidyComment, untidyCall} {
		for _, m := range re.FindAll(src, -1) {
			out = append(out, string(m))
		}
	}
	return out
}

// TestNoLostUpdates runs several processes at once — each with its own Applier, its own
// rewrites or its own Formatter, none sharing anything but the files — that edit the same
// files: patch workers append lines (to one file, or to two in one patch), astsearch workers
// rewrite calls, format workers run format.File on the files with a formatter (tidy) that
// rewrites the lines the others write. A refused edit (changed meanwhile, or busy) is planned
// again. Every edit a patch or astsearch worker reports as written must be in the final files
// exactly once (tidied or not), and every line a format worker reports it tidied must be
// there exactly once and tidy. CRASHTEST_OPS sets the number of operations (default 1,200;
// CRASHTEST_OPS=5000 for the full run).
func TestNoLostUpdates(t *testing.T) {
	ops := scale("CRASHTEST_OPS", 1200)
	kinds := []string{"patch", "patch", "astsearch", "astsearch", "format", "format"}
	if _, err := astsearch.Native(); err != nil {
		t.Logf("astsearch's native backend is unavailable (%v): patch and format workers only", err)
		kinds = []string{"patch", "patch", "patch", "patch", "format", "format"}
	}
	per := (ops + len(kinds) - 1) / len(kinds)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Every worker id gets slots id, id+W, id+2W, …: enough for its operations.
	slots := per * len(kinds)
	for i, f := range sharedFiles {
		var b strings.Builder
		for s := i; s < slots; s += len(sharedFiles) {
			b.WriteString(slotLine(s))
		}
		if err := plant(dir, map[string]string{f: b.String()}); err != nil {
			t.Fatal(err)
		}
	}
	type report struct {
		ok    []string // "<file> <line>" per line written (patch, astsearch) or tidied (format)
		wrote int      // operations that wrote
		again int      // refusals (changed meanwhile, busy) planned again
		errs  []string
	}
	reports := make([]report, len(kinds))
	var wg sync.WaitGroup
	start := time.Now()
	for id, kind := range kinds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "CRASHTEST_CHILD=worker", "CRASHTEST_WRITER="+kind, "CRASHTEST_DIR="+dir,
			fmt.Sprintf("CRASHTEST_ID=%d", id), fmt.Sprintf("CRASHTEST_OPS=%d", per), fmt.Sprintf("CRASHTEST_WORKERS=%d", len(kinds)))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				line := sc.Text()
				if rest, ok := strings.CutPrefix(line, "ok "); ok {
					reports[id].ok = append(reports[id].ok, rest)
				} else if line == "wrote" {
					reports[id].wrote++
				} else if line == "again" {
					reports[id].again++
				} else {
					reports[id].errs = append(reports[id].errs, line)
				}
			}
			if err := cmd.Wait(); err != nil {
				reports[id].errs = append(reports[id].errs, fmt.Sprintf("worker %d (%s): %v", id, kind, err))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	lines := map[string]map[string]int{} // file → line → how often it stands there
	for _, f := range sharedFiles {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		lines[f] = map[string]int{}
		for l := range strings.Lines(string(b)) {
			lines[f][strings.TrimSuffix(l, "\n")]++
		}
	}
	wrote := map[string]int{}   // kind → operations that wrote
	again := map[string]int{}   // kind → refusals planned again
	written := map[string]int{} // kind → lines reported
	lost := 0
	for id, r := range reports {
		for _, e := range r.errs {
			t.Errorf("worker %d: %s", id, e)
		}
		kind := kinds[id]
		wrote[kind] += r.wrote
		again[kind] += r.again
		for _, ok := range r.ok {
			file, line, _ := strings.Cut(ok, " ")
			written[kind]++
			if problem := checkLine(kind, line, lines[file]); problem != "" {
				lost++
				if lost <= 10 {
					t.Errorf("worker %d (%s) reported %q written to %s; %s", id, kind, line, file, problem)
				}
			}
		}
	}
	after, err := snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for rel := range after {
		if wfs.IsLeftover(filepath.Base(rel)) || strings.HasPrefix(rel, wfs.JournalDir) {
			t.Errorf("left behind: %s", rel)
		}
	}
	perKind := map[string]int{}
	for _, k := range kinds {
		perKind[k] += per
	}
	var summary []string
	for _, k := range []string{"patch", "astsearch", "format"} {
		if perKind[k] > 0 {
			summary = append(summary, fmt.Sprintf("%s %d ops, %d wrote, %d lines, %d refusals planned again", k, perKind[k], wrote[k], written[k], again[k]))
		}
	}
	t.Logf("%d processes, %d operations in %v (%s): %d lost", len(kinds), per*len(kinds), elapsed.Round(time.Millisecond),
		strings.Join(summary, "; "), lost)
	for _, k := range []string{"patch", "astsearch"} {
		if wrote[k] < perKind[k]*9/10 {
			t.Errorf("%s: only %d of %d operations were written: too many refusals for the test to mean much", k, wrote[k], perKind[k])
		}
	}
	if wrote["format"] == 0 || written["format"] == 0 {
		t.Errorf("the format workers never wrote a formatted file (%d writes, %d lines tidied): the test tells nothing about format",
			wrote["format"], written["format"])
	}
}

// checkLine says what is wrong ("" when nothing) with a line a worker of kind reported, given
// the final file's lines and how often each stands there: a line patch or astsearch wrote must
// be there once, tidied or not; a line format tidied must be there once, tidied.
func checkLine(kind, line string, lines map[string]int) string {
	tidied := string(tidy([]byte(line)))
	if tidied == line {
		return "the formatter does not change it, so the test cannot tell whose it is"
	}
	raw, tidy := lines[line], lines[tidied]
	if kind == "format" && (raw != 0 || tidy != 1) || raw+tidy != 1 {
		return fmt.Sprintf("the file holds it %d times as written and %d times tidied", raw, tidy)
	}
	return ""
}

// worker is a child of TestNoLostUpdates: it makes ops edits of the shared files and prints
// "ok <file> <line>" for each line its writer reported as written (patch, astsearch) or
// formatted (format), "wrote" for each operation that wrote and "again" for each refusal it
// planned again.
func worker(ctx context.Context, kind, dir string, id, ops int) int {
	workers := 0
	fmt.Sscan(os.Getenv("CRASHTEST_WORKERS"), &workers)
	var a *patch.Applier
	var f *format.Formatter
	switch kind {
	case "patch":
		var err error
		if a, err = patch.Open(dir); err != nil {
			fmt.Println("open:", err)
			return 1
		}
		defer a.Close()
	case "format":
		var err error
		if f, err = tidyFormatter(dir); err != nil {
			fmt.Println("format.New:", err)
			return 1
		}
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for n := range ops {
		var files, written []string
		var err error
		for try := 0; try < 200; try++ {
			switch kind {
			case "patch":
				files, err = patchOp(ctx, a, id, n)
				written = []string{token(kind, id, n)}
			case "format":
				files, written, err = formatOp(ctx, f, id, n)
			default:
				files, err = astOp(ctx, dir, id, n, workers)
				written = []string{token(kind, id, n) + ";"}
			}
			if !retryable(err) {
				break
			}
			// A commit whose rollback could not restore every file (under Wine: a rename
			// back refused while another worker reads the file) leaves its journal for a
			// recovery to finish; the error says so. Finish it before planning again, as
			// a host does, so that the next plan does not read the half-restored tree.
			if we := (*wfs.Error)(nil); errors.As(err, &we) && len(we.NotRestored) > 0 {
				fmt.Fprintf(os.Stderr, "worker %d: op %d: %v; recovering before planning again\n", id, n, err)
				recs, rerr := recoverTree(ctx, dir)
				for _, r := range recs {
					fmt.Fprintf(os.Stderr, "worker %d: op %d: %v (conflicts: %v)\n", id, n, r, r.Conflicts)
				}
				if len(recs) == 0 {
					fmt.Fprintf(os.Stderr, "worker %d: op %d: the recovery found no journal to finish\n", id, n)
				}
				if rerr != nil {
					err = rerr
					break
				}
			}
			fmt.Fprintln(out, "again")
		}
		if err != nil {
			fmt.Fprintf(out, "op %d: %v\n", n, err)
			continue
		}
		if len(files) > 0 {
			fmt.Fprintln(out, "wrote")
		}
		for _, f := range files {
			for _, line := range written {
				fmt.Fprintf(out, "ok %s %s\n", f, line)
			}
		}
		out.Flush()
	}
	return 0
}

// token is what an operation writes: a comment line (patch) or a call (astsearch), unique
// to the worker and the operation, both untidy.
func token(kind string, id, n int) string {
	if kind == "patch" {
		return fmt.Sprintf("//p%d-%d", id, n)
	}
	return fmt.Sprintf("logger.info( \"a%d-%d\" )", id, n)
}

// tidyFormatter is a Formatter for the project at dir whose one formatter, for .js files,
// is tidy, run in the worker's process: format's registry and process runner are
// replaced through its options (and formatters found only on PATH enabled, as tidy is), and
// its write-back (Formatter.File) is the real one.
func tidyFormatter(dir string) (*format.Formatter, error) {
	reg := []format.Def{{Name: "tidy", Extensions: []string{".js"}, Args: []string{"tidy"}, Mode: format.Stdin}}
	return format.New(dir, format.WithRegistry(reg), format.WithConfig(format.Config{Enabled: format.On()}),
		format.WithExec(func(ctx context.Context, argv []string, dir string, env []string, stdin []byte) ([]byte, []byte, error) {
			if len(argv) != 1 || argv[0] != "tidy" {
				return nil, nil, fmt.Errorf("unexpected formatter command %q", argv)
			}
			return tidy(stdin), nil, nil
		}))
}

// formatOp formats one shared file. It returns the file and the lines it tidied when it wrote
// the file, nothing when the file was tidy already.
func formatOp(ctx context.Context, f *format.Formatter, id, n int) (files, tidied []string, err error) {
	file := sharedFiles[(id+n)%len(sharedFiles)]
	res := f.File(ctx, file)
	if res.Err != nil {
		return nil, nil, res.Err
	}
	if res.Formatter != "tidy" {
		return nil, nil, fmt.Errorf("%s: formatter %q ran, want tidy (skipped: %v)", file, res.Formatter, res.Skipped)
	}
	if !res.Changed {
		return nil, nil, nil
	}
	if !bytes.Equal(res.After, tidy(res.Before)) {
		return nil, nil, fmt.Errorf("%s: File reports a write whose result is not the formatter's output of what it read", file)
	}
	return []string{file}, untidyLines(res.Before), nil
}

// recoverTree finishes or undoes the interrupted commits under dir (wfs.Recover).
func recoverTree(ctx context.Context, dir string) ([]wfs.Recovery, error) {
	fsys, err := wfs.NewOSFS(dir)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	return wfs.Recover(ctx, fsys, dir)
}

// retryable: a refusal another writer caused — the file changed between plan and commit, a
// lock held too long — that planning (or formatting) again resolves.
//
// Under Wine also a switch refused with an access denial: Wine has no POSIX-semantics rename
// (FileRenameInformationEx), so it cannot replace a file another worker has open for reading,
// as Windows 10 and later on NTFS do (os.Root's readers share delete access); the commit was
// rolled back, and planning again resolves it as for a busy lock. The final check still
// counts every edit reported as written.
func retryable(err error) bool {
	return errors.Is(err, patch.ErrChanged) || errors.Is(err, patch.ErrBusy) ||
		errors.Is(err, astsearch.ErrConflict) || errors.Is(err, format.ErrConcurrentChange) ||
		errors.Is(err, wfs.ErrBusy) || errors.Is(err, wfs.ErrChanged) || testenv.Wine() && errors.Is(err, fs.ErrPermission)
}

// patchOp appends the operation's token line to one shared file, or to both (every fourth
// operation) in one patch.
func patchOp(ctx context.Context, a *patch.Applier, id, n int) ([]string, error) {
	files := []string{sharedFiles[(id+n)%len(sharedFiles)]}
	if n%4 == 3 {
		files = sharedFiles
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, f := range files {
		fmt.Fprintf(&b, "*** Update File: %s\n@@\n+%s\n*** End of File\n", f, token("patch", id, n))
	}
	b.WriteString("*** End Patch\n")
	_, err := a.Apply(ctx, b.String())
	return files, err
}

// astOp rewrites the operation's own slot call into the operation's token.
func astOp(ctx context.Context, dir string, id, n, workers int) ([]string, error) {
	slot := id + n*workers
	file := sharedFiles[slot%len(sharedFiles)]
	plan, err := astsearch.Rewrite(ctx, os.DirFS(dir), astsearch.Request{Pattern: strings.TrimSuffix(slotLine(slot), ";\n"),
		Lang: astsearch.JavaScript, Paths: []string{file}}, token("astsearch", id, n))
	if err != nil {
		return nil, err
	}
	if len(plan.Files) != 1 {
		return nil, fmt.Errorf("slot %d: planned %d files, want 1 (the slot call is gone?)", slot, len(plan.Files))
	}
	w, err := wfs.NewOSFS(dir)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	_, err = plan.Apply(ctx, w, dir)
	return []string{file}, err
}

// TestCheckLine: the lost-update test's verdict on one reported line, for every way an edit
// can be lost (gone, doubled, a format result overwritten by the older text) and kept.
func TestCheckLine(t *testing.T) {
	const p, pt = "//p0-1", "// p0-1"
	const a, at = `logger.info( "a2-1" );`, `logger.info("a2-1");`
	for _, c := range []struct {
		name, kind, line string
		lines            map[string]int
		lost             bool
	}{
		{"patch_kept", "patch", p, map[string]int{p: 1}, false},
		{"patch_kept_tidied", "patch", p, map[string]int{pt: 1}, false},
		{"patch_gone", "patch", p, map[string]int{"// p0-2": 1}, true},
		{"patch_twice", "patch", p, map[string]int{p: 1, pt: 1}, true},
		{"astsearch_kept", "astsearch", a, map[string]int{a: 1}, false},
		{"astsearch_kept_tidied", "astsearch", a, map[string]int{at: 1}, false},
		{"astsearch_gone", "astsearch", a, map[string]int{`console.log("slot-2");`: 1}, true},
		{"format_kept", "format", p, map[string]int{pt: 1}, false},
		{"format_kept_call", "format", a, map[string]int{at: 1}, false},
		{"format_overwritten_by_older_text", "format", p, map[string]int{p: 1}, true},
		{"format_overwritten_call", "format", a, map[string]int{a: 1}, true},
		{"format_line_gone", "format", p, map[string]int{}, true},
		{"unchanged_by_the_formatter", "patch", pt, map[string]int{pt: 1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			problem := checkLine(c.kind, c.line, c.lines)
			if (problem != "") != c.lost {
				t.Errorf("checkLine(%s, %q, %v) = %q, want lost = %v", c.kind, c.line, c.lines, problem, c.lost)
			}
		})
	}
}
