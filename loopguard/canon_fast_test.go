package loopguard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// refCanonical is spec L3 built from encoding/json alone: decode into an interface value,
// then print it with sorted keys, strings escaped by encoding/json without HTML escaping,
// and numbers by strconv.FormatFloat(f, 'g', -1, 64). It is slow and obviously right,
// which is what the canonicaliser's fast and slow paths are compared with.
func refCanonical(data []byte) string {
	if len(data) == 0 {
		return "undefined"
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return "raw:" + string(data)
	}
	var b bytes.Buffer
	refWrite(&b, v)
	return b.String()
}

func refWrite(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		if v == 0 {
			v = 0 // -0 prints as 0
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case string:
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		enc.Encode(v) // a string always encodes
		b.Truncate(b.Len() - 1)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			refWrite(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteByte(',')
			}
			refWrite(b, k)
			b.WriteByte(':')
			refWrite(b, v[k])
		}
		b.WriteByte('}')
	}
}

// checkFastSlow fails unless the fast canonicaliser (verbatim copies), the slow one
// (every token decoded and re-printed) and refCanonical agree byte for byte on data, and
// the call keys built by both paths are equal.
func checkFastSlow(t interface{ Fatalf(string, ...any) }, data []byte) {
	fast := string(Canonical([]byte("read:"), data))
	slow := string((&canonParser{slow: true}).canonical([]byte("read:"), data))
	if fast != slow {
		t.Fatalf("canonical(%q): fast path %q, slow path %q", data, fast, slow)
	}
	if want := "read:" + refCanonical(data); fast != want {
		t.Fatalf("canonical(%q) = %q, encoding/json reference %q", data, fast, want)
	}
	fastSc, slowSc := scratch{}, scratch{p: canonParser{slow: true}}
	if fk, sk := fastSc.callKey("read", data), slowSc.callKey("read", data); fk != sk {
		t.Fatalf("call key of %q: fast %x, slow %x", data, fk, sk)
	}
}

func TestCanonicalFastSlow(t *testing.T) {
	tests := []struct{ name, in string }{
		{name: "typical_unsorted", in: keyCases[0].args},
		{name: "already_canonical", in: `{"a":[1,-2,"x"],"b":{"c":null}}`},
		{name: "E59_integer_forms", in: `[0,-0,7,-7,999999,-999999,1000000,-1000000,120,1.0,1e0,10E-1,100000,0.0]`},
		{name: "short_escapes_verbatim", in: `"a\"b\\c\b\f\n\r\t"`},
		{name: "control_escapes_lower_hex", in: `"\u0000\u0001\u001f\u000b\u007f"`},
		{name: "control_escapes_upper_hex", in: `"\u001F\u000B"`},
		{name: "backspace_as_unicode_escape", in: `"a\u0008"`},
		{name: "form_feed_as_unicode_escape", in: `"a\u000c"`},
		{name: "newline_as_unicode_escape", in: `"a\u000a"`},
		{name: "return_as_unicode_escape", in: `"a\u000d"`},
		{name: "tab_as_unicode_escape", in: `"a\u0009"`},
		{name: "separators_escaped_and_raw", in: "[\"\\u2028\\u2029\",\"\u2028\",\"\\u202A\",\"\\u202a\"]"},
		{name: "solidus_escape", in: `"a\/b"`},
		{name: "html_characters", in: `"<a href='x'>&amp;</a>\u003c"`},
		{name: "escaped_key_sorted_by_decoded_bytes", in: `{"a\"":1,"a":2,"a\u0000":3,"\u0061b":4}`},
		{name: "canonical_escape_in_key", in: `{"b\n":1,"b":2,"a\t":3}`},
		{name: "duplicate_keys", in: `{"a":1,"b":2,"a":3,"b":{"x":1,"x":2}}`},
		{name: "sorted_but_duplicate", in: `{"a":1,"a":2}`},
		{name: "invalid_utf8", in: "\"ok\xff\xc3(\""},
		{name: "raw_non_ascii", in: "{\"é\":\"ü😀\",\"e\":\"\uFFFD\"}"},
		{name: "lone_surrogate", in: `"\ud800\udbff\udfff\udc00"`},
		{name: "long_plain_string", in: `"` + strings.Repeat("abcdefgh", 40) + `"`},
		{name: "long_string_quote_at_word_edges", in: `"` + strings.Repeat("abcdefg\\\"", 9) + `"`},
		{name: "E58_truncated_string", in: `{"filePath":"src/a`},
		{name: "raw_control_character", in: "\"a\tb\""},
		{name: "bad_escape", in: `"\q"`},
		{name: "short_unicode_escape", in: `"\u00"`},
		{name: "number_leading_zero", in: `[01]`},
		{name: "number_out_of_range", in: `1e400`},
		{name: "wide_object_sorted", in: wideObject(20, func(i int) int { return i })},
		{name: "wide_object_reversed", in: wideObject(20, func(i int) int { return 19 - i })},
		{name: "wide_object_late_small_key", in: wideObject(17, func(i int) int { return (i + 1) % 17 })},
		{name: "wide_object_duplicates_across_limit", in: wideObject(24, func(i int) int { return i % 9 })},
		{name: "wide_object_duplicate_after_limit", in: wideObject(18, func(i int) int { return min(i, 16) })},
		{name: "wide_object_late_duplicate_of_early_key", in: wideObject(17, lateDuplicate)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkFastSlow(t, []byte(tc.in)) })
	}
}

