package loopguard

import (
	"encoding/json"
	"strings"
	"testing"
)

// oracleArgTaskID is the task_id rule through encoding/json.
func oracleArgTaskID(args []byte) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	s, _ := m["task_id"].(string)
	return strings.TrimSpace(s)
}

func TestArgTaskID(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{name: "E48_trimmed", args: `{"task_id":" t9 "}`, want: "t9"},
		{name: "absent", args: ``},
		{name: "not_object", args: `"t1"`},
		{name: "empty_object", args: `{}`},
		{name: "number", args: `{"task_id":7}`},
		{name: "other_keys_skipped", args: ` { "a" : [1, {"task_id":"inner"}], "task_id" : "t2" , "z":null } `, want: "t2"},
		{name: "last_wins", args: `{"task_id":"t1","task_id":"t2"}`, want: "t2"},
		{name: "last_wins_non_string", args: `{"task_id":"t1","task_id":false}`},
		{name: "escaped_key", args: `{"task\u005fid":"t3"}`, want: "t3"},
		{name: "case_sensitive", args: `{"TASK_ID":"t4"}`},
		{name: "invalid_json", args: `{"task_id":"t5"`},
		{name: "trailing_data", args: `{"task_id":"t6"} x`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sc scratch
			if got := sc.argTaskID([]byte(tc.args)); got != tc.want {
				t.Errorf("argTaskID(%q) = %q, want %q", tc.args, got, tc.want)
			}
			if o := oracleArgTaskID([]byte(tc.args)); o != tc.want {
				t.Errorf("oracle(%q) = %q, want %q", tc.args, o, tc.want)
			}
		})
	}
}

// FuzzArgTaskID compares the task_id reader with encoding/json. Keep the seeds in sync
// with TestArgTaskID.
func FuzzArgTaskID(f *testing.F) {
	for _, s := range []string{`{"task_id":" t9 "}`, `{"a":[1,{"task_id":"x"}],"task_id":"t2"}`, `{"task_id":"t1","task_id":false}`, `{"task\u005fid":"t3"}`, `{"task_id":"t5"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		var sc scratch
		if got, want := sc.argTaskID(args), oracleArgTaskID(args); got != want {
			t.Fatalf("argTaskID(%q) = %q, encoding/json says %q", args, got, want)
		}
	})
}
