// Package fmtreport is the one formatter-report step of the module: patch and astsearch run
// a host's formatter on each file's new content through [Run], and format words its own
// results with [Describe], so a model is told the same thing, counted the same way, by every
// writer.
//
// The rule: a formatter's change is shown as a unified diff when the diff's text has at most
// [MaxDiffLines] lines, every line counted (the two file headers, hunk headers, context and
// changed lines), so what the model reads is bounded. A longer diff is replaced by a note
// that gives the number of changed lines (the lines the diff adds plus the lines it removes)
// and asks the model to re-read the file before its next edit. A formatter that fails,
// panics or prints nothing leaves the content as the edit made it, and the note says why.
package fmtreport

import (
	"context"
	"fmt"
	"strings"

	"github.com/harnesskit/harnesskit/internal/udiff"
)

// MaxDiffLines is the longest diff, in lines of text, shown to the model.
const MaxDiffLines = 40

// Func formats src, the new content of path, and returns the bytes to write and the name of
// the formatter that ran ("" and src when none applies). An error means "leave the edit as
// written". It is the Format method of patch's and astsearch's Formatter seams.
type Func func(ctx context.Context, path string, src []byte) (out []byte, formatter string, err error)

// Outcome is what formatting one file did, worded for the model.
type Outcome struct {
	Out       []byte // the bytes to write: the formatter's output, or src when it did not apply or failed
	Formatter string // the formatter that ran or failed ("" when none applies, or when it panicked before naming itself)
	Diff      string // the change as a unified diff, when it has at most MaxDiffLines lines
	Note      string // otherwise what happened: too long to show, no change, or the failure
}

// Run calls f on a copy of src (path is what f is given, name what the diff's headers say)
// and words the outcome. made names the writer in the failure notes ("patch": "the file is
// written as the patch made it"). A panic in f is recovered and reported as a failure.
func Run(ctx context.Context, f Func, path, name, made string, src []byte) Outcome {
	out, formatter, err := call(ctx, f, path, src)
	o := Outcome{Out: src, Formatter: formatter}
	switch {
	case err != nil:
		o.Note = fmt.Sprintf("formatter failed (%v); the file is written as the %s made it", err, made)
	case formatter == "":
		// No formatter applies to this file.
	case string(out) == string(src):
		o.Note = "formatter made no change"
	case len(out) == 0:
		o.Note = fmt.Sprintf("formatter returned no content; the file is written as the %s made it", made)
	default:
		o.Out = out
		o.Diff, o.Note = Describe(formatter, udiff.Diff(name, src, out))
	}
	return o
}

// call runs f, turning a panic into an error.
func call(ctx context.Context, f Func, path string, src []byte) (out []byte, formatter string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("formatter panicked: %v", r)
		}
	}()
	return f(ctx, path, append([]byte(nil), src...))
}

// Describe applies the rule to a formatter's diff: it returns the diff when it is short
// enough to show, and otherwise "" and a note "formatter <name> changed <n> lines; re-read the
// file before editing it again".
func Describe(formatter, diff string) (shown, note string) {
	if Lines(diff) <= MaxDiffLines {
		return diff, ""
	}
	return "", fmt.Sprintf("formatter %s changed %d lines; re-read the file before editing it again", formatter, Changed(diff))
}

// Lines is the length of a diff's text in lines, the measure the rule compares with
// MaxDiffLines.
func Lines(diff string) int { return strings.Count(diff, "\n") }

// Changed is the number of changed lines of a diff: the lines it adds plus the lines it
// removes.
func Changed(diff string) int {
	added, removed := udiff.Count(diff)
	return added + removed
}
