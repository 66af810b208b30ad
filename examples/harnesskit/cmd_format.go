package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/patch"
)

const formatUsage = `usage: harnesskit format [--json] [--root DIR] [--config JSON|@FILE] [--timeout D] FILE...
       harnesskit format --status [--json] [--root DIR] [--config JSON|@FILE]

Formats each FILE in place with the one formatter its project declares, and prints what
changed. Flags come before the files.

Detection (automatic mode, the default): a formatter runs when the project declares it with
a configuration file (biome.json, .clang-format, ruff.toml, …) or a manifest entry (prettier
in package.json, laravel/pint in composer.json, [tool.ruff] in pyproject.toml, a Cargo.toml);
Go files are formatted in process, as gofmt does. A formatter found only on PATH (shfmt,
terraform, …) needs --config true or an override. At most one formatter runs per file.

Flags:
  --root DIR      the project root, where walks up from a file stop (default: the working directory)
  --config V      OpenCode's "formatter" setting, as JSON text or @file: see below
  --timeout D     timeout of one formatter run (default 10s)
  --status        list every formatter, whether it applies at the root, and why
  --json          one JSON line per file (or per formatter with --status)

Every FILE must be inside --root. --config is false, true, or an object of per-name
overrides ({"prettier":{"disabled":true}},
{"deno":{"command":["deno","fmt","$FILE"],"extensions":[".md"]}}); the extras "timeout",
"priority", "mode", "chain" and "auto": true (keep automatic mode while overriding) are
accepted.

Text output: one block per file, "<file>: formatted by X, N lines changed" with the diff
when it has at most 40 lines, "<file>: not formatted, left as written: <why>", or
"<file>: no formatter (<reasons>)".

JSON output, one line per file:
  {"path":"…","formatter":"gofmt","changed":true,"diff":"…","skipped":[{"name":"…","reason":"…"}],
   "others":["…"],"error":{"kind":"syntax","message":"…"}}
  "formatter" is "" when none applies; "error" is absent on success. Error kinds: syntax,
  formatter, timeout, not_runnable, concurrent_change, outside, io.
With --status: {"name":"…","extensions":[…],"enabled":bool,"reason":"…"} per formatter.

Exit codes: 0 every file formatted or left alone; 1 some file could not be formatted (its
error says why; the file is as it was); 2 usage error, bad configuration or host failure.
`

func formatCommand() command {
	return command{
		name:    "format",
		summary: "format files with the formatter their project declares (gofmt in process)",
		usage:   formatUsage,
		run:     formatRun,
	}
}

// formatFileJSON is one line of -json output.
type formatFileJSON struct {
	Path      string           `json:"path"`
	Formatter string           `json:"formatter"`
	Changed   bool             `json:"changed"`
	Diff      string           `json:"diff"`
	Skipped   []formatSkipJSON `json:"skipped"`
	Others    []string         `json:"others,omitempty"`
	Error     *errorJSON       `json:"error,omitempty"`
}

// formatSkipJSON is a formatter that did not run, and why.
type formatSkipJSON struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// formatStateJSON is one line of -status -json output.
type formatStateJSON struct {
	Name       string   `json:"name"`
	Extensions []string `json:"extensions"`
	Enabled    bool     `json:"enabled"`
	Reason     string   `json:"reason"`
}

// formatErrorKinds names each sentinel in the JSON output.
var formatErrorKinds = []struct {
	err  error
	kind string
}{
	{format.ErrSyntax, "syntax"}, {format.ErrFormatter, "formatter"}, {format.ErrTimeout, "timeout"},
	{format.ErrNotRunnable, "not_runnable"}, {format.ErrConcurrentChange, "concurrent_change"},
	{format.ErrOutside, "outside"}, {format.ErrIO, "io"}, {format.ErrConfig, "config"},
}

