package format

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	goformat "go/format"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/harnesskit/harnesskit/internal/fmtreport"
	"github.com/harnesskit/harnesskit/internal/udiff"
	"github.com/harnesskit/harnesskit/wfs"
)

// Limits and defaults of the runner.
const (
	// DefaultTimeout is how long one formatter may run.
	DefaultTimeout = 10 * time.Second
	// DefaultFileTimeout caps all the formatters of one file together (a chain).
	DefaultFileTimeout = 30 * time.Second
	// DefaultMaxStderr is how much of a formatter's stderr is kept in the error.
	DefaultMaxStderr = 4 << 10
	// DefaultMaxOutput is the most a formatter may print on stdout; more is a failure.
	DefaultMaxOutput = 64 << 20
	// DefaultWaitDelay is how long the runner waits for a formatter's output to end once the
	// formatter exited and its processes were killed: only a process that escaped the killing
	// can still hold the pipes open, and then the run fails.
	DefaultWaitDelay = 2 * time.Second
	// DefaultMaxReportDiffLines is the longest diff, in lines of text, [Result.Report]
	// includes; past it the report asks the model to re-read the file. patch and astsearch
	// apply the same limit to their formatter reports.
	DefaultMaxReportDiffLines = fmtreport.MaxDiffLines
)

// Scope says which of a formatter's changes are kept.
type Scope int

const (
	// ScopeFile keeps the formatter's whole output (the default).
	ScopeFile Scope = iota
	// ScopeTouched keeps only the changes that overlap the lines the edit changed, with one
	// line of slack (see [Runner.Edit]).
	ScopeTouched
)

// ExecFunc runs argv in dir with env added to the inherited environment, feeding stdin
// (nil: no input) and returning what the process printed. An error means the process did not
// succeed; *exec.ExitError carries the exit code.
type ExecFunc func(ctx context.Context, argv []string, dir string, env []string, stdin []byte) (stdout, stderr []byte, err error)

// Runner runs the formatters [Detect] chooses. Its zero value is ready: real processes in
// their own process group, the default timeouts, whole-file scope. It keeps no state
// between calls and is safe for concurrent use.
type Runner struct {
	// Exec runs one formatter process (nil: [RunProcess]).
	Exec ExecFunc
	// Timeout for one formatter when its definition sets none (0: DefaultTimeout).
	Timeout time.Duration
	// FileTimeout caps all formatters of one file (0: DefaultFileTimeout).
	FileTimeout time.Duration
	// Scope applies to [Runner.Edit]; the other methods format the whole file.
	Scope Scope
	// Now reads the clock for Result.Elapsed (nil: time.Now).
	Now func() time.Time
	// MaxFileSize is the largest file [Runner.File] reads (0: DefaultMaxFileSize).
	MaxFileSize int64

	sys *hostOS // nil: the running system (tests set it to check Windows rules anywhere)
}

// Result is what formatting one file did.
type Result struct {
	Path      string         // the path as given
	Formatter string         // the formatter that ran (or failed); "" = none applies; a chain is joined with "+"
	Changed   bool           // After differs from Before
	Before    []byte         // the content the edit wrote
	After     []byte         // the formatted content (File: what is on disk now)
	Diff      string         // unified diff Before→After, "" when unchanged
	Skipped   []Skip         // matching formatters that did not run, with the reason
	Err       error          // why formatting failed; the content stays Before
	Elapsed   time.Duration  // time spent detecting and formatting
	Others    []string       // other files an in-place formatter changed in the same directory
	Partial   bool           // ScopeTouched dropped some of the formatter's changes
	Recovered []wfs.Recovery // File: interrupted commits of dead writers it finished or undid first
	Note      string         // why ScopeTouched kept none of the changes, when it could not verify the partial result
}

