package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/loopguard"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/webfetch"
)

// DefaultSession is the loop-guard session of calls made without one (Tool.Call, or an
// Invocation whose Session is empty).
const DefaultSession = "default"

// Annotations are hints about a tool's behaviour, for hosts that show or police them
// (MCP's tool annotations carry the same four facts).
type Annotations struct {
	ReadOnly    bool // the tool changes nothing
	Destructive bool // the tool may overwrite or delete files
	Idempotent  bool // repeating the call with the same arguments changes nothing more
	OpenWorld   bool // the tool reaches outside the workspace (the network)
}

// Progress receives progress reports from a long call: done so far, total when known
// (0 when not), and a short message. It is called from the goroutine running the call.
type Progress func(done, total float64, message string)

// Invocation is one call of a tool with everything a host knows about it.
type Invocation struct {
	// Session is the conversation the call belongs to; the loop guard counts repeats per
	// session. Empty means DefaultSession.
	Session string
	// CallID is the host's id for the call, unique within the session. Empty means a
	// fresh id from the Toolbox's counter.
	CallID string
	// Args is the JSON argument object.
	Args json.RawMessage
	// Roots, when not empty, are the directories the host's client works in (MCP roots):
	// absolute paths (others are left out). The call may touch only what lies both inside one of them and inside
	// the Toolbox's root or a worktree (the ceiling): a root inside the ceiling is used as
	// is, a root that contains a ceiling directory yields that directory, and others are
	// left out. The first directory left is the call's root, which relative paths resolve
	// against. When none is left the call fails with ErrNoRoot (a host error).
	Roots []string
	// Progress, when not nil, receives progress reports from long calls (grep, glob).
	Progress Progress
}

// Tool is one tool: what a model is shown (Name, Description, InputSchema) and Call.
// Tools come from a Toolbox and share its guards; a Tool is safe for concurrent use.
type Tool struct {
	Name        string
	Description string          // the prompt text shown to the model
	InputSchema json.RawMessage // a JSON Schema (draft 2020-12) object for the arguments
	Annotations Annotations

	box  *Toolbox
	args *argSpec
	run  func(ctx context.Context, w *workspace, in any, p Progress) (string, error)
}

// Call runs the tool with JSON arguments in DefaultSession with a fresh call id: the
// whole contract in one method, for hosts that have no session or call id of their own.
// See Tool.Invoke.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	return t.Invoke(ctx, Invocation{Args: args})
}

// Invoke runs one call through the loop guard and the tool.
//
// The result is the text to show the model, with the loop guard's notice appended once
// the same call has returned the same result three times in a row. Errors come in two
// channels: a *Error (errors.As) is a tool error, whose message the model should see and
// can act on (bad arguments, a refused path, a patch that does not apply, a loop
// refusal); any other error is a host fault (a cancelled context, an I/O failure) that
// another call would not fix.
func (t *Tool) Invoke(ctx context.Context, inv Invocation) (string, error) {
	b := t.box
	if inv.Session == "" {
		inv.Session = DefaultSession
	}
	if inv.CallID == "" {
		inv.CallID = "call-" + strconv.FormatUint(b.calls.Add(1), 10)
	}
	c := loopguard.Call{Session: inv.Session, CallID: inv.CallID, Tool: t.Name, Args: inv.Args}
	if err := b.guard.Before(c); err != nil {
		if errors.Is(err, loopguard.ErrRefused) {
			return "", &Error{Tool: t.Name, Message: err.Error(), Err: err}
		}
		return "", fmt.Errorf("%s: loop guard: %w", t.Name, err)
	}
	var out string
	w, err := b.workspace(inv.Roots)
	if err == nil {
		out, err = t.call(ctx, w, inv)
	}
	if err != nil && !isToolError(err) {
		b.guard.Abandon(inv.Session, inv.CallID)
		return "", fmt.Errorf("%s: %w", t.Name, err)
	}
	// A failure the model can act on is a result like any other: the same failure
	// repeated is a loop too.
	text := out
	if err != nil {
		text = err.Error()
	}
	text = bound(text)
	text, gerr := b.guard.AfterText(c, text)
	if gerr != nil {
		return "", fmt.Errorf("%s: loop guard: %w", t.Name, gerr)
	}
	if err != nil {
		return "", &Error{Tool: t.Name, Message: text, Err: err}
	}
	return text, nil
}

// bound is the last guard on every result and tool error: each tool keeps its own text
// within MaxOutputBytes and says how to get the rest; anything longer is cut here at a
// line, with a note.
func bound(text string) string {
	if len(text) <= MaxOutputBytes {
		return text
	}
	head := cutAtLine(text, MaxOutputBytes-128)
	return head + fmt.Sprintf("\n… (output cut: the first %d of %d bytes shown)\n", len(head), len(text))
}

