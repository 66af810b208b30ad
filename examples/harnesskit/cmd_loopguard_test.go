package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoopguardReplayGolden replays each testdata/loopguard/*.jsonl and compares the
// output with the .golden file next to it (go test -run TestLoopguard -update rewrites them).
func TestLoopguardReplayGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "loopguard", "*.jsonl"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".jsonl")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := run(t.Context(), []string{"loopguard", "replay"}, bytes.NewReader(data), &out, &errb); code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errb.String())
			}
			if lines, events := strings.Count(out.String(), "\n"), len(strings.Split(strings.TrimSpace(string(data)), "\n")); lines != events {
				t.Errorf("%d output lines for %d events", lines, events)
			}
			checkGolden(t, strings.TrimSuffix(in, ".jsonl")+".golden", out.String())
		})
	}
}

func TestLoopguardReplay(t *testing.T) {
	const before = `{"phase":"before","session":"s1","call":"c1","tool":"read","args":{"filePath":"a.ts"}}` + "\n"
	const after = `{"phase":"after","session":"s1","call":"c1","tool":"read","args":{"filePath":"a.ts"},"output":"x"}` + "\n"
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantOut  string // exact stdout
		wantErr  string // substring of stderr ("" = empty)
	}{
		{name: "help", args: []string{"-h"}, wantOut: loopguardUsage},
		{name: "verb_help", args: []string{"replay", "-h"}, wantOut: loopguardUsage},
		{name: "no_verb", args: nil, wantCode: exitUsage, wantErr: "no verb given"},
		{name: "empty_input", args: []string{"replay"}},
		{name: "blank_lines_skipped", args: []string{"replay"}, stdin: "\n" + before + "\n\n" + after, wantOut: "{\"action\":\"none\",\"message\":\"\",\"appended\":\"\"}\n{\"action\":\"none\",\"message\":\"\",\"appended\":\"\"}\n"},
		{name: "warn_at_flag", args: []string{"replay", "-warn-at", "1"}, stdin: before + after,
			wantOut: "{\"action\":\"none\",\"message\":\"\",\"appended\":\"\"}\n{\"action\":\"appended\",\"message\":\"\",\"appended\":\"\\n\\n[REPEATED TOOL CALLS - STOP]\\n\\nYou have made this exact tool call (read with identical arguments) 1 times in a row and received identical results each time. You are in a loop and making no progress.\\n\\nStop repeating this call. Instead:\\n1. Use the result above: it already contains everything this call can tell you.\\n2. If you need different information, make a different call (another path, pattern or tool).\\n3. If the task is done, give your final answer now instead of calling more tools.\\n\"}\n"},
		{name: "bad_flag_values", args: []string{"replay", "-warn-at", "6"}, wantCode: exitUsage, wantErr: "WithBlockAt(5) is below WithWarnAt(6)"},
		{name: "unknown_flag", args: []string{"replay", "-loud"}, wantCode: exitUsage, wantErr: "flag provided but not defined"},
		{name: "not_json", args: []string{"replay"}, stdin: before + "phase=before\n", wantCode: exitUsage, wantOut: "{\"action\":\"none\",\"message\":\"\",\"appended\":\"\"}\n",
			wantErr: "line 2, column 1: expected a JSON value (a string, number, object, array, true, false or null), found 'p'\n"},
		{name: "unknown_field", args: []string{"replay"}, stdin: `{"phase":"before","session":"s1","tool":"read","arguments":{}}` + "\n", wantCode: exitUsage,
			wantErr: `line 1, column 48: unknown field "arguments": expected one of phase, session, call, tool, args, output, message, external` + "\n"},
		{name: "missing_colon", args: []string{"replay"}, stdin: `{"phase" "before"}` + "\n", wantCode: exitUsage, wantErr: `line 1, column 10: expected ":" after the field name, found '"'` + "\n"},
		{name: "missing_comma", args: []string{"replay"}, stdin: `{"phase":"before" "session":"s1"}` + "\n", wantCode: exitUsage, wantErr: `line 1, column 19: expected "," or "}" after a field's value, found '"'` + "\n"},
		{name: "truncated_line", args: []string{"replay"}, stdin: `{"phase":"before","session":"s1"` + "\n", wantCode: exitUsage, wantErr: `line 1, column 33: the line ends inside the event object: expected the rest of it`},
		{name: "trailing_data", args: []string{"replay"}, stdin: `{"phase":"end_turn","session":"s1"} {}` + "\n", wantCode: exitUsage, wantErr: `line 1, column 37: expected the end of the line after the event object, found '{'` + "\n"},
		{name: "wrong_type", args: []string{"replay"}, stdin: `{"phase":"before","session":7}` + "\n", wantCode: exitUsage, wantErr: `line 1, column 29: expected a string for "session", found a number` + "\n"},
		{name: "wrong_type_bool", args: []string{"replay"}, stdin: `{"phase":"user_message","session":"s1","message":"m1","external":"no"}` + "\n", wantCode: exitUsage, wantErr: `expected true or false for "external", found a string`},
		{name: "not_an_object", args: []string{"replay"}, stdin: `["before"]` + "\n", wantCode: exitUsage, wantErr: `line 1, column 1: expected an event object such as {"phase":"before","session":"s1","call":"c1","tool":"read"}, found an array` + "\n"},
		{name: "E64_missing_call_id", args: []string{"replay"}, stdin: before + `{"phase":"before","session":"s1","tool":"read"}` + "\n", wantCode: exitUsage, wantOut: "{\"action\":\"none\",\"message\":\"\",\"appended\":\"\"}\n",
			wantErr: `harnesskit loopguard replay: line 2: "before" events need a non-empty "session" (the conversation) and "call" (the call id, the same in its before and after events); got session "s1", call ""` + "\n"},
		{name: "E64_missing_session_after", args: []string{"replay"}, stdin: `{"phase":"after","call":"c1","tool":"read","output":"x"}` + "\n", wantCode: exitUsage, wantErr: `line 1: "after" events need a non-empty "session"`},
		{name: "line_over_the_limit", args: []string{"replay"}, stdin: before + `{"phase":"after","session":"s1","call":"c1","tool":"read","output":"` + strings.Repeat("x", maxLine) + `"}` + "\n",
			wantCode: exitUsage, wantOut: "{\"action\":\"none\",\"message\":\"\",\"appended\":\"\"}\n", wantErr: "harnesskit loopguard replay: line 2 exceeds 16 MiB, the limit of one input line\n"},
		{name: "unknown_phase", args: []string{"replay"}, stdin: `{"phase":"during","session":"s1"}` + "\n", wantCode: exitUsage, wantErr: `unknown "phase"`},
		{name: "missing_tool", args: []string{"replay"}, stdin: `{"phase":"before","session":"s1","call":"c1"}` + "\n", wantCode: exitUsage, wantErr: `needs "tool"`},
		{name: "missing_message_id", args: []string{"replay"}, stdin: `{"phase":"user_message","session":"s1"}` + "\n", wantCode: exitUsage, wantErr: `needs "message"`},
		{name: "bad_output_string", args: []string{"replay"}, stdin: `{"phase":"after","session":"s1","call":"c1","tool":"read","output":"\x"}` + "\n", wantCode: exitUsage,
			wantErr: `line 1, column 70: expected an escape such as \n, \", \\ or \u00e9 after the backslash, found 'x'` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), append([]string{"loopguard"}, tc.args...), strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, errb.String())
			}
			if out.String() != tc.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tc.wantOut)
			}
			if !strings.Contains(errb.String(), tc.wantErr) || (tc.wantErr == "" && errb.Len() > 0) {
				t.Errorf("stderr %q, want it to contain %q", errb.String(), tc.wantErr)
			}
		})
	}
}

// FuzzLoopguardDecode: any line either decodes or is refused with a message that names
// line 1 and a column, and never passes the JSON decoder's own wording through.
func FuzzLoopguardDecode(f *testing.F) {
	for _, s := range []string{
		`{"phase":"before","session":"s1","call":"c1","tool":"read","args":{"filePath":"a.ts"}}`,
		`{"phase":"after","session":"s1","call":"c1","tool":"read","output":{"files":[1,2]}}`,
		`phase=before`, `{"phase" "before"}`, `{"phase":"before"`, `{"phase":"end_turn"} {}`, `{"session":7}`,
		`{"external":"no"}`, `["before"]`, `{"arguments":{}}`, `{"output":"\x"}`, `{"output":"\u12"}`, "{\"a\x01\":1}",
		`{"phase":tru}`, `{"phase":-}`, `{"args":[1,]}`, `{,}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		_, err := loopguardDecode(1, line)
		if err == nil {
			return
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "line 1, column ") && !strings.HasPrefix(msg, "line 1: ") {
			t.Fatalf("%q: error %q does not name the line", line, msg)
		}
		for _, raw := range []string{"json:", "invalid character", "looking for beginning", "unexpected end of JSON"} {
			if strings.Contains(msg, raw) && !strings.Contains(string(line), raw) {
				t.Fatalf("%q: error %q passes the decoder's wording through", line, msg)
			}
		}
	})
}