// Report is the text to tell the model: which formatter changed what, or why formatting
// failed. It follows the rule patch and astsearch follow for their formatter reports: the
// diff is included when its text has at most DefaultMaxReportDiffLines lines (headers and
// context counted); otherwise the report gives the number of changed lines (added plus
// removed) and asks the model to re-read the file before the next edit. It returns "" when
// nothing applied and nothing failed.
func (r Result) Report() string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("not formatted, left as written: %v", r.Err)
	case r.Formatter == "":
		return ""
	case r.Note != "" && !r.Changed:
		return fmt.Sprintf("not formatted by %s: %s", r.Formatter, r.Note)
	case !r.Changed && r.Partial:
		return fmt.Sprintf("formatted by %s: no changes near the edit (its changes elsewhere were left out)", r.Formatter)
	case !r.Changed:
		return fmt.Sprintf("formatted by %s: no changes", r.Formatter)
	}
	added, removed := udiff.Count(r.Diff)
	var b strings.Builder
	fmt.Fprintf(&b, "formatted by %s, %d %s changed (+%d -%d)", r.Formatter, added+removed, plural(added+removed, "line", "lines"), added, removed)
	if r.Partial {
		b.WriteString(", only near the edit (partial)")
	}
	if shown, _ := fmtreport.Describe(r.Formatter, r.Diff); shown != "" {
		b.WriteString(":\n")
		b.WriteString(shown)
	} else {
		fmt.Fprintf(&b, "; the diff has %d lines, so re-read %s before editing it again", fmtreport.Lines(r.Diff), r.Path)
	}
	if len(r.Others) > 0 {
		fmt.Fprintf(&b, "\nthe formatter also changed: %s", strings.Join(r.Others, ", "))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Bytes formats src as the content of path (absolute, or relative to env.Root) and returns
// the result. It never writes path: a stdin-mode formatter gets src on stdin, an in-place
// one rewrites a hidden copy made in path's directory (which must exist inside env.Root):
// a journaled scratch file of the write layer, removed before Bytes returns. On failure
// Result.Err is an [*Error] (kind [ErrFormatter], [ErrTimeout], [ErrNotRunnable],
// [ErrSyntax] or [ErrIO]) and After equals src.
func (r *Runner) Bytes(ctx context.Context, env Env, cfg Config, reg []Def, file string, src []byte) Result {
	var fsys *wfs.OSFS
	var tx *wfs.Tx
	defer func() {
		if tx != nil {
			tx.Abort()
		}
		if fsys != nil {
			fsys.Close()
		}
	}()
	scratch := func(target, suffix string, data []byte) (string, error) {
		if tx == nil {
			var err error
			if fsys, err = wfs.NewOSFS(env.Root); err != nil {
				return "", err
			}
			if tx, err = wfs.Begin(fsys, env.Root); err != nil {
				return "", err
			}
		}
		return tx.Scratch(target, suffix, data)
	}
	return r.run(ctx, env, cfg, reg, file, src, scratch)
}

// scratchFunc makes the hidden copy an in-place formatter rewrites, next to target: a
// journaled scratch file of a write-layer transaction, removed when the transaction ends.
type scratchFunc func(target, suffix string, data []byte) (string, error)

// run is Bytes with the scratch copies made by scratch.
func (r *Runner) run(ctx context.Context, env Env, cfg Config, reg []Def, file string, src []byte, scratch scratchFunc) Result {
	start := r.now()
	plans, skipped := Detect(env, cfg, reg, file)
	res := Result{Path: file, Before: src, After: src, Skipped: skipped}
	if len(plans) == 0 {
		res.Elapsed = r.now().Sub(start)
		return res
	}
	ft := r.FileTimeout
	if ft <= 0 {
		ft = DefaultFileTimeout
	}
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, ft)
	defer cancel()
	_, abs, _ := env.locate(file)
	cur := src
	var names []string
	for _, pl := range plans {
		names = append(names, pl.Def.Name)
		if ctx.Err() != nil {
			e := &Error{Kind: ErrTimeout, Path: file, Formatter: pl.Def.Name, Err: caller.Err(),
				Msg: fmt.Sprintf("not started: the file's formatters ran past %v; the file was left as written", ft)}
			if caller.Err() != nil {
				e.Msg = "not started: " + caller.Err().Error() + "; the file was left as written"
			}
			res.Formatter, res.Err = strings.Join(names, "+"), e
			res.Elapsed = r.now().Sub(start)
			return res
		}
		out, others, err := r.runPlan(caller, ctx, pl, file, abs, cur, scratch)
		res.Others = append(res.Others, others...)
		if err != nil {
			res.Formatter, res.Err = strings.Join(names, "+"), err
			res.Elapsed = r.now().Sub(start)
			return res
		}
		cur = restoreEOL(cur, out, pl.Def.InProcess == InProcessGo)
	}
	res.Formatter = strings.Join(names, "+")
	res.After = cur
	res.Changed = !bytes.Equal(src, cur)
	if res.Changed {
		res.Diff = Unified(diffName(env, file), src, cur)
	}
	res.Elapsed = r.now().Sub(start)
	return res
}

