package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/patch"
)

func TestEditTools(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             string // substring of the result or the tool error
		toolErr          error  // the error's sentinel, nil for a success
		file             string // greet.go's content afterwards ("" = unchanged)
	}{
		{name: "edit", tool: "edit", args: `{"file_path":"src/greet.go","old_string":"\"Hello, \"","new_string":"\"Hi, \""}`,
			want: "M src/greet.go\nreplaced 1 place at line 5", file: "package main\n\n// Greet returns a greeting for name.\nfunc Greet(name string) string {\n\treturn \"Hi, \" + name\n}\n"},
		{name: "edit with drifted indentation", tool: "edit", args: `{"file_path":"src/greet.go","old_string":"func Greet(name string) string {\n  return \"Hello, \" + name\n}","new_string":"func Greet(name string) string {\n\treturn \"Hey, \" + name\n}"}`,
			want: "compared with trim", file: "package main\n\n// Greet returns a greeting for name.\nfunc Greet(name string) string {\n\treturn \"Hey, \" + name\n}\n"},
		{name: "multi_edit", tool: "multi_edit", args: `{"file_path":"src/greet.go","edits":[{"old_string":"Greet returns","new_string":"Hello returns"},{"old_string":"func Greet(","new_string":"func Hello("}]}`,
			want: "edit 2: replaced 1 place at line 4", file: "package main\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n"},
		{name: "multi_edit all or nothing", tool: "multi_edit", args: `{"file_path":"src/greet.go","edits":[{"old_string":"Greet returns","new_string":"X"},{"old_string":"nowhere at all","new_string":"y"}]}`,
			want: "edit 2 of 2", toolErr: patch.ErrNotFound},
		{name: "ambiguous", tool: "edit", args: `{"file_path":"src/greet.go","old_string":"Greet","new_string":"Hello"}`,
			want: "matches 2 places in src/greet.go (lines 3, 4)", toolErr: patch.ErrAmbiguous},
		{name: "replace_all", tool: "edit", args: `{"file_path":"src/greet.go","old_string":"Greet","new_string":"Hello","replace_all":true}`,
			want: "replaced 2 places at line 3, 4", file: "package main\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n"},
		{name: "outside", tool: "edit", args: `{"file_path":"../x.go","old_string":"a","new_string":"b"}`, want: "outside", toolErr: patch.ErrBlocked},
		{name: "camelCase names are refused with the right one", tool: "edit", args: `{"filePath":"src/greet.go","oldString":"a","newString":"b"}`,
			want: `did you mean "file_path"`, toolErr: tools.ErrInvalidArgs},
		{name: "empty edits", tool: "multi_edit", args: `{"file_path":"src/greet.go","edits":[]}`, want: "edits is empty", toolErr: tools.ErrInvalidArgs},
		{name: "same strings", tool: "edit", args: `{"file_path":"src/greet.go","old_string":"Greet","new_string":"Greet"}`, want: "are the same", toolErr: patch.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, dir := toolbox(t)
			greet := filepath.Join(dir, "src", "greet.go")
			before, _ := os.ReadFile(greet)
			out, err := b.Tool(tc.tool).Call(context.Background(), json.RawMessage(tc.args))
			got, _ := os.ReadFile(greet)
			if tc.toolErr != nil {
				if !tools.IsToolError(err) || !errors.Is(err, tc.toolErr) {
					t.Fatalf("err = %v, want a tool error %v", err, tc.toolErr)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error lacks %q:\n%v", tc.want, err)
				}
				if string(got) != string(before) {
					t.Errorf("file written on failure:\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("result lacks %q:\n%s", tc.want, out)
			}
			if tc.file != "" && string(got) != tc.file {
				t.Errorf("file = %q, want %q", got, tc.file)
			}
		})
	}
}
