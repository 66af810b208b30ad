package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/harnesskit/harnesskit/pathguard"
)

const pathguardUsage = `usage: harnesskit pathguard check
       harnesskit pathguard resolve
       harnesskit pathguard contains

Each verb reads JSON lines on stdin and writes one JSON line per input line, in order.

check     the grep/glob pre-check, resolving the path as the host does.
          in:  {"tool":"grep","host":"v1|v2","flavor":"posix|windows","directory":"…","path":"…"}
          out: {"blocked":bool,"resolved":"…","message":"…"}
          Only the tools named exactly grep and glob are checked; an empty or non-string
          path, or an empty directory, passes untouched. host defaults to v1 (grep joins,
          glob resolves), v2 resolves for both. "resolved" is "" when the path was not looked
          at. The resolved string is stat-ed on this machine's file system, whatever the
          flavour. "message" is the refusal (what was resolved, from what, what to do), or "".
resolve   Node-style path arithmetic in either flavour, on any OS.
          in:  {"op":"join|resolve","flavor":"posix|windows","base":"…","path":"…","cwd":"…"}
          out: {"result":"…"}
          "cwd" is optional: the directory resolve falls back to (default: this process's
          working directory for the native flavour, C:\ for windows on another OS).
contains  containment in a root and worktrees, lexically and after symlinks.
          in:  {"roots":["root","worktree",…],"path":"…"}
          out: {"inside":bool,"resolved":"…"}
          The first root is the workspace root, the others worktrees; relative roots are
          taken against this process's working directory, a relative path against the root.
          "resolved" is the real path (symlinks resolved). A path that cannot be resolved
          (a missing root, a symlink loop) is not inside: the check fails closed.

flavor defaults to this machine's (posix here unless on Windows).

Exit codes: 0 every line answered (blocked/outside is an answer, not a failure); 2 usage
error: a line that is not valid JSON, names an unknown host, flavor or op, or gives roots
that cannot be used (lines before it have been answered; the message on stderr names
the line).
`

func pathguardCommand() command {
	return command{
		name:    "pathguard",
		summary: "grep/glob search-path pre-check, Node-style path resolution, root containment",
		usage:   pathguardUsage,
		verbs: []verb{
			{name: "check", run: pathguardJSONLines("check", pathguardCheckLine)},
			{name: "resolve", run: pathguardJSONLines("resolve", pathguardResolveLine)},
			{name: "contains", run: pathguardJSONLines("contains", pathguardContainsLine)},
		},
	}
}

// pathguardJSONLines runs fn on every input line; fn returns the result value or a usage
// error.
func pathguardJSONLines(verb string, fn func(line []byte) (any, error)) func(context.Context, []string, stdio) int {
	return func(ctx context.Context, args []string, std stdio) int {
		fs := newFlagSet(std, "pathguard "+verb)
		if code, ok := parseFlags(fs, pathguardUsage, args, std); !ok {
			return code
		}
		err := eachLine(ctx, std.in, func(n int, line []byte) error {
			res, err := fn(line)
			if err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			return writeJSON(std.out, res)
		})
		if err != nil {
			fmt.Fprintf(std.err, "harnesskit pathguard %s: %v\n", verb, err)
			return exitUsage
		}
		return exitOK
	}
}

