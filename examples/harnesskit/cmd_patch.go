package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

const patchUsage = `usage: harnesskit patch apply --root DIR [--worktree DIR]... [--codex-compat] [--allow-overwrite] [--dry-run] [--format] [--json]
       harnesskit patch rewrite --root DIR [--worktree DIR]...
       harnesskit patch hook --root DIR [--worktree DIR]...

apply and rewrite read one "*** Begin Patch" … "*** End Patch" text (Codex apply_patch
format) on stdin; hook reads one tool call as JSON.

apply     plans every section in memory, then writes all changes or none. Relative patch
          paths resolve against --root; paths outside --root and the --worktree directories
          are refused before anything is read. Context that drifted by whitespace or
          typographic punctuation is located only when the match is unique; a chunk whose
          context drifted or left out a file line is rescued only when every line it
          removes is in the file as written (a removed line that changed is refused, naming
          both versions); an ambiguous location or a change already applied is refused.
          Prints the Codex-style summary ("Success. Updated the following files:" and
          A/M/D lines), or the refusal's message.
rewrite   plans the same way, writes nothing, and prints canonical patch text that a strict
          (Codex-like) applier applies to the same result, for hosts that keep their own
          apply_patch tool.
hook      the host wiring of rewrite: reads one tool call {"tool":"…","args":{…}} and
          writes {"tool":"…","args":{…},"changed":bool,"reason":"…"}. Only the tool
          "apply_patch" with a string "patchText" argument is handled: its args come back
          as a new object whose patchText is the rewritten text ("changed" says whether it
          differs). Any other tool, missing or non-string patchText, args that are not an
          object, or a patch that rewrite refuses leave the call untouched: args are echoed
          as given and "reason" says why. Exit 0 in both cases.

Flags:
  --root DIR          the workspace root (required; every verb)
  --worktree DIR      a further allowed directory (repeatable; every verb)
  --codex-compat      (apply) Codex behaviour: see below
  --allow-overwrite   (apply) let Add File and Move to replace an existing file
  --dry-run           (apply) plan only; report what would change, write nothing
  --format            (apply) format each written file first: see below
  --json              (apply) print one JSON object instead of text: see below

--codex-compat: overwrite on Add/Move, Codex line endings and final newline, sections
written one by one (a failure keeps earlier ones).

--format: format each file the patch writes with the formatter its project declares (as
"harnesskit format" detects it; gofmt in process for Go) before the commit; the text output
adds "formatted by X" with the formatter's diff (at most 40 lines) or a note per file, the
JSON adds "formatter", "format_diff" and "format_note" to each change. A formatter that
fails leaves the file as the patch made it.

--json prints:
    {"ok":bool,
     "changes":[{"op":"add|update|delete|move","path":"…","move_to":"…"}],
     "rescues":[{"path":"…","section":N,"chunk":N,"strategy":"…"}],
     "error":{"kind":"…","path":"…","line":N,"message":"…"}}
    "changes" lists the net effect per path ("path" is the source of a move, "move_to" its
    destination, "" for other ops); when ok is false it lists what was written before the
    failure (only --codex-compat writes sections before a failing one; the message names
    them too), else it is empty. "error" is present only when ok is false, its "path"
    is "" and "line" 0 when the failure has none; "line" is the 1-based patch line.
    "rescues" lists every chunk placed other than by an exact match: "section" is the
    1-based file section of the patch, "chunk" the 1-based chunk in it, "strategy" one of
    trim-end, unicode, unicode-trim-end, trim, unicode-trim, prefix-suffix, lcs,
    stale-edges (outer context lines the file no longer has were left out) or line-numbers
    (line numbers copied from a read tool were removed from the chunk's lines).

Input: stdin up to 256 MiB (more is refused: "input exceeds 256 MiB"). apply and rewrite
read patch text; --json changes only what apply prints. hook reads and writes JSON.

Error kinds (the Go package's Kind names):
  invalid          the text is not a valid patch (a unified diff is named as such)
  empty            the patch has no file sections
  blocked          a path is outside the root and worktrees
  missing_file     a file to update or delete does not exist
  exists           an Add File target or Move destination already exists
  path_conflict    a target is a directory or not a regular file, or one file is named twice
  not_found        the lines or @@ context were not found, or a removed line changed
  ambiguous        the lines match more than one place; add context or an @@ line
  overlap          two chunks touch the same lines
  changed          a file changed on disk while the patch was applied
  already_applied  the change is already in the file (a patch sent twice)
  too_large        a file to update, or an added file, is over the size limit (64 MiB);
                   the message names the limit (such a file can still be deleted)
  busy             another writer held the lock of a target for too long; try again
  read_only        a file to update has no write permission (0444 also for root)
  io               reading or writing failed; nothing was changed

Recovery: every verb first finishes or undoes a commit that a crash interrupted on the tree
(of any harnesskit writer), and says so on stderr, one line per commit ("wfs: finished an
interrupted commit of 3 files (…); journal …"); apply also reports one it meets at commit.

Exit codes: 0 applied (or would apply, with --dry-run; rewrite: text printed), 1 refused (the
reason on stdout), 2 usage error or host failure (on stderr; an io error also prints its JSON
object with --json).
`

