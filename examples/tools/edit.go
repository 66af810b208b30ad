package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/harnesskit/harnesskit/patch"
)

//go:embed descriptions/edit.md
var editDescription string

//go:embed descriptions/multi_edit.md
var multiEditDescription string

// The argument names are Claude Code's (Edit, MultiEdit), which Crush and Gemini CLI share.
type editArgs struct {
	FilePath   string `json:"file_path" jsonschema:"the file to edit: absolute, or relative to the workspace root"`
	OldString  string `json:"old_string" jsonschema:"the text to replace, copied from the file as it is (without the line numbers read shows); empty to create a file"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place (must differ from old_string)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every place old_string occurs (default false: it must occur once)"`
}

type editItem struct {
	OldString  string `json:"old_string" jsonschema:"the text to replace, copied from the file as it is after the edits before this one"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place (must differ from old_string)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every place old_string occurs (default false: it must occur once)"`
}

type multiEditArgs struct {
	FilePath string     `json:"file_path" jsonschema:"the file to edit: absolute, or relative to the workspace root"`
	Edits    []editItem `json:"edits" jsonschema:"the edits, applied in order, each to the result of the ones before it; all are written or none"`
}

func newEdit(b *Toolbox, c *config) (*Tool, error) {
	return makeTool("edit", editDescription, Annotations{Destructive: true}, nil,
		func(ctx context.Context, w *workspace, in *editArgs, _ Progress) (string, error) {
			return runEdit(ctx, b, c, w, "edit", in.FilePath, []patch.Edit{{Old: in.OldString, New: in.NewString, ReplaceAll: in.ReplaceAll}})
		})
}

func newMultiEdit(b *Toolbox, c *config) (*Tool, error) {
	return makeTool("multi_edit", multiEditDescription, Annotations{Destructive: true}, nil,
		func(ctx context.Context, w *workspace, in *multiEditArgs, _ Progress) (string, error) {
			if len(in.Edits) == 0 {
				return "", invalidf("multi_edit: edits is empty; give at least one {old_string, new_string}")
			}
			edits := make([]patch.Edit, len(in.Edits))
			for i, e := range in.Edits {
				edits[i] = patch.Edit{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll}
			}
			return runEdit(ctx, b, c, w, "multi_edit", in.FilePath, edits)
		})
}

// runEdit applies the edits to one file through patch.Applier.Edit: every edit or none, one
// transaction, the formatter after the edits.
func runEdit(ctx context.Context, b *Toolbox, c *config, w *workspace, tool, path string, edits []patch.Edit) (string, error) {
	if path == "" {
		return "", invalidf("%s: file_path is empty; give the path of the file to edit", tool)
	}
	b.writeMu.Lock()
	defer b.writeMu.Unlock()
	a, err := openApplier(c, w)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	defer a.Close()
	res, err := a.Edit(ctx, patch.EditRequest{Path: path, Edits: edits})
	if err != nil {
		return "", err
	}
	b.forgetWritten(res.Changes)
	return res.Summary + editReport(res.Report, len(edits)) + formatReport(res.Changes), nil
}

// editReport says, per edit, where it was applied and how old_string was found when it was
// not as written.
func editReport(reps []patch.ChunkReport, n int) string {
	var b strings.Builder
	for k := 1; k <= n; k++ {
		var lines []string
		var st patch.Strategy
		for _, r := range reps {
			if r.Chunk == k {
				lines = append(lines, fmt.Sprint(r.Start))
				st = r.Strategy
			}
		}
		if len(lines) == 0 {
			continue
		}
		if n > 1 {
			fmt.Fprintf(&b, "edit %d: ", k)
		}
		switch st {
		case patch.StrategyCreate:
			b.WriteString("created the file\n")
			continue
		case patch.StrategyExact:
			fmt.Fprintf(&b, "replaced %d %s at line %s\n", len(lines), plural(len(lines), "place", "places"), strings.Join(lines, ", "))
		case patch.StrategyLineNumbers:
			fmt.Fprintf(&b, "replaced at line %s (the read tool's line numbers were removed from old_string)\n", strings.Join(lines, ", "))
		default:
			fmt.Fprintf(&b, "replaced %d %s at line %s (old_string matched when compared with %s; the lines it shares with new_string keep the file's text)\n",
				len(lines), plural(len(lines), "place", "places"), strings.Join(lines, ", "), st)
		}
	}
	return b.String()
}