// TestVerbatimIntegers checks the claim behind maxVerbatimDigits for every integer it
// covers, and that the next integer up is no longer printed as itself.
// wideObject returns an object of n members whose i-th key is k<key(i)>, with the
// member's index as its value, so that duplicate keys show which one was kept.
func wideObject(n int, key func(int) int) string {
	ms := make([]string, n)
	for i := range ms {
		ms[i] = `"k` + fmt.Sprintf("%02d", key(i)) + `":` + strconv.Itoa(i)
	}
	return "{" + strings.Join(ms, ",") + "}"
}

// lateDuplicate keys 17 members k00…k15 then k05 again: the duplicate arrives after the
// insertion limit and is not next to its twin in input order.
func lateDuplicate(i int) int {
	if i == 16 {
		return 5
	}
	return i
}

func TestVerbatimIntegers(t *testing.T) {
	limit := 1
	for range maxVerbatimDigits {
		limit *= 10
	}
	for n := -(limit - 1); n < limit; n++ {
		if got := strconv.FormatFloat(float64(n), 'g', -1, 64); got != strconv.Itoa(n) {
			t.Fatalf("FormatFloat(%d) = %q: integers of %d digits are not their own canonical form", n, got, maxVerbatimDigits)
		}
	}
	if got := strconv.FormatFloat(float64(limit), 'g', -1, 64); got == strconv.Itoa(limit) {
		t.Errorf("FormatFloat(%d) = %q: maxVerbatimDigits could be larger", limit, got)
	}
}

func TestVerbatimString(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		ok, escaped  bool
		wantEndDelta int // end - len(in) when ok
	}{
		{name: "plain", in: `"abc"`, ok: true},
		{name: "empty", in: `""`, ok: true},
		{name: "short_escapes", in: `"\"\\\b\f\n\r\t"`, ok: true, escaped: true},
		{name: "control_lower_hex", in: `"\u001f"`, ok: true, escaped: true},
		{name: "control_upper_hex", in: `"\u001F"`},
		{name: "newline_as_unicode_escape", in: `"\u000a"`},
		{name: "del_escape", in: `"\u007f"`},
		{name: "separator_escape", in: `"\u2028\u2029"`, ok: true, escaped: true},
		{name: "separator_raw", in: "\"\u2028\""},
		{name: "solidus_escape", in: `"\/"`},
		{name: "invalid_utf8", in: "\"\xff\""},
		{name: "raw_control", in: "\"\x01\""},
		{name: "unterminated", in: `"abc`},
		{name: "followed_by_more", in: `"a" , "b"`, ok: true, wantEndDelta: -6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := canonParser{src: []byte(tc.in)}
			end, escaped, ok := p.verbatimString()
			if ok != tc.ok || (ok && (escaped != tc.escaped || end != len(tc.in)+tc.wantEndDelta)) {
				t.Errorf("verbatimString(%q) = %d, %t, %t; want ok %t escaped %t end %d", tc.in, end, escaped, ok, tc.ok, tc.escaped, len(tc.in)+tc.wantEndDelta)
			}
		})
	}
}

