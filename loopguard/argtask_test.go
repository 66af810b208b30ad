package loopguard

import (
	"strings"
	"testing"
)

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
			if got := argTaskID([]byte(tc.args)); got != tc.want {
				t.Errorf("argTaskID(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

func TestKeep(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct{ name, in, want string }{
		{name: "short_kept_whole", in: "bg_7f3a9c", want: "bg_7f3a9c"},
		{name: "exactly_the_limit", in: long[:maxKept], want: long[:maxKept]},
		{name: "cut_to_the_limit", in: long, want: long[:maxKept]},
		{name: "cut_at_a_character_boundary", in: long[:maxKept-1] + "é" + "x", want: long[:maxKept-1]},
		{name: "four_byte_character_across_the_limit", in: long[:maxKept-2] + "😀", want: long[:maxKept-2]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := keep(tc.in)
			if got != tc.want {
				t.Fatalf("keep(%d bytes) = %d bytes %q, want %d bytes", len(tc.in), len(got), got, len(tc.want))
			}
			if len(got) > 0 && len(tc.in) > 0 && &[]byte(got)[0] == &[]byte(tc.in)[0] {
				t.Fatal("keep returned memory shared with its argument")
			}
		})
	}
}
