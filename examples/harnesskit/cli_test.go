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
	"regexp"
	"slices"
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

// invocations lists every verb of the command table as the words that call it: "patch apply",
// and a command alone ("edit", "webfetch") when it also runs without a verb.
func invocations(cmds []command) [][]string {
	var out [][]string
	for _, c := range cmds {
		if c.run != nil {
			out = append(out, []string{c.name})
		}
		for _, v := range c.verbs {
			out = append(out, []string{c.name, v.name})
		}
	}
	return out
}

// helpOf runs `harnesskit <inv...> --help` and returns what it printed and the flags the
// verb defines (read from the flag sets it built, seen through stdio.flagSets).
func helpOf(t *testing.T, inv []string) (string, []string) {
	t.Helper()
	var out, errb bytes.Buffer
	var sets []*flag.FlagSet
	std := stdio{in: strings.NewReader(""), out: &out, err: &errb, reported: map[string]bool{},
		flagSets: func(fs *flag.FlagSet) { sets = append(sets, fs) }}
	if code := dispatch(t.Context(), commands(), append(slices.Clone(inv), "--help"), std); code != exitOK {
		t.Fatalf("harnesskit %s --help: exit %d, want 0; stderr %q", strings.Join(inv, " "), code, errb.String())
	}
	if len(sets) != 1 {
		t.Fatalf("harnesskit %s --help built %d flag sets, want 1", strings.Join(inv, " "), len(sets))
	}
	var flags []string
	sets[0].VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
	return out.String(), flags
}

// flagEntry is a line of a help's Flags section: indented, then the flag with one or two
// dashes, then its argument and description.
var flagEntry = regexp.MustCompile(`^\s+--?([a-z][a-z0-9-]*)(\s|$)`)

// helpFlags returns the flags listed in the Flags section of a help text (the lines after
// "Flags:" up to a blank or unindented line), and the lines of that section that are not a
// flag's entry: each flag is to be listed on one line of its own.
func helpFlags(help string) (listed map[string]bool, stray []string) {
	listed = map[string]bool{}
	in := false
	for _, line := range strings.Split(help, "\n") {
		if line == "Flags:" {
			in = true
			continue
		}
		if !in {
			continue
		}
		if strings.TrimSpace(line) == "" || !strings.HasPrefix(line, " ") {
			in = false
			continue
		}
		m := flagEntry.FindStringSubmatch(line)
		if m == nil {
			stray = append(stray, line)
			continue
		}
		listed[m[1]] = true
	}
	return listed, stray
}

// TestHelpListsEveryFlag checks each verb's --help: it has a Flags section (when the verb has
// flags) that gives every flag the verb defines one line of its own, and lists no flag that
// no verb sharing that help defines.
func TestHelpListsEveryFlag(t *testing.T) {
	invs := invocations(commands())
	if len(invs) < 14 {
		t.Fatalf("found %d verbs, want at least 14: the command table is not read", len(invs))
	}
	// Verbs of one command share its help text, so a flag listed there must be some
	// verb's of that command.
	defined := map[string]map[string]bool{}
	helps := map[string]string{}
	for _, inv := range invs {
		help, flags := helpOf(t, inv)
		name := strings.Join(inv, " ")
		helps[name] = help
		if defined[inv[0]] == nil {
			defined[inv[0]] = map[string]bool{}
		}
		for _, f := range flags {
			defined[inv[0]][f] = true
		}
		t.Run(name, func(t *testing.T) {
			listed, stray := helpFlags(help)
			for _, line := range stray {
				t.Errorf("harnesskit %s --help: a line of the Flags section that is not a flag's entry (one line per flag): %q", name, line)
			}
			for _, f := range flags {
				if !listed[f] {
					t.Errorf("harnesskit %s --help does not list its flag -%s in its Flags section", name, f)
				}
			}
		})
	}
	for _, inv := range invs {
		name := strings.Join(inv, " ")
		listed, _ := helpFlags(helps[name])
		for f := range listed {
			if !defined[inv[0]][f] {
				t.Errorf("harnesskit %s --help lists -%s, which no %s verb defines", name, f, inv[0])
			}
		}
	}
}

// readmeCommandLine returns the rows of the table in the README's "The command line" section,
// each as its cells.
func readmeCommandLine(t *testing.T) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "\n## The command line\n")
	if start < 0 {
		t.Fatal(`README.md has no "## The command line" section`)
	}
	section := text[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var rows [][]string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		// Split on the | that are not inside backquotes.
		var cells []string
		var cell strings.Builder
		quoted := false
		for _, r := range strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|") {
			switch {
			case r == '`':
				quoted = !quoted
			case r == '|' && !quoted:
				cells = append(cells, strings.TrimSpace(cell.String()))
				cell.Reset()
				continue
			}
			cell.WriteRune(r)
		}
		rows = append(rows, append(cells, strings.TrimSpace(cell.String())))
	}
	return rows
}

// codeSpans returns the backquoted spans of s.
func codeSpans(s string) []string {
	parts := strings.Split(s, "`")
	var spans []string
	for i := 1; i < len(parts); i += 2 {
		spans = append(spans, parts[i])
	}
	return spans
}

// TestREADMECommandLine checks the README's table of verbs against the command table: every
// verb it names exists, every flag it names is defined by the verbs of its row, and every
// verb of the command line has a row.
func TestREADMECommandLine(t *testing.T) {
	cmds := commands()
	known := map[string]bool{}
	for _, inv := range invocations(cmds) {
		known[strings.Join(inv, " ")] = true
	}
	isCommand := func(w string) bool {
		return slices.ContainsFunc(cmds, func(c command) bool { return c.name == w })
	}
	rows := readmeCommandLine(t)
	if len(rows) < 9 {
		t.Fatalf("found %d rows in the README's command-line table, want at least 9: the parse is broken", len(rows))
	}
	named := map[string]bool{}
	for _, row := range rows {
		// The first cell names the row's verbs: "patch apply", then bare verbs of the same
		// command ("resolve"); words in capitals are arguments ("format FILE...").
		var verbs []string
		cmd := ""
		for _, span := range codeSpans(row[0]) {
			words := strings.Fields(span)
			if len(words) == 0 {
				continue
			}
			if isCommand(words[0]) {
				cmd, words = words[0], words[1:]
			} else if cmd == "" {
				t.Errorf("README row %q: %q names no command", row[0], span)
				continue
			}
			inv := cmd
			if len(words) > 0 && words[0] != strings.ToUpper(words[0]) {
				inv += " " + words[0]
			}
			if !known[inv] {
				t.Errorf("README names `harnesskit %s`, which is no verb of the command line", inv)
				continue
			}
			verbs = append(verbs, inv)
			named[inv] = true
		}
		if len(verbs) == 0 {
			continue
		}
		flags := map[string]bool{}
		for _, inv := range verbs {
			_, fl := helpOf(t, strings.Fields(inv))
			for _, f := range fl {
				flags[f] = true
			}
		}
		for _, cell := range row[1:] {
			for _, span := range codeSpans(cell) {
				if !strings.HasPrefix(span, "-") {
					continue
				}
				name, _, _ := strings.Cut(strings.TrimLeft(span, "-"), "=")
				if !flags[name] {
					t.Errorf("README row %s names %s, which %s does not define", row[0], span, strings.Join(verbs, ", "))
				}
			}
		}
	}
	for inv := range known {
		if !named[inv] {
			t.Errorf("`harnesskit %s` has no row in the README's command-line table", inv)
		}
	}
}
