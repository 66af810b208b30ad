package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files of every command test: go test ./examples/harnesskit -update
var update = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares got with the golden file at path; with -update it rewrites the file
// first (creating its directory).
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update after a deliberate change)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// testCommands is a command table for exercising the dispatcher without a package.
func testCommands() []command {
	const usage = "usage: harnesskit echo say [-upper] \n"
	return []command{{
		name:    "echo",
		summary: "repeat the input",
		usage:   usage,
		run: func(ctx context.Context, args []string, std stdio) int {
			return dispatchVerbs(ctx, "echo", usage, []verb{{
				name: "say",
				run: func(ctx context.Context, args []string, std stdio) int {
					fs := flag.NewFlagSet("echo say", flag.ContinueOnError)
					upper := fs.Bool("upper", false, "upper-case")
					if code, ok := parseFlags(fs, usage, args, std); !ok {
						return code
					}
					s := "hello"
					if *upper {
						s = strings.ToUpper(s)
					}
					fmt.Fprintln(std.out, s)
					return exitOK
				},
			}}, args, std)
		},
	}}
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		name     string
		cmds     []command
		args     []string
		wantCode int
		wantOut  string // substring of stdout ("" = stdout must be empty)
		wantErr  string // substring of stderr ("" = stderr must be empty)
	}{
		{name: "no_args", cmds: testCommands(), args: nil, wantCode: exitUsage, wantErr: "no command given"},
		{name: "unknown_command", cmds: testCommands(), args: []string{"frobnicate"}, wantCode: exitUsage, wantErr: `unknown command "frobnicate"`},
		{name: "unknown_command_names_commands", cmds: testCommands(), args: []string{"frobnicate"}, wantCode: exitUsage, wantErr: "(the commands are echo); run `harnesskit help`"},
		{name: "help", cmds: testCommands(), args: []string{"help"}, wantCode: exitOK, wantOut: "echo       repeat the input"},
		{name: "help_flag", cmds: testCommands(), args: []string{"-h"}, wantCode: exitOK, wantOut: "Exit codes:"},
		{name: "help_empty_table", cmds: nil, args: []string{"help"}, wantCode: exitOK, wantOut: "(none yet)"},
		{name: "help_command", cmds: testCommands(), args: []string{"help", "echo"}, wantCode: exitOK, wantOut: "usage: harnesskit echo say"},
		{name: "help_unknown_command", cmds: testCommands(), args: []string{"help", "nope"}, wantCode: exitUsage, wantErr: `no help for unknown command "nope"`},
		{name: "command_h", cmds: testCommands(), args: []string{"echo", "-h"}, wantCode: exitOK, wantOut: "usage: harnesskit echo say"},
		{name: "verb_missing", cmds: testCommands(), args: []string{"echo"}, wantCode: exitUsage, wantErr: "no verb given"},
		{name: "verb_unknown", cmds: testCommands(), args: []string{"echo", "shout"}, wantCode: exitUsage, wantErr: `unknown verb "shout"`},
		{name: "verb_runs", cmds: testCommands(), args: []string{"echo", "say"}, wantCode: exitOK, wantOut: "hello\n"},
		{name: "verb_flag", cmds: testCommands(), args: []string{"echo", "say", "-upper"}, wantCode: exitOK, wantOut: "HELLO\n"},
		{name: "verb_h", cmds: testCommands(), args: []string{"echo", "say", "-h"}, wantCode: exitOK, wantOut: "usage: harnesskit echo say"},
		{name: "verb_bad_flag", cmds: testCommands(), args: []string{"echo", "say", "-loud"}, wantCode: exitUsage, wantErr: "flag provided but not defined: -loud"},
		{name: "verb_stray_arg", cmds: testCommands(), args: []string{"echo", "say", "extra"}, wantCode: exitUsage, wantErr: `unexpected argument "extra"`},
		{name: "verb_bad_flag_points_to_h", cmds: testCommands(), args: []string{"echo", "say", "-loud"}, wantCode: exitUsage, wantErr: "; run `harnesskit echo say -h` for usage\n"},
		{name: "verb_unknown_names_verbs", cmds: testCommands(), args: []string{"echo", "shout"}, wantCode: exitUsage, wantErr: "(the verbs are say); run `harnesskit echo -h` for usage\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(t.Context(), tc.cmds, tc.args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tc.wantCode, errb.String())
			}
			check := func(stream, got, want string) {
				t.Helper()
				if want == "" && got != "" {
					t.Errorf("%s = %q, want empty", stream, got)
				}
				if !strings.Contains(got, want) {
					t.Errorf("%s = %q, want it to contain %q", stream, got, want)
				}
			}
			check("stdout", out.String(), tc.wantOut)
			check("stderr", errb.String(), tc.wantErr)
			// A usage error is one line, not the whole help.
			if code == exitUsage && strings.Count(errb.String(), "\n") != 1 {
				t.Errorf("usage error printed %d lines, want 1: %q", strings.Count(errb.String(), "\n"), errb.String())
			}
		})
	}
}

