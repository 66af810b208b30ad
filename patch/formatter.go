package patch

import (
	"context"

	"github.com/harnesskit/harnesskit/internal/fmtreport"
)

// Formatter formats a file's new content before it is committed.
type Formatter interface {
	// Format returns the formatted bytes and the name of the formatter that ran ("" and src
	// unchanged when none applies). An error means "leave the edit as written".
	Format(ctx context.Context, path string, src []byte) (out []byte, formatter string, err error)
}

// WithFormatter runs f on the new content of every file a plan adds, updates or moves, after
// the patch is applied in memory: the formatted bytes are what the commit writes (and what
// the plan's FileChange.After holds). A formatter that fails, panics or returns nothing
// leaves the edit as the patch made it and is reported on the FileChange, never failing the
// patch. Default: no formatter. Rewrite does not format (it writes nothing).
func WithFormatter(f Formatter) Option { return func(c *config) { c.formatter = f } }

// formatResult is what the formatter did to one file.
type formatResult struct {
	name, diff, note string
}

// formatEntries runs the configured formatter on every file among entries that the plan
// writes and records the outcome on its entry (the module's one report step: the diff when
// its text has at most 40 lines, else a note with the number of changed lines).
func (pl *planner) formatEntries(entries []*entry) {
	f := pl.a.cfg.formatter
	if f == nil {
		return
	}
	for _, e := range entries {
		if !e.touched || !e.exists {
			continue
		}
		o := fmtreport.Run(pl.ctx, f.Format, e.path, e.path, "patch", e.data)
		e.fmt = formatResult{name: o.Formatter, diff: o.Diff, note: o.Note}
		e.data = o.Out
	}
}