func patchCommand() command {
	return command{
		name:    "patch",
		summary: "apply or rewrite Codex-format apply_patch text, atomically and without guessing",
		usage:   patchUsage,
		verbs: []verb{
			{name: "apply", run: patchApply},
			{name: "rewrite", run: patchRewrite},
			{name: "hook", run: patchHook},
		},
	}
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// patchFlags are the flags both verbs share.
type patchFlags struct {
	root      string
	worktrees multiFlag
}

func (pf *patchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&pf.root, "root", "", "workspace root")
	fs.Var(&pf.worktrees, "worktree", "further allowed directory")
}

// applier opens the Applier over the root and worktrees (patch.Open resolves them and builds
// the file system); the returned Closer is the Applier.
func (pf *patchFlags) applier(name string, std stdio, opts ...patch.Option) (*patch.Applier, io.Closer, int) {
	if pf.root == "" {
		fmt.Fprintf(std.err, "harnesskit %s: --root is required\n\n%s", name, patchUsage)
		return nil, nil, exitUsage
	}
	a, err := patch.Open(pf.root, append([]patch.Option{patch.WithWorktrees(pf.worktrees...)}, opts...)...)
	if err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		return nil, nil, exitUsage
	}
	reportRecovered(std, name, a.Recovered())
	return a, a, exitOK
}

// reportRecovered says on stderr which interrupted commits were finished or undone, and
// which journals were refused (each once).
func reportRecovered(std stdio, name string, recs []wfs.Recovery) {
	for _, r := range recs {
		key := r.Outcome.String() + "\x00" + r.Journal
		if std.reported != nil && std.reported[key] {
			continue
		}
		if std.reported != nil {
			std.reported[key] = true
		}
		fmt.Fprintf(std.err, "harnesskit %s: %s\n", name, r)
	}
}

// patchKind is the package's own name of a kind (Kind.String): the CLI and the Go API use one
// vocabulary.
func patchKind(k patch.Kind) string { return k.String() }

type patchChangeJSON struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	MoveTo string `json:"move_to"`
	// With --format: the formatter that ran, its diff (at most 40 lines) or a note.
	Formatter  string `json:"formatter,omitempty"`
	FormatDiff string `json:"format_diff,omitempty"`
	FormatNote string `json:"format_note,omitempty"`
}

type patchRescueJSON struct {
	Path     string `json:"path"`
	Section  int    `json:"section"`
	Chunk    int    `json:"chunk"`
	Strategy string `json:"strategy"`
}

type patchErrorJSON struct {
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

type patchApplyJSON struct {
	OK      bool              `json:"ok"`
	Changes []patchChangeJSON `json:"changes"`
	Rescues []patchRescueJSON `json:"rescues"`
	Error   *patchErrorJSON   `json:"error,omitempty"`
}

func changesJSON(cs []patch.FileChange) []patchChangeJSON {
	out := make([]patchChangeJSON, 0, len(cs))
	for _, c := range cs {
		j := patchChangeJSON{Op: c.Op.String(), Path: c.Path, Formatter: c.Formatter, FormatDiff: c.FormatDiff, FormatNote: c.FormatNote}
		if c.Op == patch.Moved {
			j.Path, j.MoveTo = c.From, c.Path
		}
		out = append(out, j)
	}
	return out
}

func rescuesJSON(rs []patch.ChunkReport) []patchRescueJSON {
	out := []patchRescueJSON{}
	for _, r := range rs {
		switch r.Strategy {
		case patch.StrategyExact, patch.StrategyAppend, patch.StrategyAnchor:
			continue
		}
		out = append(out, patchRescueJSON{Path: r.Path, Section: r.Section, Chunk: r.Chunk, Strategy: string(r.Strategy)})
	}
	return out
}

// maxStdin bounds what the patch verbs read from stdin.
const maxStdin = 256 << 20

// readStdin reads the verb's whole input (what names it in the error message); input over
// maxStdin is refused, never cut.
func readStdin(std stdio, name, what string) ([]byte, int) {
	return readLimited(std, name, what, maxStdin)
}

// readLimited is readStdin with the limit as a parameter (tests use a small one).
func readLimited(std stdio, name, what string, limit int) ([]byte, int) {
	b, err := io.ReadAll(io.LimitReader(std.in, int64(limit)+1))
	if err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: reading %s from stdin: %v\n", name, what, err)
		return nil, exitUsage
	}
	if len(b) > limit {
		fmt.Fprintf(std.err, "harnesskit %s: %s on stdin: input exceeds %s\n", name, what, sizeText(limit))
		return nil, exitUsage
	}
	return b, exitOK
}

