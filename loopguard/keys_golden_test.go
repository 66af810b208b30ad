package loopguard

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// keyCases are call and output fingerprints pinned byte for byte in testdata/keys.golden:
// a change to the canonicaliser or the hashing that changes any stored key shows up here,
// even when it keeps every behaviour test green.
var keyCases = []struct {
	name, tool string
	args       string // "" = absent
	out        Output
}{
	{name: "typical_unsorted", tool: "read", args: `{"filePath":"/home/dev/project/src/components/forms/CheckoutForm.tsx","offset":120,"limit":200,"options":{"lineNumbers":true,"encoding":"utf-8"},"reason":"inspect the submit handler code path now ok"}`, out: TextOutput("line 1\nline 2\n")},
	{name: "already_canonical", tool: "grep", args: `{"include":"*.go","path":"src","pattern":"func [A-Z]\\w+"}`, out: TextOutput("")},
	{name: "upper_case_tool", tool: "Read", args: `{"filePath":"a.ts"}`, out: TextOutput("a")},
	{name: "E14_absent_args", tool: "bash", args: ``, out: TextOutput("Linux\n")},
	{name: "whitespace", tool: "read", args: " { \"b\" : [ 1 , 2 ] ,\n\t\"a\" : { } } ", out: TextOutput(" ")},
	{name: "numbers", tool: "edit", args: `[0,-0,1,-1,999999,1000000,-999999,1.0,1e0,0.5,1e21,1e-7,123456789,-2.5,10E-1,0.000001]`, out: TextOutput("ok")},
	{name: "escapes_canonical", tool: "edit", args: `{"newString":"line\n\t\"q\" \\ \b\f\r \u0001\u001f \u2028\u2029"}`, out: TextOutput("x")},
	{name: "escapes_non_canonical", tool: "edit", args: `{"s":"\/\u0041\u00e9\ud83d\ude00\u0001\u001F\u2028"}`, out: TextOutput("x")},
	{name: "unicode_raw", tool: "read", args: "{\"é\":\"ü😀\u2028\",\"a\":\"\u2029\"}", out: TextOutput("é😀\u2028")},
	{name: "invalid_utf8", tool: "read", args: "{\"a\xff\":\"b\xfe\xc3\"}", out: TextOutput("a\xffb")},
	{name: "lone_surrogates", tool: "read", args: `["\ud800","\udc00x","\ud800\u0041"]`, out: TextOutput("y")},
	{name: "escaped_keys_sort", tool: "read", args: `{"\u0062":1,"a\"":2,"a":3,"é":4,"Z":5,"a\u0000":6}`, out: TextOutput("z")},
	{name: "duplicate_keys", tool: "read", args: `{"a":1,"b":{"y":1,"x":2,"y":3},"a":2}`, out: TextOutput("d")},
	{name: "nested", tool: "glob", args: `{"z":{"y":[{"b":1,"a":[]}],"x":{}},"a":true,"n":null,"f":false}`, out: TextOutput("n")},
	{name: "E58_invalid_raw", tool: "read", args: `{"a":`, out: TextOutput("r")},
	{name: "trailing_data_raw", tool: "read", args: `{} {}`, out: TextOutput("r")},
	{name: "out_of_range_raw", tool: "read", args: `[1e400]`, out: TextOutput("r")},
	{name: "scalar_string_args", tool: "read", args: `"a.ts"`, out: TextOutput("s")},
	{name: "value_string", tool: "read", args: `{}`, out: ValueOutput([]byte(`"a\u0041 b"`))},
	{name: "value_object", tool: "read", args: `{}`, out: ValueOutput([]byte(`{"b":1, "a":[1.0,"x"]}`))},
	{name: "value_null", tool: "read", args: `{}`, out: ValueOutput(nil)},
	{name: "value_invalid", tool: "read", args: `{}`, out: ValueOutput([]byte(`{"a"`))},
	{name: "text_64KiB", tool: "read", args: `{}`, out: TextOutput(strings.Repeat("0123456789abcdef", 4<<10))},
	{name: "text_100KiB_streamed", tool: "read", args: `{}`, out: TextOutput(strings.Repeat("x\n", 50<<10))},
}

// TestKeysGolden pins the call and output keys. Run with -update only when a change of
// identity is intended (it resets every stored streak of a running host).
func TestKeysGolden(t *testing.T) {
	var b strings.Builder
	for _, tc := range keyCases {
		var args []byte
		if tc.args != "" {
			args = []byte(tc.args)
		}
		tool := strings.ToLower(tc.tool)
		ck, ok := callKey(tool, args), outputKey(tool, tc.out)
		fmt.Fprintf(&b, "%s call %s\n%s output %s\n", tc.name, hex.EncodeToString(ck[:]), tc.name, hex.EncodeToString(ok[:]))
	}
	path := filepath.Join("testdata", "keys.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./loopguard -run TestKeysGolden -update to create it)", err)
	}
	gotLines, wantLines := strings.Split(b.String(), "\n"), strings.Split(string(want), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("%d key lines, golden has %d", len(gotLines), len(wantLines))
	}
	for i := range gotLines {
		if gotLines[i] != wantLines[i] {
			t.Errorf("key changed:\n got  %s\n want %s", gotLines[i], wantLines[i])
		}
	}
}
