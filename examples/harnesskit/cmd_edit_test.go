package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

func TestEditCLI(t *testing.T) {
	tests := []struct {
		name     string
		file     string // src/greet.go before ("" = absent)
		args     []string
		stdin    string
		wantCode int
		wantOut  string // substring of stdout
		wantErr  string // substring of stderr
		want     string // src/greet.go afterwards ("" = unchanged)
	}{
		{name: "one edit", file: greetGo, stdin: `{"file_path":"src/greet.go","old_string":"\"hello\"","new_string":"\"hi\""}`,
			wantCode: exitOK, wantOut: `{"ok":true,"changes":[{"op":"update","path":"src/greet.go","move_to":""}],"edits":[{"edit":1,"strategy":"exact","line":4}]}`,
			want: strings.Replace(greetGo, `"hello"`, `"hi"`, 1)},
		{name: "edits in order", file: greetGo, stdin: `{"file_path":"src/greet.go","edits":[{"old_string":"greet()","new_string":"hello()"},{"old_string":"  return \"hello\"\n}","new_string":"  return \"hey\"\n}"}]}`,
			wantCode: exitOK, wantOut: `"edits":[{"edit":1,"strategy":"exact","line":3},{"edit":2,"strategy":"trim","line":4}]`,
			want: "package main\n\nfunc hello() string {\n  return \"hey\"\n}\n"},
		{name: "dry run writes nothing", file: greetGo, args: []string{"--dry-run"}, stdin: `{"file_path":"src/greet.go","old_string":"main","new_string":"lib"}`,
			wantCode: exitOK, wantOut: `"ok":true`},
		{name: "ambiguous", file: greetGo, stdin: `{"file_path":"src/greet.go","old_string":"e","new_string":"E"}`,
			wantCode: exitRefused, wantOut: `"kind":"ambiguous","path":"src/greet.go","edit":1,"line":1,"candidates":[1,3,4]`},
		{name: "not found", file: greetGo, stdin: `{"file_path":"src/greet.go","old_string":"func greet() string {\n\treturn \"bye\"","new_string":"x"}`,
			wantCode: exitRefused, wantOut: `"kind":"not_found","path":"src/greet.go","edit":1,"line":4`},
		{name: "stale read", file: greetGo, stdin: `{"file_path":"src/greet.go","old_string":"main","new_string":"lib","read_sha256":"` + patch.Digest([]byte("old")) + `"}`,
			wantCode: exitRefused, wantOut: `"kind":"changed"`},
		{name: "fresh read", file: greetGo, stdin: `{"file_path":"src/greet.go","old_string":"main","new_string":"lib","read_sha256":"` + patch.Digest([]byte(greetGo)) + `"}`,
			wantCode: exitOK, want: strings.Replace(greetGo, "main", "lib", 1)},
		{name: "create", stdin: `{"file_path":"src/greet.go","old_string":"","new_string":"package x\n"}`, wantCode: exitOK,
			wantOut: `"op":"add"`, want: "package x\n"},
		{name: "both forms", file: greetGo, stdin: `{"file_path":"src/greet.go","old_string":"a","new_string":"b","edits":[]}`,
			wantCode: exitRefused, wantOut: `"kind":"invalid"`},
		{name: "missing new_string", file: greetGo, stdin: `{"file_path":"src/greet.go","old_string":"a"}`,
			wantCode: exitRefused, wantOut: `old_string and new_string are required`},
		{name: "unknown field", file: greetGo, stdin: `{"file_path":"src/greet.go","oldString":"a","new_string":"b"}`,
			wantCode: exitUsage, wantErr: "oldString"},
		{name: "outside", file: greetGo, stdin: `{"file_path":"../x","old_string":"a","new_string":"b"}`,
			wantCode: exitRefused, wantOut: `"kind":"blocked"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "src", "greet.go")
			if tc.file != "" {
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(tc.file), 0o644)
			}
			var out, errb bytes.Buffer
			args := append([]string{"edit", "--root", dir}, tc.args...)
			code := run(t.Context(), args, strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.wantCode, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) || !strings.Contains(errb.String(), tc.wantErr) {
				t.Fatalf("stdout %s\nstderr %s\nwant %q / %q", out.String(), errb.String(), tc.wantOut, tc.wantErr)
			}
			if code != exitUsage && !json.Valid(out.Bytes()) {
				t.Fatalf("stdout is not JSON: %s", out.String())
			}
			got, _ := os.ReadFile(p)
			want := tc.want
			if want == "" {
				want = tc.file
			}
			if string(got) != want {
				t.Fatalf("file = %q, want %q", got, want)
			}
		})
	}
}
