package format_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/harnesskit/harnesskit/format"
	"pgregory.net/rapid"
)

// TestUnifiedGolden pins the diff text for a small change (the format diff(1) prints).
func TestUnifiedGolden(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	after := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl"
	want := `--- a/x.txt
+++ b/x.txt
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -9,3 +9,4 @@
 i
 j
 k
+l
\ No newline at end of file
`
	if got := format.Unified("x.txt", []byte(before), []byte(after)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := format.Unified("x.txt", []byte(before), []byte(before)); got != "" {
		t.Errorf("equal inputs: %q", got)
	}
}

// lines draws a text from a small alphabet of lines, so that diffs have both matches and
// changes, with or without a final newline.
func lines(t *rapid.T, label string) string {
	ls := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "c", "", "  d", "func f() {", "}"}), 0, 30).Draw(t, label)
	s := strings.Join(ls, "\n")
	if len(ls) > 0 && rapid.Bool().Draw(t, label+" final newline") {
		s += "\n"
	}
	return s
}

// diffRoundTrip is the property: the diff applied to before gives after, strictly always,
// and with the patch package whenever a Codex patch can carry the change.
func diffRoundTrip(t *rapid.T) {
	before, after := lines(t, "before"), lines(t, "after")
	d := format.Unified("f.txt", []byte(before), []byte(after))
	got, err := applyUnified([]byte(before), d)
	if err != nil || string(got) != after {
		t.Fatalf("strict apply: err %v, got %q, want %q\n%s", err, got, after, d)
	}
	if d != "" && patchExpressible([]byte(before), []byte(after)) {
		if got := applyWithPatch(t, []byte(before), d); string(got) != after {
			t.Fatalf("patch apply: got %q, want %q\n%s", got, after, d)
		}
	}
}

func TestDiffRoundTrip(t *testing.T) {
	t.Run("p", rapid.MakeCheck(diffRoundTrip))
}

// FuzzDiffRoundTrip runs the same property under go test -fuzz.
func FuzzDiffRoundTrip(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(diffRoundTrip))
}

// FuzzConfig: any input either fails with ErrConfig-wrapped errors or reads into a
// configuration that survives writing and reading back. Seeds follow TestConfigJSON.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{`null`, `false`, `true`, `{"prettier": {"disabled": true}}`,
		`{"deno": {"command": ["deno", "fmt", "$FILE"], "extensions": [".md"]}}`,
		`{"auto": true, "shfmt": {"timeout": "2s", "priority": 5, "mode": "inplace"}, "chain": {".ts": ["prettier"]}}`,
		`{"shfmt": {"timeout": 1500}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c format.Config
		if json.Unmarshal(data, &c) != nil {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("marshal %#v: %v", c, err)
		}
		var again format.Config
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("re-reading %s: %v", b, err)
		}
		if diff := cmp.Diff(c, again); diff != "" {
			t.Fatalf("round trip through %s:\n%s", b, diff)
		}
	})
}
