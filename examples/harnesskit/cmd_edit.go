package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnesskit/harnesskit/patch"
)

const editUsage = `usage: harnesskit edit --root DIR [--worktree DIR]... [--dry-run] [--format]

Reads one JSON request on stdin, replaces text in one file, and writes one JSON object on
stdout. The request uses the argument names of Claude Code's Edit and MultiEdit tools:

  {"file_path":"src/a.go","old_string":"…","new_string":"…","replace_all":false,
   "edits":[{"old_string":"…","new_string":"…","replace_all":false}],
   "read_sha256":"…"}

Give either old_string and new_string (one edit) or edits (several, applied in order, each
to the result of the ones before it), not both. file_path is relative to --root or absolute
inside it or a --worktree. read_sha256 (optional) is the hex SHA-256 of the content the
caller last read: when the file no longer has it, the edit is refused (kind "changed").

Each old_string is sought as written (line breaks read as "\n"): once, or at every place
with replace_all. Else as whole lines, tolerating whitespace at the line ends, indentation
and typographic punctuation, when that match is unique; else, when its lines carry the line
numbers a read tool shows, at the lines they name. Nothing is guessed: an edit that is not
found, or found at several places, is refused and nothing is written. An empty old_string
creates the file (refused when it has content). The file's line breaks, final newline and
byte-order mark are kept; all edits are written in one transaction, or none.

Flags:
  --root DIR          the workspace root (required)
  --worktree DIR      a further allowed directory (repeatable)
  --dry-run           plan only; report what would change, write nothing
  --format            format the file after the edits, with the formatter its project declares

--format finds the formatter as "harnesskit format" does (gofmt in process for Go).

Output:
  {"ok":bool,
   "changes":[{"op":"add|update","path":"…","move_to":"","formatter":"…","format_diff":"…"}],
   "edits":[{"edit":N,"strategy":"…","line":N}],
   "error":{"kind":"…","path":"…","edit":N,"line":N,"candidates":[N,…],"message":"…"}}
  "edits" has one entry per replacement: "edit" is the 1-based edit of the request,
  "line" the 1-based file line where it starts (in the text before that edit), "strategy"
  exact, trim-end, unicode, unicode-trim-end, trim, unicode-trim, line-numbers or create.
  "error" is present only when ok is false: "line" is the closest file line (not_found)
  or the first match (ambiguous), 0 when none; "candidates" the lines of every match.

Error kinds (the patch package's): invalid (old_string equals new_string, or a bad
request), empty (no edit), blocked (outside the root), missing_file, exists (empty
old_string on a file with content), path_conflict (a directory or special file),
not_found, ambiguous, already_applied (old_string is gone and new_string is there),
changed (read_sha256 differs, or the file changed during the edit), too_large, busy,
read_only, io.

Exit codes: 0 edited (or would edit, with --dry-run), 1 refused (the JSON says why), 2 usage
error or host failure (on stderr).
`

func editCommand() command {
	return command{
		name:    "edit",
		summary: "replace text in one file (Claude Code's Edit/MultiEdit arguments), atomically and without guessing",
		usage:   editUsage,
		run:     editRun,
	}
}

type editItemJSON struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

type editRequestJSON struct {
	FilePath   string         `json:"file_path"`
	OldString  *string        `json:"old_string"`
	NewString  *string        `json:"new_string"`
	ReplaceAll bool           `json:"replace_all"`
	Edits      []editItemJSON `json:"edits"`
	ReadSHA256 string         `json:"read_sha256"`
}

type editPlaceJSON struct {
	Edit     int    `json:"edit"`
	Strategy string `json:"strategy"`
	Line     int    `json:"line"`
}

type editErrorJSON struct {
	Kind       string `json:"kind"`
	Path       string `json:"path"`
	Edit       int    `json:"edit"`
	Line       int    `json:"line"`
	Candidates []int  `json:"candidates"`
	Message    string `json:"message"`
}