func (t *Tool) call(ctx context.Context, w *workspace, inv Invocation) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	in, err := t.args.decode(t.Name, inv.Args)
	if err != nil {
		return "", err
	}
	return t.run(ctx, w, in, inv.Progress)
}

// Toolbox holds the tools of one workspace and the guards they share: one loop guard for
// every call, and the path guards over the workspace root and its worktrees. Build it with
// New and Close it when done. It is safe for concurrent use.
//
// The root and worktrees are resolved (to absolute real paths) at the start of every call,
// the same way for every tool: when the directory at the root's path is replaced while
// the Toolbox is open (a fresh clone, another checkout), the next call of any tool works on
// the new one. Writes (apply_patch, ast_grep_replace) are serialised per Toolbox.
type Toolbox struct {
	root      string   // the workspace root as given to New, absolute, not resolved
	worktrees []string // the worktrees likewise
	guard     *loopguard.Guard
	search    *pathguard.SearchGuard
	tools     []*Tool
	closers   []func() error
	calls     atomic.Uint64
	writeMu   sync.Mutex           // one write at a time
	trees     *astsearch.TreeCache // the ast_grep tools' trees (see WithTreeCache)
}

// workspace is the directories of one call, resolved when it starts: the root (or the
// first client root) and every directory the call may touch, as real paths, and the
// containment guard over them.
type workspace struct {
	box     *Toolbox
	root    string
	bases   []string // root first
	contain *pathguard.Containment
}

// ErrNoRoot: the workspace root is gone, or none of the roots a call names lies in the
// Toolbox's root or worktrees. A host error: another call would not help.
var ErrNoRoot = errors.New("no usable workspace root")

// workspace resolves the directories of one call (see Invocation.Roots).
func (b *Toolbox) workspace(roots []string) (*workspace, error) {
	ceiling := make([]string, 0, 1+len(b.worktrees))
	for i, d := range append([]string{b.root}, b.worktrees...) {
		real, err := realDir(d)
		if err != nil {
			if i == 0 {
				return nil, fmt.Errorf("%w: the workspace root %s: %v", ErrNoRoot, d, err)
			}
			continue // a worktree removed meanwhile: nothing to touch there
		}
		ceiling = append(ceiling, real)
	}
	bases := ceiling
	if len(roots) > 0 {
		bases = nil
		for _, r := range roots {
			if !filepath.IsAbs(r) {
				continue // relative to what? the client's directory is not the server's
			}
			real, err := realDir(r)
			if err != nil {
				continue
			}
			for _, c := range ceiling {
				switch {
				case within(real, c):
					bases = appendNew(bases, real)
				case within(c, real):
					bases = appendNew(bases, c)
				}
			}
		}
		if len(bases) == 0 {
			return nil, fmt.Errorf("%w: none of the client's roots (%s) lies inside the server's root or worktrees (%s), nor contains one",
				ErrNoRoot, strings.Join(roots, ", "), strings.Join(ceiling, ", "))
		}
	}
	contain, err := pathguard.NewContainment(bases[0], pathguard.WithWorktrees(bases[1:]...))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoRoot, err)
	}
	return &workspace{box: b, root: bases[0], bases: bases, contain: contain}, nil
}

// realDir returns the absolute real path of the directory p.
func realDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return abs, nil
}

// within reports whether the real path p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// An Option configures New.
type Option func(*config)

type config struct {
	worktrees   []string
	loop        []loopguard.Option
	workers     int
	maxFileSize int64
	formatter   patch.Formatter
	webfetch    []webfetch.Option
	treeCache   int64
}

// WithWorktrees adds directories the tools may also read and write, besides the root.
// Repeated options accumulate.
func WithWorktrees(dirs ...string) Option {
	return func(c *config) { c.worktrees = append(c.worktrees, dirs...) }
}

// WithLoopGuard passes options to the loop guard every call goes through (for example
// loopguard.WithWarnAt). Default: the loop guard's defaults (notice from the third
// identical result, refusal of the sixth identical read, grep or glob).
func WithLoopGuard(opts ...loopguard.Option) Option {
	return func(c *config) { c.loop = append(c.loop, opts...) }
}

// WithSearchWorkers sets how many files grep searches at once (default
// DefaultSearchWorkers). Values below 1 mean 1.
func WithSearchWorkers(n int) Option {
	return func(c *config) { c.workers = max(n, 1) }
}