func TestPlainRun(t *testing.T) {
	// Every position of every special byte inside and across 8-byte words.
	for _, special := range []byte{'"', '\\', 0x00, 0x1f, 0x80, 0xff} {
		for n := range 24 {
			for at := range n + 1 {
				s := bytes.Repeat([]byte{'a'}, n)
				want := n
				if at < n {
					s[at], want = special, at
				}
				if got := plainRun(s, 0); got != want {
					t.Fatalf("plainRun(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
	// Bytes around the boundaries are plain.
	plain := []byte{0x20, '!', '#', '[', ']', '~', 0x7f}
	if got := plainRun(bytes.Repeat(plain, 3), 0); got != 3*len(plain) {
		t.Errorf("plainRun(plain bytes) = %d, want %d", got, 3*len(plain))
	}
}

// jsonText draws a JSON text (or, sometimes, a near miss) whose spelling varies the way
// hosts and models vary it: key order, duplicate keys, spacing, every escape form, number
// spellings that are and are not canonical.
func jsonText() *rapid.Generator[string] {
	str := rapid.Custom(func(t *rapid.T) string {
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{
			"a", "b", "path", "é", "😀", "\u2028", "\u2029", `\u2028`, `\u2029`, `\u202a`,
			`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0001`, `\u001f`, `\u001F`, `\u000a`,
			`\u0041`, `\u00e9`, `\ud83d\ude00`, `\ud800`, "<", "&", " ", "\xff", "\x01",
			"abcdefgh", "0123456789abcdef",
		}), 0, 12).Draw(t, "parts")
		return `"` + strings.Join(parts, "") + `"`
	})
	num := rapid.SampledFrom([]string{
		"0", "-0", "1", "-1", "7", "120", "999999", "-999999", "1000000", "1234567", "1.0", "1.5",
		"0.1", "1e0", "1E2", "10E-1", "-0.0", "1e21", "1e-7", "123456789", "1e400", "01", "1.", "-",
	})
	var value *rapid.Generator[string]
	value = rapid.Deferred(func() *rapid.Generator[string] {
		return rapid.OneOf(
			str, num,
			rapid.SampledFrom([]string{"true", "false", "null", "tru", "nul"}),
			rapid.Custom(func(t *rapid.T) string {
				elems := rapid.SliceOfN(value, 0, 4).Draw(t, "elems")
				return "[" + strings.Join(elems, rapid.SampledFrom([]string{",", " , ", ",\n"}).Draw(t, "sep")) + "]"
			}),
			rapid.Custom(func(t *rapid.T) string {
				keys := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom([]string{`"a"`, `"b"`, `"c"`, `"filePath"`, `"a\u0000"`, `"\u0061"`}), str), 0, 5).Draw(t, "keys")
				ms := make([]string, len(keys))
				for i, k := range keys {
					ms[i] = k + rapid.SampledFrom([]string{":", " : "}).Draw(t, "colon") + value.Draw(t, "v")
				}
				return "{" + strings.Join(ms, ",") + "}"
			}),
		)
	})
	// Objects wider than maxInsertion, with scalar values and keys that often repeat.
	wide := rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(maxInsertion-2, 3*maxInsertion).Draw(t, "width")
		ms := make([]string, n)
		for i := range ms {
			ms[i] = `"k` + strconv.Itoa(rapid.IntRange(0, 2*maxInsertion).Draw(t, "key")) + `":` + strconv.Itoa(i)
		}
		return "{" + strings.Join(ms, ",") + "}"
	})
	return rapid.Custom(func(t *rapid.T) string {
		pad := rapid.SampledFrom([]string{"", " ", "\n\t"})
		return pad.Draw(t, "pre") + rapid.OneOf(value, wide).Draw(t, "value") + pad.Draw(t, "post")
	})
}

// TestCanonicalFastSlowProperty: for any drawn JSON text the fast path, the slow path
// and the encoding/json reference agree byte for byte, and so do the call keys.
func TestCanonicalFastSlowProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkFastSlow(t, []byte(jsonText().Draw(t, "args")))
	})
}

// FuzzCanonicalFastSlow is checkFastSlow on arbitrary bytes. Keep the seeds in sync with
// TestCanonicalFastSlow.
func FuzzCanonicalFastSlow(f *testing.F) {
	for _, s := range []string{
		``, keyCases[0].args, `[0,-0,999999,1000000,1.0]`, `"a\"b\\c\b\f\n\r\t\u0001\u001F\u2028"`,
		`{"a\"":1,"a":2,"a\u0000":3}`, `{"b\n":1,"b":2}`, `{"a":1,"a":2}`, "\"\xff\u2028\"", `"\ud800"`,
		`"` + strings.Repeat("abcdefg\\\"", 3) + `"`, `{"filePath":"src/a`, `[01]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastSlow(t, data) })
}