func formatErrorKind(err error) string {
	for _, k := range formatErrorKinds {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return "internal"
}

func formatRun(ctx context.Context, args []string, std stdio) int {
	fs := newFlagSet(std, "format")
	asJSON := fs.Bool("json", false, "JSON lines output")
	root := fs.String("root", "", "project root")
	cfgText := fs.String("config", "", "the formatter setting")
	timeout := fs.Duration("timeout", format.DefaultTimeout, "timeout of one formatter run")
	status := fs.Bool("status", false, "list the formatters")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(std.out, formatUsage)
			return exitOK
		}
		usageError(std, "format", "%v", err)
		return exitUsage
	}
	if !*status && fs.NArg() == 0 {
		usageError(std, "format", "no file given")
		return exitUsage
	}
	if *status && fs.NArg() > 0 {
		usageError(std, "format", "-status takes no file (got %q)", fs.Arg(0))
		return exitUsage
	}
	var cfg format.Config
	if *cfgText != "" {
		text := []byte(*cfgText)
		if name, ok := strings.CutPrefix(*cfgText, "@"); ok {
			b, err := os.ReadFile(name)
			if err != nil {
				fmt.Fprintf(std.err, "harnesskit format: reading the configuration: %v\n", err)
				return exitUsage
			}
			text = b
		}
		if err := json.Unmarshal(text, &cfg); err != nil {
			fmt.Fprintf(std.err, "harnesskit format: -config: %v\n", err)
			return exitUsage
		}
	}
	if *root == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(std.err, "harnesskit format: %v\n", err)
			return exitUsage
		}
		*root = wd
	}
	f, err := format.New(*root, format.WithConfig(cfg), format.WithTimeout(*timeout))
	if err != nil {
		fmt.Fprintf(std.err, "harnesskit format: %v\n", err)
		return exitUsage
	}
	if *status {
		for _, st := range f.Status() {
			if *asJSON {
				if err := writeJSON(std.out, formatStateJSON{Name: st.Name, Extensions: st.Extensions, Enabled: st.Enabled, Reason: st.Reason}); err != nil {
					return exitUsage
				}
				continue
			}
			mark := "off"
			if st.Enabled {
				mark = "on "
			}
			fmt.Fprintf(std.out, "%s %-15s %s\n", mark, st.Name, st.Reason)
		}
		return exitOK
	}
	code := exitOK
	for _, file := range fs.Args() {
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(std.err, "harnesskit format: %v\n", err)
			return exitUsage
		}
		res := f.File(ctx, file)
		reportRecovered(std, "format", res.Recovered)
		if res.Err != nil {
			if classify(res.Err) == hostError {
				code = exitUsage
			} else if code == exitOK {
				code = exitRefused
			}
		}
		if *asJSON {
			line := formatFileJSON{Path: file, Formatter: res.Formatter, Changed: res.Changed, Diff: res.Diff, Skipped: []formatSkipJSON{}, Others: res.Others}
			for _, s := range res.Skipped {
				line.Skipped = append(line.Skipped, formatSkipJSON{Name: s.Name, Reason: s.Reason})
			}
			if res.Err != nil {
				line.Error = &errorJSON{Kind: formatErrorKind(res.Err), Message: res.Err.Error()}
			}
			if err := writeJSON(std.out, line); err != nil {
				return exitUsage
			}
			continue
		}
		fmt.Fprintln(std.out, formatText(file, res))
	}
	return code
}

// formatText is the text block for one file.
func formatText(file string, res format.Result) string {
	if rep := res.Report(); rep != "" {
		return file + ": " + strings.TrimSuffix(rep, "\n")
	}
	if len(res.Skipped) == 0 {
		return file + ": no formatter for this kind of file"
	}
	reasons := make([]string, len(res.Skipped))
	for i, s := range res.Skipped {
		reasons[i] = s.Name + ": " + s.Reason
	}
	return file + ": no formatter (" + strings.Join(reasons, "; ") + ")"
}

// patchFormatOption is the patch option of "patch apply --format": the formatter of the
// project at root, in automatic mode.
func patchFormatOption(name, root string, std stdio) (patch.Option, int) {
	if root == "" {
		return nil, exitOK // the applier reports the missing --root
	}
	f, err := format.New(root)
	if err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: --format: %v\n", name, err)
		return nil, exitUsage
	}
	return patch.WithFormatter(f), exitOK
}

// patchFormatText is what "patch apply --format" adds to the summary: per file, the
// formatter that ran and its diff, or its note.
func patchFormatText(changes []patch.FileChange) string {
	var b strings.Builder
	for _, c := range changes {
		switch {
		case c.Formatter != "" && c.FormatDiff != "":
			fmt.Fprintf(&b, "%s: formatted by %s:\n%s", c.Path, c.Formatter, c.FormatDiff)
		case c.FormatNote != "" && c.Formatter != "":
			fmt.Fprintf(&b, "%s: %s: %s\n", c.Path, c.Formatter, c.FormatNote)
		case c.FormatNote != "":
			fmt.Fprintf(&b, "%s: %s\n", c.Path, c.FormatNote)
		}
	}
	return b.String()
}
