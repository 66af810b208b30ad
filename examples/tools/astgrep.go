package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/wfs"
)

//go:embed descriptions/ast_grep_search.md
var astGrepSearchDescription string

//go:embed descriptions/ast_grep_replace.md
var astGrepReplaceDescription string

type astGrepSearchArgs struct {
	Pattern  string   `json:"pattern" jsonschema:"an ast-grep pattern: one complete piece of code of the language, with $NAME for one node and $$$NAME for any number of nodes"`
	Lang     string   `json:"lang" jsonschema:"the language of the pattern and of the files searched, e.g. go, python, typescript"`
	Paths    []string `json:"paths,omitempty" jsonschema:"files or directories to search: absolute, or relative to the workspace root (default: the root)"`
	Globs    []string `json:"globs,omitempty" jsonschema:"gitignore-style globs over the paths, e.g. **/*_test.go to keep only tests or !vendor/** to leave vendor out"`
	Context  int      `json:"context,omitempty" jsonschema:"lines of context to show around each match (default 0)"`
	Selector string   `json:"selector,omitempty" jsonschema:"optional: a node kind of the language; the pattern is then read as context and its first node of this kind is what is matched, e.g. pattern 'func t() { $A := $B }' with selector short_var_declaration finds every x := y in Go"`
}

type astGrepReplaceArgs struct {
	Pattern  string   `json:"pattern" jsonschema:"an ast-grep pattern: one complete piece of code of the language, with $NAME for one node and $$$NAME for any number of nodes"`
	Rewrite  string   `json:"rewrite" jsonschema:"the replacement code; $NAME and $$$NAME insert what the pattern captured"`
	Lang     string   `json:"lang" jsonschema:"the language of the pattern and of the files changed, e.g. go, python, typescript"`
	Paths    []string `json:"paths,omitempty" jsonschema:"files or directories to change: absolute, or relative to the workspace root (default: the root)"`
	Globs    []string `json:"globs,omitempty" jsonschema:"gitignore-style globs over the paths, e.g. **/*.go or !vendor/**"`
	DryRun   *bool    `json:"dryRun,omitempty" jsonschema:"true (the default) shows the diff and writes nothing; false writes the changes"`
	Selector string   `json:"selector,omitempty" jsonschema:"optional: a node kind of the language; the pattern is then read as context and its first node of this kind is what is matched, e.g. pattern 'func t() { $A := $B }' with selector short_var_declaration finds every x := y in Go"`
}

// searchableLangs returns the languages astsearch can search here: all 25 when the ast-grep
// executable (exe, or "ast-grep" when empty) is found by lookPath, since astsearch falls
// back on it for a language without a grammar; otherwise native, the languages whose
// grammar the program links.
func searchableLangs(native []astsearch.Lang, exe string, lookPath func(string) (string, error)) []astsearch.Lang {
	if exe == "" {
		exe = "ast-grep"
	}
	if _, err := lookPath(exe); err == nil {
		return astsearch.Langs()
	}
	return native
}

// astGrepLangs are the languages ast_grep_search and ast_grep_replace offer.
func astGrepLangs() []astsearch.Lang {
	return searchableLangs(astsearch.NativeLangs(), os.Getenv("HARNESSKIT_AST_GREP"), exec.LookPath)
}

// AstGrepAvailable reports whether ast_grep_search and ast_grep_replace can run here, and
// so whether New registers them: the program links the grammar of at least one language (a
// cgo build whose host imports a package under astsearch/lang: this package imports none),
// or the ast-grep executable ($HARNESSKIT_AST_GREP, else "ast-grep" on PATH) is found. The
// tools' lang argument lists the languages linked, or all 25 with the executable.
func AstGrepAvailable() bool { return len(astGrepLangs()) > 0 }

// astSchema lists the languages in the schema, bounds context and states dryRun's default.
func astSchema(s *jsonschema.Schema) {
	var langs []any
	for _, l := range astGrepLangs() {
		langs = append(langs, string(l))
	}
	s.Properties["lang"].Enum = langs
	if p := s.Properties["context"]; p != nil {
		zero := 0.0
		p.Minimum = &zero
	}
	// Optional arguments are plain types for the model (absent means the default), not
	// "null or …".
	for name, typ := range map[string]string{"paths": "array", "globs": "array", "dryRun": "boolean"} {
		if p := s.Properties[name]; p != nil {
			p.Types, p.Type = nil, typ
		}
	}
	if p := s.Properties["dryRun"]; p != nil {
		p.Default = json.RawMessage("true")
	}
}

