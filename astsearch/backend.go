package astsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Backend runs pattern matching. [Native] parses in process; [CLI] runs ast-grep.
type Backend interface {
	// Name identifies the backend ("native", "ast-grep").
	Name() string
	// Supports reports whether the backend can search the language.
	Supports(l Lang) bool
	// Find returns, for each source, its matches in pre-order, with File set to the
	// source's Path.
	Find(ctx context.Context, q Query, files []Source) ([][]Match, error)
}

// Query is what a backend matches. Rewrite nil means search only; "" deletes matches.
type Query struct {
	Pattern    string
	Lang       Lang
	Strictness Strictness
	// Selector, when set, is the kind of the node of Pattern to match (see [WithSelector]).
	Selector string
	Rewrite  *string
}

// Source is one file given to a backend. OSPath, when set, names the same file on disk so
// the CLI can pass the path instead of feeding Data on stdin.
type Source struct {
	Path   string
	Data   []byte
	OSPath string
}

type nativeBackend struct{ factory parserFactory }

// Native returns the in-process backend: tree-sitter grammars through cgo and the pure-Go
// matcher. Without cgo it returns an error wrapping [ErrUnavailable].
func Native() (Backend, error) {
	if !haveNative {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, errNoCgo)
	}
	return &nativeBackend{factory: nativeParser}, nil
}

func (b *nativeBackend) Name() string { return "native" }

func (b *nativeBackend) Supports(l Lang) bool {
	tp, err := b.factory(l)
	if err != nil {
		return false
	}
	tp.Close()
	return true
}

func (b *nativeBackend) Find(ctx context.Context, q Query, files []Source) ([][]Match, error) {
	p, err := compileSel(b.factory, q.Pattern, q.Lang, q.Strictness, q.Selector)
	if err != nil {
		return nil, err
	}
	tp, err := b.factory(q.Lang)
	if err != nil {
		return nil, err
	}
	pc := newParseCanceller(ctx)
	pc.add(tp)
	defer func() {
		pc.close()
		tp.Close()
	}()
	out := make([][]Match, len(files))
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, err := tp.Parse(f.Data)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &FileError{Op: "parse", Path: f.Path, Err: err}
		}
		finds, _, complete := p.p.FindAllStop(t, func() bool { return ctx.Err() != nil }, -1)
		if !complete {
			return nil, ctx.Err()
		}
		for _, fd := range finds {
			m := buildMatch(t, q.Lang, p.p, fd, 0, "")
			m.File = f.Path
			if q.Rewrite != nil {
				addReplacement(&m, *q.Rewrite, f.Data)
			}
			out[i] = append(out[i], m)
		}
	}
	return out, nil
}

type cliBackend struct {
	exe  string
	goos string // the OS whose rules for running programs apply: runtime.GOOS (tests set another)
	// command makes the process to run: exec.CommandContext (tests record the program).
	command func(ctx context.Context, name string, arg ...string) *exec.Cmd
}

// CLI returns the backend that runs the ast-grep executable (never `sg`, never a
// download). executable "" means "ast-grep" looked up on PATH when a search runs; a
// missing executable gives an error wrapping [ErrUnavailable] then.
func CLI(executable string) Backend {
	if executable == "" {
		executable = "ast-grep"
	}
	return &cliBackend{exe: executable, goos: runtime.GOOS, command: exec.CommandContext}
}

// Default returns the native backend for the languages whose grammar the program links
// (see [NativeLangs]), and the ast-grep CLI (found on PATH, or named by
// $HARNESSKIT_AST_GREP) for the others when that executable is found when the search runs;
// otherwise a search in an unlinked language fails with a [*LangNotLinkedError] naming the
// package to import. Without cgo, the CLI for all.
func Default() Backend {
	cli := CLI(os.Getenv("HARNESSKIT_AST_GREP"))
	if n, err := Native(); err == nil {
		return &defaultBackend{native: n, cli: cli}
	}
	return cli
}

type defaultBackend struct{ native, cli Backend }

func (d *defaultBackend) pick(l Lang) Backend {
	if d.native.Supports(l) {
		return d.native
	}
	if c, ok := d.cli.(*cliBackend); ok {
		if _, err := exec.LookPath(c.exe); err != nil {
			return d.native // no fallback: its error names the package to import
		}
	}
	return d.cli
}
func (d *defaultBackend) Name() string         { return "default" }
func (d *defaultBackend) Supports(l Lang) bool { return l.valid() }
func (d *defaultBackend) Find(ctx context.Context, q Query, files []Source) ([][]Match, error) {
	return d.pick(q.Lang).Find(ctx, q, files)
}

