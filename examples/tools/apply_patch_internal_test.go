package tools

import (
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

func TestFormatReport(t *testing.T) {
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n package x\n-func  F( ) {}\n+func F() {}\n--- three\n"
	tests := []struct {
		name    string
		changes []patch.FileChange
		want    string
	}{
		{name: "no_formatter", changes: []patch.FileChange{{Path: "a.md"}}, want: ""},
		{
			name:    "diff_counts_removed_and_added_lines_not_headers",
			changes: []patch.FileChange{{Path: "x.go", Formatter: "gofmt", FormatDiff: diff}},
			want:    "\nx.go: formatted by gofmt, 3 lines changed:\n" + diff,
		},
		{
			name:    "one_line",
			changes: []patch.FileChange{{Path: "x.go", Formatter: "gofmt", FormatDiff: "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n+x\n"}},
			want:    "\nx.go: formatted by gofmt, 1 line changed:\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n+x\n",
		},
		{
			name:    "long_diff_note",
			changes: []patch.FileChange{{Path: "x.go", Formatter: "gofmt", FormatNote: "formatter gofmt changed 57 lines; re-read the file before editing it again"}},
			want:    "\nx.go: formatted by gofmt, 57 lines changed (diff not shown); re-read the file before editing it again\n",
		},
		{
			name:    "failure_note",
			changes: []patch.FileChange{{Path: "x.go", Formatter: "gofmt", FormatNote: "formatter failed (x.go:3:1: expected '}'); the file is written as the patch made it"}},
			want:    "\nx.go: gofmt: formatter failed (x.go:3:1: expected '}'); the file is written as the patch made it\n",
		},
		{
			name:    "note_without_a_name",
			changes: []patch.FileChange{{Path: "x.go", FormatNote: "formatter failed (boom); the file is written as the patch made it"}},
			want:    "\nx.go: formatter failed (boom); the file is written as the patch made it\n",
		},
		{
			name: "several_files_in_patch_order",
			changes: []patch.FileChange{
				{Path: "a.go", Formatter: "gofmt", FormatNote: "formatter made no change"},
				{Path: "b.txt"},
				{Path: "c.go", Formatter: "gofmt", FormatNote: "formatter made no change"},
			},
			want: "\na.go: gofmt: formatter made no change\nc.go: gofmt: formatter made no change\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatReport(tc.changes); got != tc.want {
				t.Errorf("formatReport:\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