// WithMaxSearchFileSize sets the size in bytes above which grep skips a file (default
// DefaultMaxSearchFileSize); the result says how many files were skipped. Values below 1
// mean 1.
func WithMaxSearchFileSize(n int64) Option {
	return func(c *config) { c.maxFileSize = max(n, 1) }
}

// WithFormatter makes apply_patch (and ast_grep_replace when it writes) format every file
// it adds, updates or moves with f before the atomic commit (a *format.Formatter from format.New(root) fits), and tell the model
// what the formatter changed: "formatted by gofmt, 2 lines changed" with the diff when it is
// short, or a request to re-read the file. A formatter that fails leaves the file as the
// patch made it, and the result says why; formatting never fails the patch. Default: no
// formatter.
func WithFormatter(f patch.Formatter) Option {
	return func(c *config) { c.formatter = f }
}

// MaxOutputBytes bounds the text of every result and tool error, whatever limit the call
// gives: read, grep and glob stop at a whole line and say how to get the rest,
// ast_grep_replace keeps its totals, and any other text is cut at a line with a note.
const MaxOutputBytes = 256 << 10

// DefaultSearchWorkers is how many files grep searches in parallel by default.
const DefaultSearchWorkers = 2

// A builder makes one tool for a Toolbox. It returns a nil Tool when the tool is not
// available here (for example a backend that is missing), and an error when the toolbox
// cannot be built.
type builder func(b *Toolbox, c *config) (*Tool, error)

// builders is the registry, in the order Tools lists them. A new tool is one file with
// its builder, its description and its argument struct, plus one line here.
var builders = []builder{
	newApplyPatch,
	newRead,
	newGrep,
	newGlob,
	newWebfetch,
	newEdit, newMultiEdit,
	newAstGrepSearch, newAstGrepReplace,
}

// New returns the tools of the workspace at root (and the worktrees of WithWorktrees),
// all sharing one loop guard and one set of path guards. root and every worktree must
// be existing directories; they are resolved to absolute real paths first.
//
// Errors: an unusable root or worktree, or an invalid loop-guard option.
func New(root string, opts ...Option) (*Toolbox, error) {
	c := config{workers: DefaultSearchWorkers, maxFileSize: DefaultMaxSearchFileSize, treeCache: astsearch.DefaultTreeCacheBytes}
	for _, o := range opts {
		o(&c)
	}
	abs := func(what, p string) (string, error) {
		if _, err := realDir(p); err != nil {
			return "", fmt.Errorf("tools: %s: %w", what, err)
		}
		return filepath.Abs(p)
	}
	root, err := abs("root", root)
	if err != nil {
		return nil, err
	}
	b := &Toolbox{root: root, trees: astsearch.NewTreeCache(c.treeCache)}
	for _, w := range c.worktrees {
		aw, err := abs("worktree", w)
		if err != nil {
			return nil, err
		}
		b.worktrees = append(b.worktrees, aw)
	}
	b.guard, err = loopguard.New(c.loop...)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	b.search = pathguard.NewSearchGuard(pathguard.WithHost(pathguard.HostV2))
	if _, err := b.workspace(nil); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	for _, build := range builders {
		t, err := build(b, &c)
		if err != nil {
			b.Close()
			return nil, err
		}
		if t == nil {
			continue
		}
		t.box = b
		schema, err := json.Marshal(t.args.schema)
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("tools: %s: schema: %w", t.Name, err)
		}
		t.InputSchema = schema
		b.tools = append(b.tools, t)
	}
	return b, nil
}

// Tools returns the available tools, in a fixed order. The slice is a copy; the tools are
// shared.
func (b *Toolbox) Tools() []*Tool { return append([]*Tool(nil), b.tools...) }

// Tool returns the tool called name, or nil.
func (b *Toolbox) Tool(name string) *Tool {
	for _, t := range b.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Root returns the workspace root as a real absolute path, resolved now (or as given to
// New when it cannot be resolved).
func (b *Toolbox) Root() string {
	if real, err := realDir(b.root); err == nil {
		return real
	}
	return b.root
}

// EndSession forgets the loop-guard state of one session (a conversation that ended).
func (b *Toolbox) EndSession(session string) { b.guard.EndSession(session) }

// UserMessage tells the loop guard that a new user message arrived in session (a new
// message id resets the streak of identical calls).
func (b *Toolbox) UserMessage(session, messageID string) {
	b.guard.UserMessage(session, messageID, true)
}

// Close releases what the tools hold open (webfetch's cache and connections; the file
// tools open their directories per call). webfetch calls made after Close fail with a host
// error.
func (b *Toolbox) Close() error {
	var errs []error
	for _, c := range b.closers {
		errs = append(errs, c())
	}
	b.closers = nil
	return errors.Join(errs...)
}
