package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/astsearch"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/all" // the CLI and its MCP server search all 25 languages
	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/wfs"
)

const astsearchUsage = `usage: harnesskit astsearch search --pattern P --lang L [--selector KIND] [--strictness S] [--globs G]... [--json] [--max-matches N] [PATH...]
       harnesskit astsearch rewrite --pattern P --rewrite R --lang L [--selector KIND] [--apply [--format]] [PATH...]

Structural search and rewrite with ast-grep's pattern language. PATHs are files or
directories under the current directory (default "."); they are walked as ripgrep does
(hidden entries and .gitignore/.ignore'd paths skipped). Flags come before the paths.

search    prints the matches plugin-style ("<file>:" then "  <line>: <text>", then
          "Found N matches in M files"), or with --json one array whose objects have the
          fields and units of ` + "`ast-grep run --json=compact`" + ` (text, range.byteOffset,
          range.start/end line and column in characters, file, lines, charCount, language,
          metaVariables.single/multi/transformed).
rewrite   prints the unified diff of replacing every match by the template R ($NAME,
          $$NAME, $$$NAME are substituted); with --apply it writes the files atomically
          (all or nothing) and prints what was replaced.

Flags:
  --pattern P        the ast-grep pattern (required)
  --lang L           the language of the pattern and the files (required)
  --selector KIND    match P's first node of this kind instead of P itself: see below
  --strictness S     (search) cst, smart (default), ast, relaxed, signature or template
  --globs G          (search) override glob, repeatable: "!" excludes, the last match wins
  --json             (search) print one JSON array, as ast-grep run --json=compact does
  --max-matches N    (search) keep only the first N matches, in walk order (0: no cap): see below
  --rewrite R        (rewrite) the template that replaces each match (required)
  --apply            (rewrite) write the files instead of printing the diff
  --format           (rewrite, with --apply) format each rewritten file first: see below

--selector KIND makes P a context: its first node of that kind is the pattern, as
ast-grep's --selector does (P "func t() { $A := $B }" with KIND short_var_declaration
finds every x := y); a KIND that is not in P is refused with the kinds P has.

--max-matches: with --json there is no cap by default, as with ast-grep; the text keeps
the first 500 matches and 1 MiB by default. A cap that cut the output, or the 300 s
timeout, is said on stderr (and in the text's last line): "harnesskit astsearch search:
output truncated (max_matches): 500 of 9415 matches shown; ...". So is a file left out
because its parse did not finish within 30 s ("harnesskit astsearch search: not searched:
1 file ...").

--format formats each rewritten file with the formatter its project declares (as
"harnesskit format" detects it from the current directory; gofmt in process for Go)
before it is written, and prints "<file>: formatted by X:" with the formatter's diff (at
most 40 lines) or a note per file. A formatter that fails leaves the file as the rewrite
made it.

Exit codes: 0 success (also "no matches"); 1 the tool refused the call (a bad pattern, an
unknown language, a missing or outside path, a file changed since planning): the message
is on stdout ("Error: …", or {"error":{…}} with --json); 2 usage error or host failure.
`

func astsearchCommand() command {
	return command{
		name:    "astsearch",
		summary: "structural search and rewrite (ast-grep patterns), native tree-sitter or the ast-grep CLI",
		usage:   astsearchUsage,
		verbs: []verb{
			{name: "search", run: func(ctx context.Context, args []string, std stdio) int { return astsearchRun(ctx, args, std, false) }},
			{name: "rewrite", run: func(ctx context.Context, args []string, std stdio) int { return astsearchRun(ctx, args, std, true) }},
		},
	}
}

