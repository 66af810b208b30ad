package astsearch

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"unicode/utf8"
)

// Edit is one replacement of a byte range of a file.
type Edit struct {
	Start, End  int    // byte range replaced, end exclusive
	Line        int    // 0-based line of Start
	Original    string // the bytes replaced
	Replacement string
}

// FilePlan is the planned rewrite of one file.
type FilePlan struct {
	Path    string
	Edits   []Edit // the edits that will be written, in order
	Dropped []Edit // edits dropped because they overlap an earlier (outer) one
	Diff    string // unified diff of the file, a/ and b/ prefixed
	// Content is the file's planned content.
	Content []byte

	original []byte
}

// Plan is a rewrite computed by [Rewrite]; nothing has been written. Apply writes it.
type Plan struct {
	Result
	Files []FilePlan // files whose content changes, in walk order

	cache *TreeCache // the request's, which Apply tells of the files it writes
	dir   string     // the request's Dir: the cache names files under it
}

// Diff returns the unified diffs of every file, concatenated.
func (p *Plan) Diff() []byte {
	var b strings.Builder
	for _, f := range p.Files {
		b.WriteString(f.Diff)
	}
	return []byte(b.String())
}

// Rewrite plans the replacement of every match of req by template (see [ExpandTemplate])
// and returns the plan with one unified diff per file; it writes nothing. Edits are taken
// in match order and an edit overlapping an earlier one is dropped, so the outer match
// wins; a file whose content would not change is left out. Errors are those of [Search],
// and [ErrBadPattern] for a template that is not UTF-8 text or holds a NUL byte.
func Rewrite(ctx context.Context, fsys fs.FS, req Request, template string) (*Plan, error) {
	if !utf8.ValidString(template) || strings.ContainsRune(template, 0) {
		return nil, fmt.Errorf("%w: the rewrite template %q is not UTF-8 text or holds a NUL byte; written into a source file it would make the file binary", ErrBadPattern, template)
	}
	res, outs, err := run(ctx, fsys, &req, &rewriteSpec{template: template})
	if err != nil {
		return nil, err
	}
	plan := &Plan{Result: *res, cache: req.Cache, dir: req.Dir}
	for _, fo := range outs {
		fp := planFile(fo)
		if fp == nil {
			continue
		}
		plan.Files = append(plan.Files, *fp)
	}
	return plan, nil
}

func planFile(fo fileOut) *FilePlan {
	fp := &FilePlan{Path: fo.path, original: fo.src}
	lastEnd := -1
	for _, m := range fo.matches {
		if m.Replacement == nil || m.ReplacementOffsets == nil {
			continue
		}
		e := Edit{Start: m.ReplacementOffsets.Start, End: m.ReplacementOffsets.End, Line: m.Range.Start.Line,
			Replacement: *m.Replacement}
		e.Original = string(fo.src[e.Start:e.End])
		if e.Start < lastEnd {
			fp.Dropped = append(fp.Dropped, e)
			continue
		}
		fp.Edits = append(fp.Edits, e)
		lastEnd = e.End
	}
	sort.SliceStable(fp.Edits, func(i, j int) bool { return fp.Edits[i].Start < fp.Edits[j].Start })
	var out []byte
	pos := 0
	for _, e := range fp.Edits {
		out = append(out, fo.src[pos:e.Start]...)
		out = append(out, e.Replacement...)
		pos = e.End
	}
	out = append(out, fo.src[pos:]...)
	if string(out) == string(fo.src) {
		return nil
	}
	// Edits that change nothing are not counted.
	kept := fp.Edits[:0]
	for _, e := range fp.Edits {
		if e.Original != e.Replacement {
			kept = append(kept, e)
		}
	}
	fp.Edits = kept
	fp.Content = out
	fp.Diff = unifiedDiff(fo.path, fo.src, out, fp.Edits)
	return fp
}

// Applied reports what [Plan.Apply] wrote.
type Applied struct {
	Files []string // the files written, in plan order
	Edits int      // the edits written
	// Formatted lists, per written file, the formatter that ran ("" when none) and its
	// report (its diff when short, or a note).
	Formatted []FormatReport
}

// FormatReport is what a [Formatter] did to one file.
type FormatReport struct {
	Path, Formatter string
	Diff            string // the formatter's unified diff when at most 40 lines
	Note            string // why the diff is absent, or the formatter's error
}

// Formatter formats a file's new content before it is committed.
type Formatter interface {
	// Format returns the formatted bytes and the name of the formatter that ran ("" and src
	// unchanged when none applies). An error means "leave the edit as written".
	Format(ctx context.Context, path string, src []byte) (out []byte, formatter string, err error)
}

// An ApplyOption configures [Plan.Apply].
type ApplyOption func(*applyConfig)

type applyConfig struct {
	formatter Formatter
}

// WithFormatter formats each file's new content before it is written. A formatting error
// leaves the edit as written and is reported in [Applied.Formatted]; it never fails the
// apply.
func WithFormatter(f Formatter) ApplyOption { return func(c *applyConfig) { c.formatter = f } }

func (p *Plan) String() string {
	return fmt.Sprintf("Plan{%d files}", len(p.Files))
}