// TestRunTable checks the real program: unknown command → 2 with one line on stderr; help → 0,
// and every registered command answers "-h" with its usage and exit 0.
func TestRunTable(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"no-such-command"}, strings.NewReader(""), &out, &errb); code != exitUsage {
		t.Errorf("unknown command: exit %d, want %d", code, exitUsage)
	}
	if out.Len() != 0 || errb.String() != "harnesskit: unknown command \"no-such-command\" (the commands are "+commandNames(commands())+"); run `harnesskit help` for more\n" {
		t.Errorf("unknown command: stdout %q, stderr %q; want one line on stderr naming the commands", out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(t.Context(), []string{"help"}, strings.NewReader(""), &out, &errb); code != exitOK || errb.Len() != 0 {
		t.Errorf("help: exit %d, stderr %q; want 0 and nothing", code, errb.String())
	}
	names := map[string]bool{}
	for _, c := range commands() {
		if names[c.name] {
			t.Errorf("command %q registered twice", c.name)
		}
		names[c.name] = true
		if !strings.Contains(out.String(), c.name) {
			t.Errorf("help does not list %q", c.name)
		}
		var cout, cerr bytes.Buffer
		if code := run(t.Context(), []string{c.name, "-h"}, strings.NewReader(""), &cout, &cerr); code != exitOK {
			t.Errorf("%s -h: exit %d, want 0 (stderr %q)", c.name, code, cerr.String())
		}
		if cout.String() != c.usage || !strings.Contains(c.usage, "harnesskit "+c.name) {
			t.Errorf("%s -h printed %q, want its usage text naming the command", c.name, cout.String())
		}
	}
}

func TestReportError(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "tool_error_json_on_stdout", err: fmt.Errorf("open a.txt: %w", fs.ErrNotExist), wantCode: exitRefused,
			wantOut: `{"error":{"kind":"not_found","message":"open a.txt: file does not exist"}}` + "\n"},
		{name: "host_error_on_stderr", err: errors.New("disk on fire"), wantCode: exitUsage, wantErr: "harnesskit x: disk on fire\n"},
		{name: "cancellation_is_host_error", err: fmt.Errorf("wrapped: %w", context.Canceled), wantCode: exitUsage, wantErr: "context canceled"},
		{name: "html_not_escaped", err: fmt.Errorf("<a> & <b>: %w", fs.ErrPermission), wantCode: exitRefused,
			wantOut: `{"error":{"kind":"not_found","message":"<a> & <b>: permission denied"}}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := reportError(stdio{out: &out, err: &errb}, "x", "not_found", tc.err)
			if code != tc.wantCode || out.String() != tc.wantOut || !strings.Contains(errb.String(), tc.wantErr) || (tc.wantErr == "" && errb.Len() > 0) {
				t.Errorf("reportError = %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errb.String(), tc.wantCode, tc.wantOut, tc.wantErr)
			}
		})
	}
}

func TestEachLine(t *testing.T) {
	var got []string
	err := eachLine(t.Context(), strings.NewReader("{\"a\":1}\n\n  \n{\"b\":2}\r\n"), func(n int, line []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", n, line))
		return nil
	})
	want := []string{`1:{"a":1}`, `4:{"b":2}`}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("eachLine = %q, %v; want %q, nil", got, err, want)
	}
	stop := errors.New("stop")
	if err := eachLine(t.Context(), strings.NewReader("1\n2\n"), func(int, []byte) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("eachLine did not pass the callback's error through: %v", err)
	}
}

// TestDecodeStrict checks that a decoding error says where the input is wrong and what was
// expected there, in words, never the JSON decoder's own wording.
func TestDecodeStrict(t *testing.T) {
	var v struct {
		Path string   `json:"path"`
		N    int      `json:"n"`
		L    []string `json:"l"`
	}
	shape := jsonShape{noun: "object", example: `{"path":"a"}`, fields: "path, n, l"}
	tests := []struct {
		name, in string
		wantErr  string // "" = no error
	}{
		{name: "ok", in: `{"path":"a"}`},
		{name: "ok_trailing_space", in: "{\"path\":\"a\"} \n"},
		{name: "unknown_field", in: `{"paht":"a"}`, wantErr: `column 2: unknown field "paht": expected one of path, n, l`},
		{name: "trailing", in: `{"path":"a"} {}`, wantErr: `column 14: expected the end of the input after the object, found '{'`},
		{name: "not_json", in: `path=a`, wantErr: `column 1: expected a JSON value (a string, number, object, array, true, false or null), found 'p'`},
		{name: "missing_comma", in: `{"path":"a" "n":1}`, wantErr: `column 13: expected "," or "}" after a field's value, found '"'`},
		{name: "cut_short", in: `{"path":"a`, wantErr: `column 11: the input ends inside the object`},
		{name: "empty", in: ``, wantErr: `column 1: the input ends inside the object`},
		{name: "wrong_type_number", in: `{"n":"x"}`, wantErr: `column 6: expected a number for "n", found a string`},
		{name: "wrong_type_array", in: `{"l":"x"}`, wantErr: `expected an array for "l", found a string`},
		{name: "not_an_object", in: `[1]`, wantErr: `column 1: expected an object such as {"path":"a"}, found an array`},
		{name: "multi_line_position", in: "{\n  \"path\": \"a\",\n  \"n\": x\n}", wantErr: `line 3, column 8: expected a JSON value`},
		{name: "nesting_too_deep", in: `{"l":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, wantErr: "expected at most 10000 nested arrays and objects, found '['"},
		{name: "column_counts_characters", in: `{"path":"ééé" x}`, wantErr: `column 15: expected "," or "}"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeStrict([]byte(tc.in), &v, shape)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("decodeStrict(%q) = %v, want no error", tc.in, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("decodeStrict(%q) = %v, want an error containing %q", tc.in, err, tc.wantErr)
			case err != nil && strings.Contains(err.Error(), "json:"):
				t.Errorf("decodeStrict(%q) = %v: the decoder's own wording leaked", tc.in, err)
			}
		})
	}
}
