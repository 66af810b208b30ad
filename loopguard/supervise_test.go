package loopguard

import (
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The oracle: the plugin's expressions (as observed through TestParsePluginParity) written
// for Go's regexp, with JavaScript's
// whitespace and line terminators spelt out and case folding limited to ASCII (Go's (?i)
// would also fold the Kelvin sign and the long s, which JavaScript's /i does not).
const (
	jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`
	jsNoID  = `[^\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff})]`
	jsLine  = `[\n\r\x{2028}\x{2029}]`
)

var (
	oracleTaskID = regexp.MustCompile(`(?:[tT][aA][sS][kK]_[iI][dD]:` + jsSpace + `*|[tT][aA][sS][kK]` + jsSpace + `+[^\n(]*\()(` + jsNoID + `+)`)
	oracleState  = regexp.MustCompile(`(?:^|` + jsLine + `)[sS][tT][aA][tT][eE]:` + jsSpace + `*([A-Za-z0-9_-]+)`)
	oracleUnconf = regexp.MustCompile(`[sS][tT][aA][tT][eE]:` + jsSpace + `*[^\n]*\([uU][nN][cC][oO][nN][fF][iI][rR][mM][eE][dD]\)`)
	oracleUncert = regexp.MustCompile(`(?:^|` + jsLine + `)[sS][tT][aA][tT][uU][sS]_[uU][nN][cC][eE][rR][tT][aA][iI][nN]:` + jsSpace + `*[tT][rR][uU][eE](?:$|` + jsLine + `)`)
)

func oracleParse(out string) (id, state string) {
	if m := oracleTaskID.FindStringSubmatch(out); m != nil {
		id = m[1]
	}
	if m := oracleState.FindStringSubmatch(out); m != nil {
		state = strings.ToLower(m[1])
		if state == "busy" {
			state = "running"
		}
		if oracleUnconf.MatchString(out) || oracleUncert.MatchString(out) {
			state += ":uncertain"
		}
	}
	return id, state
}

func TestParseSupervision(t *testing.T) {
	tests := []struct {
		name, out, id, state string
	}{
		{name: "E41_plain", out: "task_id: t1\nstate: running", id: "t1", state: "running"},
		{name: "E43_busy", out: "task_id: t1\nstate: busy", id: "t1", state: "running"},
		{name: "E44_unconfirmed", out: "task_id: t1\nstate: running (unconfirmed)", id: "t1", state: "running:uncertain"},
		{name: "E44_unconfirmed_other_line", out: "state: running\nnote: (unconfirmed)", state: "running"},
		{name: "E45_status_uncertain", out: "task_id: t1\nstate: running\nstatus_uncertain: true\n", id: "t1", state: "running:uncertain"},
		{name: "E45_status_uncertain_false", out: "state: running\nstatus_uncertain: false", state: "running"},
		{name: "E45_status_uncertain_not_whole_line", out: "state: running\nstatus_uncertain: true!", state: "running"},
		{name: "E49_task_paren", out: "Task explorer (abc123) is running\nstate: running", id: "abc123", state: "running"},
		{name: "E52_case", out: "TASK_ID: T1\nSTATE: Running", id: "T1", state: "running"},
		{name: "task_id_no_space", out: "task_id:t7)", id: "t7"},
		{name: "task_id_empty_then_paren", out: "task_id: )\nTask x (t8)", id: "t8"},
		{name: "paren_needs_space_after_task", out: "Tasks (t1)"},
		{name: "paren_across_break_only_in_leading_space", out: "Task \n  foo (t2)", id: "t2"},
		{name: "paren_not_across_text_break", out: "Task foo\nbar (t3)"},
		{name: "paren_empty_id", out: "Task x () (t4)"},
		{name: "leftmost_wins", out: "Task a (first) task_id: second", id: "first"},
		{name: "state_must_start_line", out: "the state: running"},
		{name: "state_after_cr", out: "x\rstate: done", state: "done"},
		{name: "state_spans_lines", out: "state:\n\n  queued-2", state: "queued-2"},
		{name: "empty_state_spans_into_next_line", out: "state: \nstate: completed", state: "state"}, // as in JavaScript: \s* crosses the line break
		{name: "state_unicode_space", out: "state:\u3000running", state: "running"},
		{name: "nothing", out: "all good"},
		{name: "paren_line_is_newline_only", out: "Task x\ry\u2028z (t5)", id: "t5"},
		{name: "unconfirmed_after_leading_break", out: "state:\nrunning (unconfirmed)", state: "running:uncertain"},
		{name: "unconfirmed_line_is_newline_only", out: "state: running\r(unconfirmed)", state: "running:uncertain"},
		{name: "unconfirmed_not_past_newline", out: "state:\nrunning\n(unconfirmed)", state: "running"},
		{name: "unconfirmed_anywhere_in_line", out: "x state: y (unconfirmed)\nstate: running", state: "running:uncertain"},
		{name: "status_uncertain_trailing_space", out: "state: running\nstatus_uncertain: true \n", state: "running"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, state := readStatus(tc.out)
			if id != tc.id || state != tc.state {
				t.Errorf("parse(%q) = %q, %q; want %q, %q", tc.out, id, state, tc.id, tc.state)
			}
			if oid, ostate := oracleParse(tc.out); oid != id || ostate != state {
				t.Errorf("oracle(%q) = %q, %q; parser %q, %q", tc.out, oid, ostate, id, state)
			}
		})
	}
}

// FuzzParseSupervision compares the hand-written parsers with the regular-expression
// oracle on any text. Keep the seeds in sync with TestParseSupervision.
func FuzzParseSupervision(f *testing.F) {
	for _, s := range []string{
		"task_id: t1\nstate: running", "Task explorer (abc123) is running\nstate: busy", "STATE: Running (unconfirmed)",
		"state: running\nstatus_uncertain: true\n", "Task \n  foo (t2)", "task_id: )\nTask x (t8)", "x\u2028state:\u00a0done",
		"Tasks (t1)\r\nstate:\n\nq", "task_id:\ufeffid\u2029",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		id, state := readStatus(out)
		oid, ostate := oracleParse(out)
		if id != oid || state != ostate {
			t.Fatalf("parse(%q) = %q, %q; oracle %q, %q", out, id, state, oid, ostate)
		}
	})
}

// TestReadStatusProperty compares readStatus with the regular-expression oracle on texts
// built from the words the readers look for (parseTokens), where a random byte string
// rarely goes.
func TestReadStatusProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		out := strings.Join(rapid.SliceOfN(rapid.SampledFrom(parseTokens), 0, 40).Draw(t, "tokens"), "")
		id, state := readStatus(out)
		if oid, ostate := oracleParse(out); id != oid || state != ostate {
			t.Fatalf("readStatus(%q) = %q, %q; oracle %q, %q", out, id, state, oid, ostate)
		}
	})
}
