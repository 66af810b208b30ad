package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/harnesskit/harnesskit/patch"
)

//go:embed descriptions/apply_patch.md
var applyPatchDescription string

type applyPatchArgs struct {
	PatchText string `json:"patchText" jsonschema:"the whole patch, from *** Begin Patch to *** End Patch"`
}

func newApplyPatch(b *Toolbox, c *config) (*Tool, error) {
	return makeTool("apply_patch", applyPatchDescription, Annotations{Destructive: true}, nil,
		func(ctx context.Context, w *workspace, in *applyPatchArgs, _ Progress) (string, error) {
			if in.PatchText == "" {
				return "", invalidf("apply_patch: patchText is empty; send the whole patch, from *** Begin Patch to *** End Patch")
			}
			// One write at a time per toolbox, on the directories as they are now.
			b.writeMu.Lock()
			defer b.writeMu.Unlock()
			a, err := openApplier(c, w)
			if err != nil {
				return "", fmt.Errorf("apply_patch: %w", err)
			}
			defer a.Close()
			res, err := a.Apply(ctx, in.PatchText)
			if err != nil {
				return "", err
			}
			b.forgetWritten(res.Changes)
			return res.Summary + formatReport(res.Changes), nil
		})
}

// formatReport tells the model, per written file, what the formatter did to the text the
// patch made: the formatter and the number of lines it changed with its diff, or why the
// diff is absent (too long, no change, a failure that left the file as the patch made it).
// It is empty when no formatter ran.
func formatReport(changes []patch.FileChange) string {
	var b strings.Builder
	for _, c := range changes {
		switch {
		case c.FormatDiff != "":
			n := diffChangedLines(c.FormatDiff)
			fmt.Fprintf(&b, "%s: formatted by %s, %d %s changed:\n%s", c.Path, c.Formatter, n, plural(n, "line", "lines"), c.FormatDiff)
		case c.FormatNote != "" && c.Formatter != "":
			// A diff too long to show comes as "formatter X changed N lines; re-read …".
			var name string
			var n int
			if k, _ := fmt.Sscanf(c.FormatNote, "formatter %s changed %d lines", &name, &n); k == 2 && name == c.Formatter {
				_, rest, _ := strings.Cut(c.FormatNote, "; ")
				fmt.Fprintf(&b, "%s: formatted by %s, %d %s changed (diff not shown); %s\n", c.Path, c.Formatter, n, plural(n, "line", "lines"), rest)
				continue
			}
			fmt.Fprintf(&b, "%s: %s: %s\n", c.Path, c.Formatter, c.FormatNote)
		case c.FormatNote != "":
			fmt.Fprintf(&b, "%s: %s\n", c.Path, c.FormatNote)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}

// diffChangedLines counts the removed and added lines of a unified diff.
func diffChangedLines(diff string) int {
	n, inHunk := 0, false
	for l := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
			// the --- and +++ headers
		case strings.HasPrefix(l, "+"), strings.HasPrefix(l, "-"):
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// openApplier opens the patch applier of a write tool (apply_patch, edit, multi_edit) on the
// workspace as it is now: its root, worktrees and containment, and the host's formatter.
func openApplier(c *config, w *workspace) (*patch.Applier, error) {
	opts := []patch.Option{patch.WithWorktrees(w.bases[1:]...), patch.WithContainment(w.contain)}
	if c.formatter != nil {
		opts = append(opts, patch.WithFormatter(c.formatter))
	}
	return patch.Open(w.root, opts...)
}
