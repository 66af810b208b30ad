package patch

import (
	"errors"
	"testing"
)

// TestOneNormalizationFold runs the check with and without case folding, whatever the OS
// under the test: with folding, a pair that differs in normalisation and case is one file,
// while a pair that differs in case alone is left to the planner.
func TestOneNormalizationFold(t *testing.T) {
	const root = "/w/"
	tests := []struct {
		name     string
		a, b     string
		fold     bool
		conflict bool
	}{
		{name: "normalisation_only", a: "caf\u00e9", b: "cafe\u0301", conflict: true},
		{name: "normalisation_only_folding", a: "caf\u00e9", b: "cafe\u0301", fold: true, conflict: true},
		{name: "case_and_normalisation", a: "Caf\u00e9", b: "cafe\u0301", conflict: false},
		{name: "case_and_normalisation_folding", a: "Caf\u00e9", b: "cafe\u0301", fold: true, conflict: true},
		{name: "case_only_folding_left_to_the_planner", a: "Readme.md", b: "README.md", fold: true, conflict: false},
		{name: "case_only", a: "Readme.md", b: "README.md", conflict: false},
		{name: "same_bytes", a: "caf\u00e9", b: "caf\u00e9", fold: true, conflict: false},
		{name: "different_names", a: "caf\u00e9", b: "caf\u00e8", fold: true, conflict: false},
		{name: "kelvin_sign_is_not_k", a: "\u212a.txt", b: "k.txt", fold: true, conflict: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Patch{Hunks: []Hunk{{Kind: AddFile, Path: tc.a, Line: 2}, {Kind: AddFile, Path: tc.b, Line: 4}}}
			paths := map[string]resolved{
				tc.a: {raw: tc.a, abs: root + tc.a, real: root + tc.a},
				tc.b: {raw: tc.b, abs: root + tc.b, real: root + tc.b},
			}
			err := oneNormalization(p, paths, tc.fold)
			var e *Error
			if got := errors.As(err, &e); got != tc.conflict {
				t.Fatalf("oneNormalization(%q, %q, fold %v) = %v, want conflict %v", tc.a, tc.b, tc.fold, err, tc.conflict)
			}
			if tc.conflict && (e.Kind != KindPathConflict || e.Section != 2 || e.Path != tc.b || e.Line != 4) {
				t.Errorf("error = %+v, want a path conflict at section 2, line 4, path %q", e, tc.b)
			}
		})
	}
}