type editResultJSON struct {
	OK      bool              `json:"ok"`
	Changes []patchChangeJSON `json:"changes"`
	Edits   []editPlaceJSON   `json:"edits"`
	Error   *editErrorJSON    `json:"error,omitempty"`
}

var editShape = jsonShape{noun: "edit request", example: `{"file_path":"a.go","old_string":"x","new_string":"y"}`,
	fields: "file_path, old_string, new_string, replace_all, edits, read_sha256"}

func editRun(ctx context.Context, args []string, std stdio) int {
	const name = "edit"
	fs := newFlagSet(std, name)
	var pf patchFlags
	pf.register(fs)
	dryRun := fs.Bool("dry-run", false, "plan only")
	formatOn := fs.Bool("format", false, "format the edited file with the project's formatter")
	if code, ok := parseFlags(fs, editUsage, args, std); !ok {
		return code
	}
	var opts []patch.Option
	if *formatOn {
		opt, code := patchFormatOption(name, pf.root, std)
		if code != exitOK {
			return code
		}
		opts = append(opts, opt)
	}
	input, code := readStdin(std, name, "the edit request")
	if code != exitOK {
		return code
	}
	var req editRequestJSON
	if err := decodeStrict(input, &req, editShape); err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		return exitUsage
	}
	var edits []patch.Edit
	switch {
	case req.Edits != nil && (req.OldString != nil || req.NewString != nil):
		return editRefuse(std, name, &patch.Error{Op: "edit", Kind: patch.KindInvalid, Path: req.FilePath,
			Msg: "give either old_string and new_string (one edit) or edits (several), not both"})
	case req.Edits != nil:
		for _, e := range req.Edits {
			edits = append(edits, patch.Edit{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll})
		}
	case req.OldString != nil && req.NewString != nil:
		edits = []patch.Edit{{Old: *req.OldString, New: *req.NewString, ReplaceAll: req.ReplaceAll}}
	default:
		return editRefuse(std, name, &patch.Error{Op: "edit", Kind: patch.KindInvalid, Path: req.FilePath,
			Msg: "old_string and new_string are required (or edits, a list of them)"})
	}
	a, closer, code := pf.applier(name, std, opts...)
	if code != exitOK {
		return code
	}
	defer closer.Close()
	er := patch.EditRequest{Path: req.FilePath, Edits: edits, ReadDigest: req.ReadSHA256}
	var changes []patch.FileChange
	var report []patch.ChunkReport
	if *dryRun {
		pl, err := a.PlanEdit(ctx, er)
		if err != nil {
			return editRefuse(std, name, err)
		}
		changes, report = pl.Changes, pl.Report
	} else {
		res, err := a.Edit(ctx, er)
		if err != nil {
			return editRefuse(std, name, err)
		}
		reportRecovered(std, name, res.Recovered)
		changes, report = res.Changes, res.Report
	}
	out := editResultJSON{OK: true, Changes: changesJSON(changes), Edits: []editPlaceJSON{}}
	for _, r := range report {
		out.Edits = append(out.Edits, editPlaceJSON{Edit: r.Chunk, Strategy: string(r.Strategy), Line: r.Start})
	}
	if err := writeJSON(std.out, out); err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		return exitUsage
	}
	return exitOK
}

// editRefuse prints a failed edit: a tool error as the JSON object on stdout with exit 1, a
// host error on stderr with exit 2.
func editRefuse(std stdio, name string, err error) int {
	if classify(err) != toolError {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		return exitUsage
	}
	ej := &editErrorJSON{Kind: "io", Message: err.Error(), Candidates: []int{}}
	var pe *patch.Error
	if errors.As(err, &pe) {
		ej.Kind, ej.Path, ej.Edit, ej.Line = patchKind(pe.Kind), pe.Path, pe.Chunk, pe.FileLine
		if pe.Candidates != nil {
			ej.Candidates = pe.Candidates
		}
	}
	if werr := writeJSON(std.out, editResultJSON{Changes: []patchChangeJSON{}, Edits: []editPlaceJSON{}, Error: ej}); werr != nil {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		return exitUsage
	}
	return exitRefused
}