// diffName is the path shown in a diff header: relative to the root when inside it.
func diffName(env Env, file string) string {
	if rel, _, ok := env.locate(file); ok {
		return rel
	}
	return filepath.ToSlash(file)
}

var bom = []byte("\xef\xbb\xbf")

// restoreEOL puts back what a formatter may lose: a UTF-8 BOM, and CRLF line breaks when
// the input used only CRLF and the output uses only LF (not for Go, whose canonical form is
// LF).
func restoreEOL(in, out []byte, isGo bool) []byte {
	if bytes.HasPrefix(in, bom) && !bytes.HasPrefix(out, bom) {
		out = append(slices.Clip(bom), out...)
	}
	if !isGo && allCRLF(in) && !bytes.Contains(out, []byte("\r\n")) && bytes.Contains(out, []byte("\n")) {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out
}

// allCRLF reports whether s has line breaks and every one is CRLF.
func allCRLF(s []byte) bool {
	n := bytes.Count(s, []byte("\n"))
	return n > 0 && bytes.Count(s, []byte("\r\n")) == n
}

// runPlan runs one formatter on src and returns its output and, in place, the other files
// it changed.
// caller is the caller's context, ctx the same with the file's time cap.
func (r *Runner) runPlan(caller, ctx context.Context, pl Plan, file, abs string, src []byte, scratch scratchFunc) ([]byte, []string, error) {
	name := pl.Def.Name
	if pl.Def.InProcess == InProcessGo {
		out, err := gofmt(src)
		if err != nil {
			return nil, nil, &Error{Kind: ErrSyntax, Path: file, Formatter: name, Err: err,
				Msg: "the Go source does not parse: " + err.Error() + "; fix the syntax error"}
		}
		return out, nil, nil
	}
	if pl.Def.InProcess != "" {
		return nil, nil, &Error{Kind: ErrNotRunnable, Path: file, Formatter: name, Msg: fmt.Sprintf("unknown in-process formatter %q", pl.Def.InProcess)}
	}
	if len(pl.Def.Args) == 0 {
		return nil, nil, &Error{Kind: ErrNotRunnable, Path: file, Formatter: name, Msg: "the formatter has no command"}
	}
	timeout := pl.Def.Timeout
	if timeout <= 0 {
		timeout = r.Timeout
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	exe := r.Exec
	if exe == nil {
		exe = RunProcess
	}
	run := func(argv []string, stdin []byte) ([]byte, error) {
		argv, extra, err := command(r.sys.get(), argv)
		if err != nil {
			return nil, &Error{Kind: ErrNotRunnable, Path: file, Formatter: name, Err: err, Msg: "refused to run it: " + err.Error()}
		}
		tctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		stdout, stderr, err := safeExec(exe, tctx, argv, pl.Dir, append(slices.Clip(pl.Env), extra...), stdin)
		if len(stderr) > DefaultMaxStderr {
			stderr = stderr[:DefaultMaxStderr]
		}
		if err != nil {
			return nil, processError(caller, tctx, file, name, timeout, argv, stderr, err)
		}
		return stdout, nil
	}
	if pl.Def.Mode == Stdin {
		out, err := run(pl.argv(abs), src)
		if err != nil {
			return nil, nil, err
		}
		if len(out) == 0 && len(bytes.TrimSpace(src)) > 0 {
			return nil, nil, &Error{Kind: ErrFormatter, Path: file, Formatter: name, Msg: "printed nothing on stdout for a non-empty file; check that its command reads stdin"}
		}
		return out, nil, nil
	}
	return r.inPlace(ctx, pl, file, abs, src, run, scratch)
}

// safeExec calls exe, turning a panic (a host's ExecFunc) into an error, so that a failing
// formatter never fails the edit.
func safeExec(exe ExecFunc, ctx context.Context, argv []string, dir string, env []string, stdin []byte) (stdout, stderr []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			stdout, stderr, err = nil, nil, fmt.Errorf("%w: the formatter's ExecFunc panicked: %v", errPanicked, p)
		}
	}()
	return exe(ctx, argv, dir, env, stdin)
}