// pathguardFlavor maps the "flavor" field to a Flavor; cwd overrides the working
// directory.
func pathguardFlavor(name, cwd string) (pathguard.Flavor, error) {
	native := "posix"
	if runtime.GOOS == "windows" {
		native = "windows"
	}
	if name == "" {
		name = native
	}
	switch {
	case name != "posix" && name != "windows":
		return nil, fmt.Errorf("unknown flavor %q: use posix or windows", name)
	case name == native && cwd == "":
		return pathguard.Native(), nil
	case name == "posix":
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		return pathguard.POSIX(cwd), nil
	}
	if cwd == "" {
		cwd = `C:\`
	}
	return pathguard.Windows(cwd, nil), nil
}

type pathguardCheckIn struct {
	Tool      string `json:"tool"`
	Host      string `json:"host"`
	Flavor    string `json:"flavor"`
	Directory string `json:"directory"`
	Path      any    `json:"path"`
}

type pathguardCheckOut struct {
	Blocked  bool   `json:"blocked"`
	Resolved string `json:"resolved"`
	Message  string `json:"message"`
}

// The shapes of the pathguard verbs' input lines, for decoding errors.
var (
	pathguardCheckShape    = jsonShape{noun: "object", example: `{"tool":"grep","directory":"/work","path":"src"}`, fields: "tool, host, flavor, directory, path", unit: "line"}
	pathguardResolveShape  = jsonShape{noun: "object", example: `{"op":"join","base":"/work","path":"src"}`, fields: "op, flavor, base, path, cwd", unit: "line"}
	pathguardContainsShape = jsonShape{noun: "object", example: `{"roots":["/work"],"path":"src/a.go"}`, fields: "roots, path", unit: "line"}
)

func pathguardCheckLine(line []byte) (any, error) {
	var in pathguardCheckIn
	if err := decodeStrict(line, &in, pathguardCheckShape); err != nil {
		return nil, err
	}
	var host pathguard.Host
	switch in.Host {
	case "", "v1":
		host = pathguard.HostV1
	case "v2":
		host = pathguard.HostV2
	default:
		return nil, fmt.Errorf("unknown host %q: use v1 or v2", in.Host)
	}
	fl, err := pathguardFlavor(in.Flavor, "")
	if err != nil {
		return nil, err
	}
	var out pathguardCheckOut
	g := pathguard.NewSearchGuard(pathguard.WithHost(host), pathguard.WithFlavor(fl),
		pathguard.WithObserver(func(e pathguard.Event) { out.Resolved = e.Resolved }))
	args := map[string]any{}
	if in.Path != nil {
		args["path"] = in.Path
	}
	if err := g.Check(in.Tool, args, in.Directory); err != nil {
		var pe *pathguard.Error
		if !errors.As(err, &pe) {
			return nil, err
		}
		out.Blocked, out.Message = true, err.Error()
	}
	return out, nil
}

type pathguardResolveIn struct {
	Op     string `json:"op"`
	Flavor string `json:"flavor"`
	Base   string `json:"base"`
	Path   string `json:"path"`
	Cwd    string `json:"cwd"`
}

func pathguardResolveLine(line []byte) (any, error) {
	var in pathguardResolveIn
	if err := decodeStrict(line, &in, pathguardResolveShape); err != nil {
		return nil, err
	}
	fl, err := pathguardFlavor(in.Flavor, in.Cwd)
	if err != nil {
		return nil, err
	}
	var res string
	switch in.Op {
	case "join":
		res = fl.Join(in.Base, in.Path)
	case "resolve":
		res = fl.Resolve(in.Base, in.Path)
	default:
		return nil, fmt.Errorf("unknown op %q: use join or resolve", in.Op)
	}
	return struct {
		Result string `json:"result"`
	}{res}, nil
}

type pathguardContainsIn struct {
	Roots []string `json:"roots"`
	Path  string   `json:"path"`
}

type pathguardContainsOut struct {
	Inside   bool   `json:"inside"`
	Resolved string `json:"resolved"`
}

func pathguardContainsLine(line []byte) (any, error) {
	var in pathguardContainsIn
	if err := decodeStrict(line, &in, pathguardContainsShape); err != nil {
		return nil, err
	}
	if len(in.Roots) == 0 {
		return nil, errors.New(`"roots" must name at least the workspace root`)
	}
	roots := make([]string, len(in.Roots))
	for i, r := range in.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		roots[i] = abs
	}
	c, err := pathguard.NewContainment(roots[0], pathguard.WithWorktrees(roots[1:]...))
	if err != nil {
		return nil, err // a root that is not absolute or cannot be resolved: fix the input
	}
	// Outside and unresolvable targets both answer inside=false (fail closed).
	t, err := c.Check(in.Path)
	out := pathguardContainsOut{Inside: err == nil, Resolved: t.Real}
	if out.Resolved == "" {
		out.Resolved = t.Abs
	}
	return out, nil
}
