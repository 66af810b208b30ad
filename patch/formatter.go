package patch

import (
	"context"
	"fmt"
	"strings"
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

// maxFormatDiffLines is the longest formatter diff a FileChange carries; a longer one is
// replaced by a note to re-read the file.
const maxFormatDiffLines = 40

// formatResult is what the formatter did to one file.
type formatResult struct {
	name, diff, note string
}

// runFormatter calls f, turning a panic into an error.
func runFormatter(ctx context.Context, f Formatter, path string, src []byte) (out []byte, name string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, name, err = nil, "", fmt.Errorf("formatter panicked: %v", r)
		}
	}()
	return f.Format(ctx, path, append([]byte(nil), src...))
}

// formatEntries runs the configured formatter on every file among entries that the plan
// writes and records the outcome on its entry.
func (pl *planner) formatEntries(entries []*entry) {
	f := pl.a.cfg.formatter
	if f == nil {
		return
	}
	for _, e := range entries {
		if !e.touched || !e.exists {
			continue
		}
		out, name, err := runFormatter(pl.ctx, f, e.path, e.data)
		switch {
		case err != nil:
			e.fmt = formatResult{name: name, note: fmt.Sprintf("formatter failed (%v); the file is written as the patch made it", err)}
		case name == "":
			// no formatter applies to this file
		case string(out) == string(e.data):
			e.fmt = formatResult{name: name, note: "formatter made no change"}
		case len(out) == 0 && len(e.data) > 0:
			e.fmt = formatResult{name: name, note: "formatter returned no content; the file is written as the patch made it"}
		default:
			diff, n := lineDiffText(e.path, e.data, out)
			e.fmt = formatResult{name: name}
			if n <= maxFormatDiffLines {
				e.fmt.diff = diff
			} else {
				e.fmt.note = fmt.Sprintf("formatter %s changed %d lines; re-read the file before editing it again", name, n)
			}
			e.data = out
		}
	}
}

// lineDiffText renders the change from a to b as a unified diff with three lines of context
// and returns it with the number of changed lines (removed plus added). The common prefix and
// suffix are trimmed first; a middle too large to align is shown as removed and re-added.
func lineDiffText(path string, a, b []byte) (string, int) {
	al, bl := splitKeep(string(a)), splitKeep(string(b))
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	ma, mb := al[pre:len(al)-suf], bl[pre:len(bl)-suf]
	type step struct {
		op   byte
		text string
	}
	var steps []step
	if len(ma)*len(mb) <= 1<<20 {
		dp := make([][]int32, len(ma)+1)
		for i := range dp {
			dp[i] = make([]int32, len(mb)+1)
		}
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					dp[i][j] = dp[i+1][j+1] + 1
				} else {
					dp[i][j] = max(dp[i+1][j], dp[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				steps = append(steps, step{' ', ma[i]})
				i, j = i+1, j+1
			case i < len(ma) && (j == len(mb) || dp[i+1][j] >= dp[i][j+1]):
				steps = append(steps, step{'-', ma[i]})
				i++
			default:
				steps = append(steps, step{'+', mb[j]})
				j++
			}
		}
	} else {
		for _, l := range ma {
			steps = append(steps, step{'-', l})
		}
		for _, l := range mb {
			steps = append(steps, step{'+', l})
		}
	}
	ctxBefore := max(pre-3, 0)
	ctxAfter := min(suf, 3)
	var body strings.Builder
	changed, oldN, newN := 0, 0, 0
	for _, l := range al[ctxBefore:pre] {
		body.WriteString(" " + l)
		oldN++
		newN++
	}
	for _, s := range steps {
		body.WriteString(string(s.op) + s.text)
		switch s.op {
		case ' ':
			oldN++
			newN++
		case '-':
			oldN++
			changed++
		case '+':
			newN++
			changed++
		}
	}
	for _, l := range al[len(al)-suf : len(al)-suf+ctxAfter] {
		body.WriteString(" " + l)
		oldN++
		newN++
	}
	text := fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n%s", path, path, ctxBefore+1, oldN, ctxBefore+1, newN, body.String())
	if !strings.HasSuffix(text, "\n") {
		text += "\n\\ No newline at end of file\n"
	}
	return text, changed
}

// splitKeep splits s into lines that keep their "\n".
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