func astsearchRun(ctx context.Context, args []string, std stdio, rewrite bool) int {
	verbName := "search"
	if rewrite {
		verbName = "rewrite"
	}
	fset := newFlagSet(std, "astsearch "+verbName)
	pattern := fset.String("pattern", "", "the pattern")
	selector := fset.String("selector", "", "the kind of the node of the pattern to match")
	lang := fset.String("lang", "", "the language")
	var globs multiFlag
	var strictness, tmpl *string
	var asJSON, apply, formatOn *bool
	var maxMatches *int
	if rewrite {
		tmpl = fset.String("rewrite", "", "the rewrite template")
		apply = fset.Bool("apply", false, "write the files")
		formatOn = fset.Bool("format", false, "format the written files")
	} else {
		strictness = fset.String("strictness", "", "the strictness")
		fset.Var(&globs, "globs", "override glob (repeatable)")
		asJSON = fset.Bool("json", false, "print ast-grep's JSON")
		maxMatches = fset.Int("max-matches", -1, "keep the first N matches (0: no cap)")
	}
	fset.SetOutput(io.Discard)
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(std.out, astsearchUsage)
			return exitOK
		}
		usageError(std, fset.Name(), "%v", err)
		return exitUsage
	}
	if *pattern == "" || *lang == "" || rewrite && !flagSet(fset, "rewrite") {
		need := "--pattern and --lang"
		if rewrite {
			need = "--pattern, --rewrite and --lang"
		}
		usageError(std, fset.Name(), "%s are required", need)
		return exitUsage
	}
	if maxMatches != nil && flagSet(fset, "max-matches") && *maxMatches < 0 {
		usageError(std, fset.Name(), "--max-matches %d: give a number of matches, or 0 for no cap", *maxMatches)
		return exitUsage
	}
	if rewrite && *formatOn && !*apply {
		usageError(std, fset.Name(), "--format needs --apply: the dry run shows the rewrite as it would be written before formatting")
		return exitUsage
	}
	jsonOut := asJSON != nil && *asJSON
	fail := func(kind string, err error) int {
		if jsonOut {
			return reportError(std, "astsearch "+verbName, kind, err)
		}
		if classify(err) == toolError {
			fmt.Fprintf(std.out, "Error: %v\n", err)
			return exitRefused
		}
		fmt.Fprintf(std.err, "harnesskit astsearch %s: %v\n", verbName, err)
		return exitUsage
	}
	l, err := astsearch.ParseLang(*lang)
	if err != nil {
		return fail("unknown_lang", err)
	}
	req := astsearch.Request{Pattern: *pattern, Lang: l, Globs: globs, Selector: *selector}
	switch {
	case maxMatches != nil && *maxMatches > 0:
		req.MaxMatches = *maxMatches
		if jsonOut {
			req.MaxOutputBytes = math.MaxInt // the N asked for, however large
		}
	case maxMatches != nil && *maxMatches == 0, jsonOut:
		// No cap: every match, as ast-grep prints them (--json by default, or asked for).
		req.MaxMatches, req.MaxOutputBytes = math.MaxInt, math.MaxInt
	}
	if strictness != nil {
		if req.Strictness, err = astsearch.ParseStrictness(*strictness); err != nil {
			return fail("bad_pattern", err)
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail("io", err)
	}
	guard, err := pathguard.NewContainment(cwd)
	if err != nil {
		return fail("io", err)
	}
	for _, p := range fset.Args() {
		rel := p
		if filepath.IsAbs(p) {
			r, err := filepath.Rel(cwd, p)
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return fail("blocked", fmt.Errorf("%w: %s is outside the current directory %s; run from a directory that contains it", astsearch.ErrBlocked, p, cwd))
			}
			rel = r
		}
		req.Paths = append(req.Paths, filepath.ToSlash(filepath.Clean(rel)))
	}
	req.Guard, req.Dir = guard, cwd
	root, err := os.OpenRoot(cwd)
	if err != nil {
		return fail("io", err)
	}
	defer root.Close()
	fsys := root.FS()
	if !rewrite {
		res, err := astsearch.Search(ctx, fsys, req)
		if err != nil {
			return fail(astsearchKind(err), err)
		}
		if res.Truncated {
			fmt.Fprintf(std.err, "harnesskit astsearch search: %s\n", truncationNote(res))
		}
		if note := astsearch.UnparsedNote(res); note != "" {
			fmt.Fprintf(std.err, "harnesskit astsearch search: %s\n", note)
		}
		if jsonOut {
			ms := res.Matches
			if ms == nil {
				ms = []astsearch.Match{}
			}
			if err := writeJSON(std.out, ms); err != nil {
				return fail("io", err)
			}
			return exitOK
		}
		fmt.Fprintln(std.out, astsearch.FormatSearch(res, 0))
		return exitOK
	}
	if *apply {
		// A commit a crash interrupted is finished or undone before the rewrite reads the
		// tree, so that it is planned on a tree in one state (see wfs.Recover).
		w, err := wfs.NewOSFS(cwd)
		if err != nil {
			return fail("io", err)
		}
		recs, err := wfs.Recover(ctx, w, cwd)
		w.Close()
		for _, r := range recs {
			fmt.Fprintf(std.err, "harnesskit astsearch %s: %s\n", verbName, r)
		}
		if err != nil {
			return fail("io", err)
		}
	}
	plan, err := astsearch.Rewrite(ctx, fsys, req, *tmpl)
	if err != nil {
		return fail(astsearchKind(err), err)
	}
	if note := astsearch.UnparsedNote(&plan.Result); note != "" {
		fmt.Fprintf(std.err, "harnesskit astsearch %s: %s\n", verbName, note)
	}
	if !*apply {
		if len(plan.Files) == 0 {
			fmt.Fprintln(std.out, astsearch.FormatRewrite(plan, nil))
			return exitOK
		}
		std.out.Write(plan.Diff())
		return exitOK
	}
	w, err := wfs.NewOSFS(cwd)
	if err != nil {
		return fail("io", err)
	}
	defer w.Close()
	var opts []astsearch.ApplyOption
	if *formatOn {
		f, err := format.New(cwd)
		if err != nil {
			fmt.Fprintf(std.err, "harnesskit astsearch %s: --format: %v\n", verbName, err)
			return exitUsage
		}
		opts = append(opts, astsearch.WithFormatter(f))
	}
	applied, err := plan.Apply(ctx, w, cwd, opts...)
	if err != nil {
		return fail(astsearchKind(err), err)
	}
	fmt.Fprintln(std.out, astsearch.FormatRewrite(plan, applied))
	fmt.Fprint(std.out, astsearchFormatText(applied.Formatted, cwd))
	return exitOK
}

