package format

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Formatter formats the files of one project: a [Runner] with a fixed root, configuration
// and registry, and a detection cache. Its Format method is the seam that patch and
// astsearch take through their WithFormatter options. It is safe for concurrent use.
type Formatter struct {
	env    Env
	cfg    Config
	reg    []Def
	runner Runner
	alias  string // the root as given (made absolute), when symlinks make it differ from env.Root
}

// An Option configures [New].
type Option func(*options)

type options struct {
	cfg      Config
	reg      []Def
	runner   Runner
	lookPath func(string) (string, error)
	getenv   func(string) string
}

// WithConfig sets the configuration (default: automatic mode). It is checked against the
// registry in New.
func WithConfig(c Config) Option { return func(o *options) { o.cfg = c } }

// WithRegistry replaces the built-in registry ([Builtins]); overrides in the configuration
// apply on top of it.
func WithRegistry(reg []Def) Option { return func(o *options) { o.reg = reg } }

// WithTimeout sets the timeout of one formatter run when its definition sets none.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.runner.Timeout = d } }

// WithExec replaces how formatter processes run (default: [RunProcess]).
func WithExec(fn ExecFunc) Option { return func(o *options) { o.runner.Exec = fn } }

// WithLookPath replaces how binaries are found on PATH (default: exec.LookPath).
func WithLookPath(fn func(string) (string, error)) Option {
	return func(o *options) { o.lookPath = fn }
}

// WithGetenv replaces how environment variables are read (default: os.Getenv).
func WithGetenv(fn func(string) string) Option { return func(o *options) { o.getenv = fn } }

// New returns a Formatter for the project at root (made absolute and resolved through
// symlinks; it must be a directory; absolute paths given later may use either spelling).
// Detection reads files through os.DirFS(root) and caches what it found; probes, when the
// configuration enables them, run with a 5 s timeout. It returns an [*Error] of kind
// [ErrConfig] when the configuration does not fit the registry, or [ErrIO] when root is not
// a directory. It starts nothing.
func New(root string, opts ...Option) (*Formatter, error) {
	o := options{reg: Builtins(), lookPath: exec.LookPath, getenv: os.Getenv}
	for _, opt := range opts {
		opt(&o)
	}
	given, err := filepath.Abs(root)
	if err != nil {
		return nil, &Error{Kind: ErrIO, Path: root, Err: err}
	}
	switch fi, err := os.Stat(given); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &Error{Kind: ErrIO, Path: root, Err: err,
			Msg: "the root " + given + " does not exist; pass the project's directory (check the spelling, or create it first)"}
	case err != nil:
		return nil, &Error{Kind: ErrIO, Path: root, Err: err, Msg: "cannot use " + given + " as the root: " + err.Error()}
	case !fi.IsDir():
		return nil, &Error{Kind: ErrIO, Path: root, Err: syscall.ENOTDIR,
			Msg: "the root " + given + " is a file, not a directory; pass the directory that holds the project"}
	}
	abs, err := filepath.EvalSymlinks(given)
	if err != nil {
		return nil, &Error{Kind: ErrIO, Path: root, Err: err}
	}
	if err := o.cfg.Validate(o.reg); err != nil {
		return nil, err
	}
	env := Env{Root: abs, FS: os.DirFS(abs), LookPath: o.lookPath, Getenv: o.getenv, Cache: NewCache()}
	exe := o.runner.Exec
	if exe == nil {
		exe = RunProcess
	}
	env.RunProbe = func(argv []string) ([]byte, error) {
		argv, extra, err := command(o.runner.sys.get(), argv)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out, errOut, err := exe(ctx, argv, abs, extra, nil)
		return append(out, errOut...), err
	}
	f := &Formatter{env: env, cfg: o.cfg, reg: o.reg, runner: o.runner}
	if given != abs {
		f.alias = given
	}
	return f, nil
}

// Root returns the absolute root.
func (f *Formatter) Root() string { return f.env.Root }

// Format formats src, the new content of path (absolute, or relative to the root), and
// returns the bytes to write and the name of the formatter that ran. When none applies it
// returns src and "". An error means "leave the edit as written": out is then src, and the
// error is an [*Error] saying why. Format writes nothing at path, and forgets what the
// detection cache knew about path, since the caller is about to write it.
func (f *Formatter) Format(ctx context.Context, path string, src []byte) (out []byte, formatter string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = src, &Error{Kind: ErrFormatter, Path: path, Formatter: formatter, Msg: fmt.Sprintf("panicked: %v", p)}
		}
	}()
	path = f.norm(path)
	f.invalidate(path)
	res := f.runner.Bytes(ctx, f.env, f.cfg, f.reg, path, src)
	if res.Err != nil {
		return src, res.Formatter, res.Err
	}
	return res.After, res.Formatter, nil
}

// Bytes is [Runner.Bytes] with this Formatter's settings.
func (f *Formatter) Bytes(ctx context.Context, path string, src []byte) Result {
	path = f.norm(path)
	f.invalidate(path)
	return f.runner.Bytes(ctx, f.env, f.cfg, f.reg, path, src)
}

// File is [Runner.File] with this Formatter's settings: it formats the file on disk and
// writes the result back.
func (f *Formatter) File(ctx context.Context, path string) Result {
	path = f.norm(path)
	f.invalidate(path)
	return f.runner.File(ctx, f.env, f.cfg, f.reg, path)
}

// Detect is [Detect] with this Formatter's settings and cache.
func (f *Formatter) Detect(path string) ([]Plan, []Skip) {
	return Detect(f.env, f.cfg, f.reg, f.norm(path))
}

// Status is [Status] with this Formatter's settings.
func (f *Formatter) Status() []State { return Status(f.env, f.cfg, f.reg) }

// Invalidate tells the detection cache that path (absolute, or relative to the root; a
// directory forgets everything below it) changed.
func (f *Formatter) Invalidate(path string) { f.invalidate(f.norm(path)) }

// norm rewrites an absolute path spelled with the root as given into the resolved root.
func (f *Formatter) norm(path string) string {
	if f.alias == "" || !filepath.IsAbs(path) {
		return path
	}
	if rest, ok := strings.CutPrefix(filepath.Clean(path), f.alias); ok && (rest == "" || os.IsPathSeparator(rest[0])) {
		return f.env.Root + rest
	}
	return path
}

func (f *Formatter) invalidate(path string) {
	if rel, _, ok := f.env.locate(path); ok {
		f.env.Cache.Invalidate(rel)
	}
}