func newAstGrepSearch(_ *Toolbox, _ *config) (*Tool, error) {
	if !AstGrepAvailable() {
		return nil, nil
	}
	return makeTool("ast_grep_search", astGrepSearchDescription, Annotations{ReadOnly: true, Idempotent: true}, astSchema,
		func(ctx context.Context, w *workspace, in *astGrepSearchArgs, p Progress) (string, error) {
			q, err := w.astRequest(ctx, "ast_grep_search", in.Pattern, in.Lang, in.Paths, in.Globs, p)
			if err != nil {
				return "", err
			}
			defer q.close()
			q.req.Context = in.Context
			q.req.Selector = in.Selector
			res, err := astsearch.Search(ctx, q.fsys, q.req)
			if err != nil {
				return "", astError("ast_grep_search", err)
			}
			for i := range res.Matches {
				res.Matches[i].File = q.display(res.Matches[i].File)
			}
			return astsearch.FormatSearch(res, in.Context), nil
		})
}

func newAstGrepReplace(b *Toolbox, c *config) (*Tool, error) {
	if !AstGrepAvailable() {
		return nil, nil
	}
	return makeTool("ast_grep_replace", astGrepReplaceDescription, Annotations{Destructive: true}, astSchema,
		func(ctx context.Context, w *workspace, in *astGrepReplaceArgs, p Progress) (string, error) {
			q, err := w.astRequest(ctx, "ast_grep_replace", in.Pattern, in.Lang, in.Paths, in.Globs, p)
			if err != nil {
				return "", err
			}
			defer q.close()
			q.req.Selector = in.Selector
			plan, err := astsearch.Rewrite(ctx, q.fsys, q.req, in.Rewrite)
			if err != nil {
				return "", astError("ast_grep_replace", err)
			}
			var applied *astsearch.Applied
			if in.DryRun == nil || *in.DryRun {
				return boundReport(astsearch.FormatRewrite(q.displayPlan(plan), nil), "narrow paths or globs to see each diff"), nil
			}
			var opts []astsearch.ApplyOption
			if c.formatter != nil {
				opts = append(opts, astsearch.WithFormatter(c.formatter))
			}
			if len(plan.Files) > 0 {
				// One write at a time per toolbox, on the directories as they are now.
				b.writeMu.Lock()
				defer b.writeMu.Unlock()
				dst, err := wfs.NewOSFS(w.bases...)
				if err != nil {
					return "", fmt.Errorf("ast_grep_replace: %w", err)
				}
				defer dst.Close()
				applied, err = plan.Apply(ctx, dst, q.base, opts...)
				if err != nil {
					return "", astError("ast_grep_replace", err)
				}
			} else {
				applied = &astsearch.Applied{}
			}
			return boundReport(astsearch.FormatRewrite(q.displayPlan(plan), applied), "every replacement was written") + q.formatReport(applied.Formatted), nil
		})
}

// boundReport keeps a rewrite report within MaxOutputBytes: its head, cut at a line, then
// a note saying how much was shown (and why, in what), then its closing totals ("[DRY RUN]
// N replacements in M files …" or "[APPLIED] …"), which the model needs most.
func boundReport(text, what string) string {
	if len(text) <= MaxOutputBytes {
		return text
	}
	tail := ""
	for _, marker := range []string{"\n[DRY RUN] ", "\n[APPLIED] "} {
		if i := strings.LastIndex(text, marker); i >= 0 && len(text)-i < 1024 {
			tail = text[i+1:]
			break
		}
	}
	note := fmt.Sprintf("\n… (output cut: the first %%d of %d bytes shown; %s)\n\n", len(text), what)
	head := cutAtLine(text, MaxOutputBytes-len(tail)-len(note)-16)
	return head + fmt.Sprintf(note, len(head)) + tail
}

// cutAtLine returns the longest prefix of s of at most n bytes that ends with a newline
// (or n bytes cut at a character, when the first line alone is longer).
func cutAtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i >= 0 {
		return s[:i+1]
	}
	return strings.ToValidUTF8(s[:n], "")
}

