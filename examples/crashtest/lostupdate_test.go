package crashtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// The shared files of the lost-update test: JavaScript files that the patch workers append
// comment lines to and the astsearch workers rewrite one call at a time.
var sharedFiles = []string{"one.js", "sub/two.js"}

// slotLine is the call an astsearch operation rewrites: one per operation, so that
// operations of different processes never claim the same text.
func slotLine(slot int) string { return fmt.Sprintf("console.log(\"slot-%d\");\n", slot) }

// TestNoLostUpdates runs several processes at once — each with its own Applier or its own
// rewrites, none sharing anything but the files — that edit the same files: patch workers
// append lines (to one file, or to two in one patch), astsearch workers rewrite calls. A
// refused edit (changed meanwhile, or busy) is planned again. Every edit a worker reports as
// written must be in the final files, exactly once. CRASHTEST_OPS sets the number of
// operations (default 1,200).
func TestNoLostUpdates(t *testing.T) {
	ops := scale("CRASHTEST_OPS", 1200)
	kinds := []string{"patch", "patch", "astsearch", "astsearch"}
	if _, err := astsearch.Native(); err != nil {
		t.Logf("astsearch's native backend is unavailable (%v): patch workers only", err)
		kinds = []string{"patch", "patch", "patch", "patch"}
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
		ok   []string // "<file> <token>" per edit written
		errs []string
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
	content := map[string]string{}
	for _, f := range sharedFiles {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		content[f] = string(b)
	}
	written, lost := 0, 0
	for id, r := range reports {
		for _, e := range r.errs {
			t.Errorf("worker %d: %s", id, e)
		}
		for _, ok := range r.ok {
			file, token, _ := strings.Cut(ok, " ")
			written++
			if n := occurrences(content[file], token); n != 1 {
				lost++
				if lost <= 10 {
					t.Errorf("worker %d (%s) reported %q written to %s; the file holds it %d times", id, kinds[id], token, file, n)
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
	t.Logf("%d processes (%s), %d operations in %v: %d reported written, %d lost", len(kinds), strings.Join(kinds, ", "),
		per*len(kinds), elapsed.Round(time.Millisecond), written, lost)
	if written < per*len(kinds)*9/10 {
		t.Errorf("only %d of %d operations were written: too many refusals for the test to mean much", written, per*len(kinds))
	}
}

// worker is a child of TestNoLostUpdates: it makes ops edits of the shared files and prints
// "ok <file> <token>" for each edit its writer reported as written.
func worker(ctx context.Context, kind, dir string, id, ops int) int {
	workers := 0
	fmt.Sscan(os.Getenv("CRASHTEST_WORKERS"), &workers)
	var a *patch.Applier
	if kind == "patch" {
		var err error
		if a, err = patch.Open(dir); err != nil {
			fmt.Println("open:", err)
			return 1
		}
		defer a.Close()
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for n := range ops {
		var files []string
		var err error
		for try := 0; try < 200; try++ {
			switch kind {
			case "patch":
				files, err = patchOp(ctx, a, id, n)
			default:
				files, err = astOp(ctx, dir, id, n, workers)
			}
			if !retryable(err) {
				break
			}
		}
		if err != nil {
			fmt.Fprintf(out, "op %d: %v\n", n, err)
			continue
		}
		for _, f := range files {
			fmt.Fprintf(out, "ok %s %s\n", f, token(kind, id, n))
		}
		out.Flush()
	}
	return 0
}

// token is what an operation writes: a comment line (patch) or a call (astsearch), unique
// to the worker and the operation.
func token(kind string, id, n int) string {
	if kind == "patch" {
		return fmt.Sprintf("// p%d-%d", id, n)
	}
	return fmt.Sprintf("logger.info(\"a%d-%d\")", id, n)
}

// occurrences counts the token in a file: a patch token as a whole line.
func occurrences(content, tok string) int {
	if strings.HasPrefix(tok, "//") {
		return strings.Count(content, "\n"+tok+"\n")
	}
	return strings.Count(content, tok+";")
}

// retryable: a refusal another writer caused — the file changed between plan and commit, a
// lock held too long — that planning again resolves.
//
// Under Wine also a switch refused with an access denial: Wine has no POSIX-semantics rename
// (FileRenameInformationEx), so it cannot replace a file another worker has open for reading,
// as Windows 10 and later on NTFS do (os.Root's readers share delete access); the commit was
// rolled back, and planning again resolves it as for a busy lock. The final check still
// counts every edit reported as written.
func retryable(err error) bool {
	return errors.Is(err, patch.ErrChanged) || errors.Is(err, patch.ErrBusy) ||
		errors.Is(err, astsearch.ErrConflict) || errors.Is(err, wfs.ErrBusy) || errors.Is(err, wfs.ErrChanged) ||
		testenv.Wine() && errors.Is(err, fs.ErrPermission)
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