var errPanicked = errors.New("panic")

// gofmt formats a Go source file as the gofmt binary does. go/format.Source also accepts a
// bare list of declarations or statements, which gofmt refuses; the package clause is
// checked first so both refuse the same files (an empty file among them).
func gofmt(src []byte) ([]byte, error) {
	if _, err := parser.ParseFile(token.NewFileSet(), "", src, parser.PackageClauseOnly); err != nil {
		return nil, err
	}
	return goformat.Source(src)
}

// processError turns a failed run into an *Error of the right kind.
func processError(parent, tctx context.Context, file, name string, timeout time.Duration, argv []string, stderr []byte, err error) error {
	e := &Error{Path: file, Formatter: name, Stderr: string(stderr), Err: err}
	var ee *exec.ExitError
	switch {
	case parent.Err() != nil:
		e.Kind, e.Err = ErrTimeout, parent.Err()
		e.Msg = "stopped: " + parent.Err().Error() + "; its process group was killed and the file left as written"
	case tctx.Err() != nil:
		// The formatter's own timeout (or the file's cap), not the caller's context: not
		// wrapped, so that callers who treat a context error as "the host gave up" do not
		// take this for one.
		e.Kind, e.Err = ErrTimeout, nil
		e.Msg = fmt.Sprintf("did not finish in time (its timeout is %v); its process group was killed and the file left as written (raise its timeout or disable it)", timeout)
	case errors.Is(err, errPanicked):
		e.Kind = ErrFormatter
		e.Msg = err.Error() + "; the file was left as written"
	case errors.Is(err, errPipesHeld), errors.Is(err, exec.ErrWaitDelay):
		e.Kind = ErrFormatter
		e.Msg = "exited but left a process holding its output open; the output was discarded"
	case errors.As(err, &ee):
		e.Kind, e.ExitCode = ErrFormatter, ee.ExitCode()
		e.Msg = "failed, so the file was left as written"
		if e.ExitCode < 0 {
			e.Msg = "ended abnormally (" + ee.String() + "), so the file was left as written"
		}
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		e.Kind = ErrNotRunnable
		e.Msg = fmt.Sprintf("could not start %q: %v; install it or disable this formatter", argv[0], err)
	default:
		e.Kind = ErrFormatter
	}
	return e
}