// sizeText renders a limit in MiB when it is a whole number of them, else in bytes.
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// refuse reports a failed apply or rewrite: tool errors on stdout with exit 1, host errors
// (KindIO and anything unexpected) on stderr with exit 2; with asJSON the object is printed
// in both cases.
func refuse(std stdio, name string, err error, asJSON bool) int {
	code := exitUsage
	if classify(err) == toolError {
		code = exitRefused
	}
	if asJSON {
		ej := &patchErrorJSON{Kind: "io", Message: err.Error()}
		written := []patchChangeJSON{}
		var pe *patch.Error
		if errors.As(err, &pe) {
			ej.Kind, ej.Path, ej.Line = patchKind(pe.Kind), pe.Path, pe.Line
			written = changesJSON(pe.Written)
		}
		if werr := writeJSON(std.out, patchApplyJSON{Changes: written, Rescues: []patchRescueJSON{}, Error: ej}); werr != nil {
			code = exitUsage
		}
		if code == exitUsage {
			fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		}
		return code
	}
	if code == exitRefused {
		fmt.Fprintln(std.out, err.Error())
	} else {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
	}
	return code
}

func patchApply(ctx context.Context, args []string, std stdio) int {
	const name = "patch apply"
	fs := newFlagSet(std, name)
	var pf patchFlags
	pf.register(fs)
	compat := fs.Bool("codex-compat", false, "Codex behaviour")
	overwrite := fs.Bool("allow-overwrite", false, "allow Add/Move onto an existing file")
	dryRun := fs.Bool("dry-run", false, "plan only")
	asJSON := fs.Bool("json", false, "print JSON")
	formatOn := fs.Bool("format", false, "format written files with the project's formatter")
	if code, ok := parseFlags(fs, patchUsage, args, std); !ok {
		return code
	}
	var opts []patch.Option
	if *compat {
		opts = append(opts, patch.WithCodexCompat())
	}
	if *formatOn {
		opt, code := patchFormatOption(name, pf.root, std)
		if code != exitOK {
			return code
		}
		opts = append(opts, opt)
	}
	if *overwrite {
		opts = append(opts, patch.WithOverwrite(true))
	}
	a, closer, code := pf.applier(name, std, opts...)
	if code != exitOK {
		return code
	}
	defer closer.Close()
	input, code := readStdin(std, name, "the patch")
	if code != exitOK {
		return code
	}
	text := string(input)
	var changes []patch.FileChange
	var report []patch.ChunkReport
	var summary string
	if *dryRun {
		pl, err := a.Plan(ctx, text)
		if err != nil {
			return refuse(std, name, err, *asJSON)
		}
		changes, report, summary = pl.Changes, pl.Report, pl.Summary()
	} else {
		res, err := a.Apply(ctx, text)
		if err != nil {
			return refuse(std, name, err, *asJSON)
		}
		reportRecovered(std, name, res.Recovered)
		changes, report, summary = res.Changes, res.Report, res.Summary
	}
	if *asJSON {
		if err := writeJSON(std.out, patchApplyJSON{OK: true, Changes: changesJSON(changes), Rescues: rescuesJSON(report)}); err != nil {
			fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
			return exitUsage
		}
		return exitOK
	}
	fmt.Fprint(std.out, summary)
	fmt.Fprint(std.out, patchFormatText(changes))
	return exitOK
}

func patchRewrite(ctx context.Context, args []string, std stdio) int {
	const name = "patch rewrite"
	fs := newFlagSet(std, name)
	var pf patchFlags
	pf.register(fs)
	if code, ok := parseFlags(fs, patchUsage, args, std); !ok {
		return code
	}
	a, closer, code := pf.applier(name, std)
	if code != exitOK {
		return code
	}
	defer closer.Close()
	input, code := readStdin(std, name, "the patch")
	if code != exitOK {
		return code
	}
	text := string(input)
	rw, err := a.Rewrite(ctx, text)
	if err != nil {
		return refuse(std, name, err, false)
	}
	fmt.Fprint(std.out, rw.Text)
	return exitOK
}