// astsearchFormatText is what "rewrite --apply --format" adds: per written file, the
// formatter that ran and its diff, or its note (the same shape as "patch apply --format").
// Paths in a note are shown relative to dir, the directory the command runs in, as the
// rest of the output is.
func astsearchFormatText(reps []astsearch.FormatReport, dir string) string {
	var b strings.Builder
	for _, r := range reps {
		r.Note = strings.ReplaceAll(r.Note, dir+string(filepath.Separator), "")
		switch {
		case r.Formatter != "" && r.Diff != "":
			fmt.Fprintf(&b, "%s: formatted by %s:\n%s", r.Path, r.Formatter, r.Diff)
		case r.Note != "" && r.Formatter != "":
			fmt.Fprintf(&b, "%s: %s: %s\n", r.Path, r.Formatter, r.Note)
		case r.Note != "":
			fmt.Fprintf(&b, "%s: %s\n", r.Path, r.Note)
		}
	}
	return b.String()
}

// truncationNote says on stderr what cut a search's output, so that a script reading the
// JSON is not silently given part of the answer.
func truncationNote(res *astsearch.Result) string {
	shown := fmt.Sprintf("%d of %d matches shown", len(res.Matches), res.TotalMatches)
	switch res.TruncatedReason {
	case "max_matches":
		return "output truncated (max_matches): " + shown + "; raise --max-matches, or pass --max-matches 0 for every match"
	case "max_output_bytes":
		return "output truncated (max_output_bytes): " + shown + ", the text's 1 MiB limit; use --json for every match, or narrow the pattern or the paths"
	case "timeout":
		return "output truncated (timeout): the search stopped after 300 s with " + shown + " (more files were not searched); narrow the paths"
	}
	return "output truncated (" + res.TruncatedReason + "): " + shown
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// astsearchKind names an astsearch error for the JSON error object.
func astsearchKind(err error) string {
	switch {
	case errors.Is(err, astsearch.ErrBadPattern):
		return "bad_pattern"
	case errors.Is(err, astsearch.ErrUnknownLang):
		return "unknown_lang"
	case errors.Is(err, astsearch.ErrLangUnavailable):
		return "lang_unavailable"
	case errors.Is(err, astsearch.ErrBlocked):
		return "blocked"
	case errors.Is(err, astsearch.ErrConflict):
		return "conflict"
	case errors.Is(err, astsearch.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, astsearch.ErrBackend):
		return "backend"
	}
	return "io"
}