// inPlace runs an in-place formatter on a temporary copy of the file in the same directory
// and reads the copy back. The copy is hidden and keeps the file's suffix (app.rb →
// .app.rb.hk-<16 hex>.rb), so the formatter knows the language and finds the same
// configuration, while builds and autoloaders, which skip hidden files, do not pick it up;
// the write layer's IsLeftover recognises the name. It compares the directory's other
// entries before and after to report files the formatter changed besides its own.
func (r *Runner) inPlace(ctx context.Context, pl Plan, file, abs string, src []byte, run func([]string, []byte) ([]byte, error), scratch scratchFunc) ([]byte, []string, error) {
	dir, base := filepath.Split(abs)
	suffix := ""
	if i := strings.IndexByte(base[1:], '.'); i >= 0 {
		suffix = base[i+1:] // the whole suffix, so ".html.erb" survives
	}
	if len(suffix) > wfs.MaxSuffix || strings.ContainsAny(suffix, `/\`) {
		suffix = path.Ext(base)
	}
	if len(suffix) > wfs.MaxSuffix {
		suffix = ""
	}
	tmpName, err := scratch(abs, suffix, src)
	if err != nil {
		return nil, nil, &Error{Kind: ErrIO, Path: file, Formatter: pl.Def.Name, Err: err, Msg: "could not make a temporary copy next to the file: " + err.Error()}
	}
	name := filepath.Base(tmpName)
	before := snapshot(dir, name)
	_, err = run(pl.argv(tmpName), nil)
	others := changedSiblings(before, snapshot(dir, name), dir)
	if err != nil {
		return nil, others, err
	}
	out, err := readCopy(ctx, tmpName)
	if err != nil {
		return nil, others, &Error{Kind: ErrFormatter, Path: file, Formatter: pl.Def.Name, Err: err, Msg: "removed or replaced its input instead of rewriting it: " + err.Error()}
	}
	return out, others, nil
}

// readCopy reads back the copy an in-place formatter rewrote: a regular file (a FIFO or a
// link put in its place is not followed or opened), of at most DefaultMaxOutput bytes.
func readCopy(ctx context.Context, name string) ([]byte, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("it is now a %s", kindOf(fi.Mode()))
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !now.Mode().IsRegular() {
		return nil, fmt.Errorf("it was replaced while being read")
	}
	return readBounded(ctx, f, DefaultMaxOutput)
}

// readBounded reads f to its end, failing when it holds more than limit bytes or ctx ends.
func readBounded(ctx context.Context, f io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	chunk := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := f.Read(chunk)
		buf.Write(chunk[:n])
		if int64(buf.Len()) > limit {
			return nil, fmt.Errorf("it grew past the %d bytes format reads", limit)
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

type fileStamp struct {
	size int64
	mod  time.Time
}

// snapshot records the size and modification time of dir's entries, except skip.
func snapshot(dir, skip string) map[string]fileStamp {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	m := make(map[string]fileStamp, len(ents))
	for _, e := range ents {
		if e.Name() == skip || e.Name() == wfs.JournalDir {
			continue
		}
		if fi, err := e.Info(); err == nil {
			m[e.Name()] = fileStamp{fi.Size(), fi.ModTime()}
		}
	}
	return m
}

// changedSiblings lists the entries added, removed or modified between two snapshots, as
// OS paths in dir.
func changedSiblings(before, after map[string]fileStamp, dir string) []string {
	var out []string
	for name, st := range after {
		if b, ok := before[name]; !ok || b != st {
			out = append(out, filepath.Join(dir, name))
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			out = append(out, filepath.Join(dir, name))
		}
	}
	slices.Sort(out)
	return out
}

// RunProcess is the default [ExecFunc]: the command runs in its own process group (on
// Unix), and when ctx ends the whole group is killed; after the command exits, whatever is
// left in its group is killed too. On Linux every process of the run also carries a token
// in its environment (HARNESSKIT_FORMAT_RUN), and after the run every process still alive
// that carries it is killed: the children that left the group (setsid, a daemon's double
// fork); the formatter itself dies with the host's thread that started it. stdout is
// limited to DefaultMaxOutput bytes and stderr keeps its first DefaultMaxStderr bytes.
//
// The output is read until its end, which comes once every process holding the pipes is
// gone: so a busy machine that is slow to copy it never loses output, and a background
// child the formatter left holding them is killed first. Only a process that escaped the
// killing (see the package documentation) can keep the pipes open; DefaultWaitDelay after
// the kill they are closed and the run fails, its output discarded.
func RunProcess(ctx context.Context, argv []string, dir string, env []string, stdin []byte) ([]byte, []byte, error) {
	if len(argv) == 0 {
		return nil, nil, exec.ErrNotFound
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	token := runToken()
	if token != "" {
		env = append(slices.Clip(env), runTokenVar+"="+token)
	}
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	p, err := openPipes(stdin != nil)
	if err != nil {
		return nil, nil, err
	}
	defer p.close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.childIn, p.childOut, p.childErr
	startInGroup(cmd)
	unpin := pinThread()
	err = cmd.Start()
	p.closeChildEnds()
	if err != nil {
		unpin()
		return nil, nil, err
	}
	stdout := &capBuffer{max: DefaultMaxOutput}
	stderr := &capBuffer{max: DefaultMaxStderr}
	read := p.read(stdout, stderr, stdin)
	err = cmd.Wait()
	unpin()
	killGroup(cmd)
	if token != "" {
		sweep(token, cmd.Process.Pid)
	}
	if !read(DefaultWaitDelay) && err == nil {
		err = errPipesHeld
	}
	if err == nil && stdout.over {
		err = fmt.Errorf("printed more than %d bytes", DefaultMaxOutput)
	}
	return stdout.buf.Bytes(), stderr.buf.Bytes(), err
}

// errPipesHeld: the formatter exited, but a process that escaped the killing held its
// output open past DefaultWaitDelay.
var errPipesHeld = errors.New("a process still held the formatter's output open")

// pipes connects the formatter's stdin, stdout and stderr to this process. The child's ends
// are *os.File, so exec starts no copying goroutine of its own and cmd.Wait returns when the
// process exits; this process reads its ends itself, to the end.
type pipes struct {
	childIn, childOut, childErr *os.File // the child's ends (childIn nil: no input)
	in, out, err                *os.File // ours
}

func openPipes(input bool) (*pipes, error) {
	p := &pipes{}
	var err error
	if p.out, p.childOut, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.err, p.childErr, err = os.Pipe(); err != nil {
		p.close()
		return nil, err
	}
	if input {
		if p.childIn, p.in, err = os.Pipe(); err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

// closeChildEnds closes this process's copies of the child's ends, once the child has them.
func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.childIn, p.childOut, p.childErr} {
		if f != nil {
			f.Close()
		}
	}
}

func (p *pipes) close() {
	p.closeChildEnds()
	for _, f := range []*os.File{p.in, p.out, p.err} {
		if f != nil {
			f.Close()
		}
	}
}

// read starts feeding stdin and copying stdout and stderr. The function it returns waits
// for the copies to reach the end of the output, at most d once called (after the
// formatter's processes were killed), then closes the pipes; it reports whether the end was
// reached.
func (p *pipes) read(stdout, stderr io.Writer, stdin []byte) func(d time.Duration) bool {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(stdout, p.out) }()
	go func() { defer wg.Done(); io.Copy(stderr, p.err) }()
	if p.in != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.in.Write(stdin) // fails once nobody can read it any more (EPIPE, or closed below)
			p.in.Close()
		}()
	}
	go func() { wg.Wait(); close(done) }()
	return func(d time.Duration) bool {
		if p.in != nil {
			p.in.Close() // the formatter is gone: input nobody reads any more
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-done:
			return true
		case <-t.C:
			p.out.Close()
			p.err.Close()
			<-done
			return false
		}
	}
}

// runTokenVar is the environment variable that marks every process of one formatter run
// (on Linux): the formatter and everything it starts inherit it, also the children that
// leave its process group (setsid) or lose their parent, so that after the run the ones
// still alive can be found and killed.
const runTokenVar = "HARNESSKIT_FORMAT_RUN"

// capBuffer keeps the first max bytes written to it and drops the rest.
type capBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}
