package loopguard_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/loopguard"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "E14_absent", in: "", want: "undefined"},
		{name: "E14_null", in: "null", want: "null"},
		{name: "E14_empty_object", in: "{}", want: "{}"},
		{name: "E12_sorted_keys", in: `{"b":2,"a":1}`, want: `{"a":1,"b":2}`},
		{name: "E12_nested_sorted", in: `{"z":{"y":[{"b":1,"a":[]}],"x":{}},"a":true}`, want: `{"a":true,"z":{"x":{},"y":[{"a":[],"b":1}]}}`},
		{name: "whitespace_removed", in: " \t\r\n{ \"a\" :\n[ 1 , 2 ] } \n", want: `{"a":[1,2]}`},
		{name: "E59_one_and_one_point_zero", in: `[1,1.0,1e0,10E-1,-0,0.0,-0.0]`, want: `[1,1,1,1,0,0,0]`},
		{name: "E59_string_one_differs", in: `"1"`, want: `"1"`},
		{name: "float_formatting", in: `[0.1,1e21,123456789,1e-7,-2.5]`, want: `[0.1,1e+21,1.23456789e+08,1e-07,-2.5]`},
		{name: "duplicate_keys_last_wins", in: `{"a":1,"b":0,"a":2}`, want: `{"a":2,"b":0}`},
		{name: "keys_sorted_by_decoded_bytes", in: `{"\u0062":1,"a\"":2,"a":3,"é":4,"Z":5}`, want: `{"Z":5,"a":3,"a\"":2,"b":1,"é":4}`},
		{name: "escapes_normalised", in: `"\u0041\/\n\u0001\u2028<>&\ud83d\ude00"`, want: `"A/\n\u0001\u2028<>&😀"`},
		{name: "short_escapes_kept", in: `"\b\f\n\r\t\"\\"`, want: `"\b\f\n\r\t\"\\"`},
		{name: "lone_surrogate_replaced", in: `"\ud800x"`, want: `"` + "\uFFFD" + `x"`},
		{name: "invalid_utf8_replaced", in: "\"a\xffb\"", want: "\"a\uFFFDb\""},
		{name: "literals", in: `[true,false,null]`, want: `[true,false,null]`},
		{name: "E58_truncated_object_raw", in: `{"a":`, want: `raw:{"a":`},
		{name: "trailing_data_raw", in: `{} {}`, want: `raw:{} {}`},
		{name: "whitespace_only_raw", in: `  `, want: `raw:  `},
		{name: "number_out_of_range_raw", in: `[1e400]`, want: `raw:[1e400]`},
		{name: "leading_zero_raw", in: `01`, want: `raw:01`},
		{name: "bad_escape_raw", in: `"\x"`, want: `raw:"\x"`},
		{name: "control_char_raw", in: "\"a\nb\"", want: "raw:\"a\nb\""},
		{name: "trailing_comma_raw", in: `[1,]`, want: `raw:[1,]`},
		{name: "single_quotes_raw", in: `{'a':1}`, want: `raw:{'a':1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in []byte
			if tc.in != "" {
				in = []byte(tc.in)
			}
			if got := string(loopguard.Canonical(nil, in)); got != tc.want {
				t.Errorf("Canonical(%q) = %q, want %q", tc.in, got, tc.want)
			}
			// Appending keeps what is already in dst.
			if got := string(loopguard.Canonical([]byte("read:"), in)); got != "read:"+tc.want {
				t.Errorf("Canonical with prefix = %q", got)
			}
		})
	}
}

func TestCanonicalDepthLimit(t *testing.T) {
	tests := []struct {
		name  string
		depth int
		raw   bool
	}{
		{name: "limit_minus_one", depth: 9999},
		{name: "limit", depth: 10000},
		{name: "limit_plus_one", depth: 10001, raw: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth)
			got := string(loopguard.Canonical(nil, []byte(in)))
			if strings.HasPrefix(got, "raw:") != tc.raw {
				t.Errorf("depth %d: raw = %t, want %t", tc.depth, !tc.raw, tc.raw)
			}
			var v any
			if (json.Unmarshal([]byte(in), &v) != nil) != tc.raw {
				t.Errorf("depth %d: encoding/json disagrees", tc.depth)
			}
		})
	}
}

// FuzzCanonical checks Canonical against encoding/json: undecodable input (by
// encoding/json's standard) becomes raw: plus the bytes; decodable input becomes valid
// JSON that decodes to the same value, and canonicalising it again changes nothing. Keep
// the seeds in sync with TestCanonical and ExampleCanonical.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `{"b":2,"a":1}`, `{"filePath":"a.ts"}`, `{"z":{"y":[{"b":1,"a":[]}],"x":{}},"a":true}`,
		`[1,1.0,1e0,-0]`, `{"a":1,"a":2}`, `"\ud800x"`, "\"a\xffb\"", `{"a":`, `[1e400]`, `"\u2028<>&"`, ` [ 1 , "x" ] `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := loopguard.Canonical(nil, data)
		if len(data) == 0 {
			if string(got) != "undefined" {
				t.Fatalf("empty input gave %q", got)
			}
			return
		}
		var want any
		if err := json.Unmarshal(data, &want); err != nil {
			if string(got) != "raw:"+string(data) {
				t.Fatalf("undecodable %q gave %q (encoding/json: %v)", data, got, err)
			}
			return
		}
		var back any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("Canonical(%q) = %q, which is not JSON: %v", data, got, err)
		}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("Canonical(%q) = %q decodes to %#v, want %#v", data, got, back, want)
		}
		if again := loopguard.Canonical(nil, got); string(again) != string(got) {
			t.Fatalf("not idempotent: %q → %q → %q", data, got, again)
		}
	})
}