func (c *cliBackend) Name() string         { return "ast-grep" }
func (c *cliBackend) Supports(l Lang) bool { return l.valid() }

// program returns the program to run and the arguments that go before ast-grep's own
// (see resolveProgram: on Windows never a batch file).
func (c *cliBackend) program() (string, []string, error) {
	p, err := exec.LookPath(c.exe)
	if err != nil {
		return "", nil, fmt.Errorf("%w: the ast-grep executable %q was not found (%v); install it with `npm install @ast-grep/cli` or build with cgo for the native backend", ErrUnavailable, c.exe, err)
	}
	return resolveProgram(p, c.goos)
}

func (c *cliBackend) args(q Query) []string {
	// One "--flag=value" argument each: a value starting with '-' (the pattern `-1`) would
	// otherwise be read as an option.
	a := []string{"run", "--pattern=" + q.Pattern, "--lang=" + string(q.Lang), "--json=stream"}
	if q.Strictness != Smart {
		a = append(a, "--strictness="+q.Strictness.String())
	}
	if q.Selector != "" {
		a = append(a, "--selector="+q.Selector)
	}
	if q.Rewrite != nil {
		a = append(a, "--rewrite="+*q.Rewrite)
	}
	return a
}

// run executes ast-grep and parses its stream output.
func (c *cliBackend) run(ctx context.Context, exe string, pre, args []string, stdin []byte) ([]Match, error) {
	cmd := c.command(ctx, exe, append(slices.Clip(pre), args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, &BackendError{Backend: c.exe, ExitCode: -1, Stderr: err.Error()}
		}
		code = ee.ExitCode()
	}
	se := strings.TrimSpace(stderr.String())
	switch {
	case code == 8:
		cause := se
		if i := strings.Index(se, "Caused by"); i >= 0 {
			cause = strings.TrimSpace(se[i:])
		}
		return nil, &PatternError{Pattern: strings.TrimPrefix(args[1], "--pattern="), Lang: Lang(strings.TrimPrefix(args[2], "--lang=")), Cause: cause}
	case code != 0 && code != 1:
		return nil, &BackendError{Backend: c.exe, ExitCode: code, Stderr: se}
	case strings.Contains(se, "ERROR:") || strings.HasPrefix(se, "Error:"):
		return nil, &BackendError{Backend: c.exe, ExitCode: code, Stderr: se}
	}
	var out []Match
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var m Match
		if err := dec.Decode(&m); err != nil {
			return nil, &BackendError{Backend: c.exe, ExitCode: code, Stderr: "unparsable JSON output: " + err.Error()}
		}
		out = append(out, m)
	}
	return out, nil
}

func (c *cliBackend) Find(ctx context.Context, q Query, files []Source) ([][]Match, error) {
	exe, pre, err := c.program()
	if err != nil {
		return nil, err
	}
	out := make([][]Match, len(files))
	byOS := map[string]int{}
	var onDisk []string
	for i, f := range files {
		if f.OSPath != "" {
			abs, err := filepath.Abs(f.OSPath)
			if err == nil {
				byOS[abs] = i
				onDisk = append(onDisk, abs)
				continue
			}
		}
		ms, err := c.run(ctx, exe, pre, append(c.args(q), "--stdin"), f.Data)
		if err != nil {
			return nil, err
		}
		for j := range ms {
			ms[j].File = f.Path
		}
		out[i] = ms
	}
	for len(onDisk) > 0 {
		batch := onDisk[:min(len(onDisk), 200)]
		onDisk = onDisk[len(batch):]
		ms, err := c.run(ctx, exe, pre, append(c.args(q), batch...), nil)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			i, ok := byOS[m.File]
			if !ok {
				return nil, &BackendError{Backend: c.exe, Stderr: "match in an unexpected file " + m.File}
			}
			m.File = files[i].Path
			out[i] = append(out[i], m)
		}
	}
	// ast-grep's order across threads is not deterministic: order each file pre-order
	// (start ascending, outer first).
	for i := range out {
		sortPreorder(out[i])
	}
	return out, nil
}

// sortPreorder sorts matches by start, then by end descending (outer first), stably.
func sortPreorder(ms []Match) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && less(ms[j], ms[j-1]); j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

func less(a, b Match) bool {
	if a.Range.ByteOffset.Start != b.Range.ByteOffset.Start {
		return a.Range.ByteOffset.Start < b.Range.ByteOffset.Start
	}
	return a.Range.ByteOffset.End > b.Range.ByteOffset.End
}
