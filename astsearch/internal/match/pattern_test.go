package match

import (
	"testing"

	"pgregory.net/rapid"
)

func TestPreprocess(t *testing.T) {
	tests := []struct {
		name, in, want string
		expando        rune
	}{
		{name: "single", in: "$A + $B", want: "µA + µB", expando: 'µ'},
		{name: "double_and_triple", in: "f($$A, $$$ARGS, $$$)", want: "f(µµA, µµµARGS, µµµ)", expando: 'µ'},
		{name: "E13_lowercase_and_digits_stay", in: "$abc $1 $ $$", want: "$abc $1 $ $$", expando: 'µ'},
		{name: "trailing_ellipsis", in: "f($$$", want: "f(µµµ", expando: 'µ'},
		{name: "underscore", in: "$_", want: "µ_", expando: 'µ'},
		{name: "as_is_language", in: "$A", want: "$A", expando: '$'},
		{name: "E15_css_underscore", in: "$A", want: "_A", expando: '_'},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Preprocess(tc.in, tc.expando); got != tc.want {
				t.Errorf("Preprocess(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestExtractMeta(t *testing.T) {
	tests := []struct {
		name, in string
		kind     MetaKind
		mvName   string
		named    bool
	}{
		{name: "capture", in: "$A", kind: Capture, mvName: "A", named: true},
		{name: "capture_digits", in: "$A1_B", kind: Capture, mvName: "A1_B", named: true},
		{name: "unnamed_capture", in: "$$A", kind: Capture, mvName: "A"},
		{name: "dropped", in: "$_", kind: Dropped, named: true},
		{name: "dropped_named", in: "$_X", kind: Dropped, named: true},
		{name: "ellipsis", in: "$$$", kind: Multiple},
		{name: "ellipsis_dropped", in: "$$$_X", kind: Multiple},
		{name: "multi_capture", in: "$$$ARGS", kind: MultiCapture, mvName: "ARGS"},
		{name: "E13_lower", in: "$abc", kind: NotMeta},
		{name: "E13_digit_first", in: "$1", kind: NotMeta},
		{name: "E13_lone", in: "$", kind: NotMeta},
		{name: "E13_double_lone", in: "$$", kind: NotMeta},
		{name: "four_dollars", in: "$$$$A", kind: NotMeta},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, n, named := ExtractMeta(tc.in, '$')
			if k != tc.kind || n != tc.mvName || k != NotMeta && (k == Capture || k == Dropped) && named != tc.named {
				t.Errorf("ExtractMeta(%q) = %v %q %v, want %v %q %v", tc.in, k, n, named, tc.kind, tc.mvName, tc.named)
			}
		})
	}
}

// TestPreprocessExtractRoundTrip: a metavariable written with '$' and then preprocessed is
// recognised with the expando exactly as the original is with '$'.
func TestPreprocessExtractRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dollars := rapid.IntRange(1, 3).Draw(t, "dollars")
		name := rapid.StringMatching(`[A-Z_][A-Z0-9_]{0,4}`).Draw(t, "name")
		src := ""
		for range dollars {
			src += "$"
		}
		src += name
		k1, n1, m1 := ExtractMeta(src, '$')
		k2, n2, m2 := ExtractMeta(Preprocess(src, 'µ'), 'µ')
		if k1 != k2 || n1 != n2 || m1 != m2 {
			t.Fatalf("%q: with $ %v %q %v, preprocessed %v %q %v", src, k1, n1, m1, k2, n2, m2)
		}
	})
}