// formatReport tells the model, per written file, what the formatter did to the rewritten
// text, in the words apply_patch uses: the formatter and its diff, or its note.
func (q *astQuery) formatReport(reps []astsearch.FormatReport) string {
	var b strings.Builder
	for _, r := range reps {
		path := q.display(r.Path)
		switch {
		case r.Formatter != "" && r.Diff != "":
			fmt.Fprintf(&b, "%s: formatted by %s:\n%s", path, r.Formatter, r.Diff)
		case r.Note != "" && r.Formatter != "":
			fmt.Fprintf(&b, "%s: %s: %s\n", path, r.Formatter, r.Note)
		case r.Note != "":
			fmt.Fprintf(&b, "%s: %s\n", path, r.Note)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}

// astQuery is one search prepared for astsearch: the request, the fs of the base
// directory every path lies in, and how to show its paths to the model.
type astQuery struct {
	w    *workspace
	req  astsearch.Request
	base string // the real base directory (root or a worktree)
	root *os.Root
	fsys fs.FS
}

func (q *astQuery) close() { q.root.Close() }

// display renders a path relative to the base as the model sees paths: relative to the
// workspace root when inside it, else absolute.
func (q *astQuery) display(rel string) string {
	return q.w.display(filepath.Join(q.base, filepath.FromSlash(rel)))
}

// displayPlan returns a copy of p whose file paths are shown as display does.
func (q *astQuery) displayPlan(p *astsearch.Plan) *astsearch.Plan {
	c := *p
	c.Files = append([]astsearch.FilePlan(nil), p.Files...)
	for i := range c.Files {
		c.Files[i].Path = q.display(c.Files[i].Path)
	}
	return &c
}

// astRequest checks the arguments common to both tools and every path through the
// containment guard. All paths must lie in one base (the root or one worktree), since a
// search runs over one directory tree.
func (w *workspace) astRequest(ctx context.Context, tool, pattern, lang string, paths, globs []string, p Progress) (*astQuery, error) {
	if strings.TrimSpace(pattern) == "" {
		return nil, invalidf("%s: pattern is empty; give one complete piece of %s code, e.g. `$F($$$ARGS)` for every call", tool, orAny(lang))
	}
	l, err := astsearch.ParseLang(lang)
	if err != nil {
		return nil, astError(tool, err)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var base string
	rels := make([]string, 0, len(paths))
	for _, path := range paths {
		if path == "" {
			return nil, invalidf("%s: paths contains an empty string; give a file or directory, or leave paths out to search the whole workspace", tool)
		}
		t, err := w.contained(path)
		if err != nil {
			return nil, err
		}
		if base == "" {
			base = t.RealBase
		} else if t.RealBase != base {
			return nil, invalidf("%s: paths %s and %s lie in different trees (%s and %s); make one call per tree", tool, paths[0], path, w.display(base), w.display(t.RealBase))
		}
		if _, err := os.Stat(t.Real); err != nil {
			return nil, fmt.Errorf("%s: path %s does not exist or cannot be read (resolved to %s); check the spelling, or list its parent directory with glob: %w", tool, path, w.display(t.Real), err)
		}
		rel, err := filepath.Rel(t.RealBase, t.Real)
		if err != nil {
			return nil, err
		}
		rels = append(rels, filepath.ToSlash(rel))
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	req := astsearch.Request{Pattern: pattern, Lang: l, Paths: rels, Globs: globs, Dir: base, Cache: w.box.trees}
	if base == w.root {
		req.Guard = w.contain
	}
	if p != nil {
		req.Progress = func(done, total int) {
			if done%progressEvery == 0 || done == total {
				p(float64(done), float64(total), fmt.Sprintf("%s: %d of %d files", tool, done, total))
			}
		}
	}
	return &astQuery{w: w, req: req, base: base, root: r, fsys: r.FS()}, ctx.Err()
}

func orAny(lang string) string {
	if lang == "" {
		return "the language's"
	}
	return lang
}

// astToolSentinels are astsearch's errors the model can act on: fix the pattern, the
// language or a path, or run the call again after a file changed under it.
func astToolSentinels() []error {
	return []error{astsearch.ErrBadPattern, astsearch.ErrUnknownLang, astsearch.ErrLangUnavailable,
		astsearch.ErrBlocked, astsearch.ErrConflict}
}

// astHostSentinels are astsearch's errors that are host faults: no backend, or the
// ast-grep executable failing.
func astHostSentinels() []error {
	return []error{astsearch.ErrUnavailable, astsearch.ErrBackend}
}

// astError words an astsearch error for the model, keeping it in the chain.
func astError(tool string, err error) error {
	switch {
	case errors.Is(err, astsearch.ErrBadPattern):
		return fmt.Errorf("%s: %w. A pattern must be one complete piece of code of the language (an expression, a statement or a declaration), with $NAME for one node and $$$NAME for any number", tool, err)
	case errors.Is(err, astsearch.ErrUnknownLang), errors.Is(err, astsearch.ErrLangUnavailable),
		errors.Is(err, astsearch.ErrConflict): // its message says nothing was written and what to do
		return fmt.Errorf("%s: %w", tool, err)
	}
	return err
}
