package patch_test

import (
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

const partialBase = "package p\n\nfunc a() error {\n\tif err := load(); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\nfunc b() int {\n\tx := 1\n\treturn x\n}\n\nfunc c() string {\n\treturn \"c\"\n}\n"

// partialPatch changes a, b and c; its chunk 2 (b) is what a partial write left in the file.
var partialPatch = apText("*** Update File: p.go",
	"@@", " \tif err := load(); err != nil {", "-\t\treturn err", "+\t\treturn fmt.Errorf(\"a: %w\", err)", " \t}",
	"@@", " func b() int {", "-\tx := 1", "+\tx := 2", " \treturn x",
	"@@", " func c() string {", "-\treturn \"c\"", "+\treturn \"C\"", " }")

// TestPartlyApplied: a chunk already applied at its unique place is reported and left as it is,
// and the rest of the patch is applied, when everything places soundly.
func TestPartlyApplied(t *testing.T) {
	half := strings.Replace(partialBase, "\tx := 1\n", "\tx := 2\n", 1)
	whole := strings.NewReplacer("\t\treturn err\n", "\t\treturn fmt.Errorf(\"a: %w\", err)\n", "\tx := 1\n", "\tx := 2\n", "\treturn \"c\"\n", "\treturn \"C\"\n").Replace(partialBase)
	apRun(t, []apCase{
		{
			name:  "half_applied_applied_and_reported",
			files: map[string]string{"p.go": half},
			patch: partialPatch,
			want:  map[string]string{"p.go": whole},
			check: func(t *testing.T, res *patch.Result, err error) {
				apWantStrategies(patch.StrategyExact, patch.StrategyAlreadyApplied, patch.StrategyExact)(t, res, err)
				noteWith(2, "already applied", "file line 10")(t, res, err)
				if r := res.Report[1]; r.Start != 10 || r.Len != 3 || r.Added != 0 || r.Removed != 0 {
					t.Errorf("report of the applied chunk: %+v", r)
				}
			},
		},
		{
			name:  "all_applied_stays_already_applied",
			files: map[string]string{"p.go": whole},
			patch: partialPatch,
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 1: already applied", "chunk 2: already applied", "chunk 3: already applied"},
		},
		{
			// Chunk 1's change is found, but at c(), a near copy of its place below chunk 2's
			// window: out of the patch's order, so the place it was meant for is not known.
			name: "half_applied_at_near_copy_refused",
			files: map[string]string{"p.go": "package p\n\nfunc a() error {\n\tif err := load(); err != nil {\n\t\treturn errors.New(\"a\")\n\t}\n\treturn nil\n}\n\n" +
				"func b() int {\n\tx := 1\n\treturn x\n}\n\nfunc d() error {\n\tif err := load(); err != nil {\n\t\treturn fmt.Errorf(\"a: %w\", err)\n\t}\n\treturn nil\n}\n"},
			patch: apText("*** Update File: p.go",
				"@@", " \tif err := load(); err != nil {", "-\t\treturn err", "+\t\treturn fmt.Errorf(\"a: %w\", err)", " \t}",
				"@@", " func b() int {", "-\tx := 1", "+\tx := 2", " \treturn x"),
			kind: patch.KindAlreadyApplied,
			msg:  []string{"chunk 1: already applied at line 16", "chunk 2: not applied yet", "nothing was written"},
		},
		{
			// The context lines of a chunk that only adds lines are nowhere next to each other,
			// only with the added lines between them: the addition is made, the rest applied.
			name:  "half_applied_pure_addition_between_context_applied",
			files: map[string]string{"p.go": "a\nb\nNEW\nc\nd\ne\nf\n"},
			patch: apText("*** Update File: p.go", "@@", " b", "+NEW", " c", "@@", " e", "-f", "+F"),
			want:  map[string]string{"p.go": "a\nb\nNEW\nc\nd\ne\nF\n"},
			check: apWantStrategies(patch.StrategyAlreadyApplied, patch.StrategyExact),
		},
		{
			// Added lines with no context line after them: which side of "c" the model meant
			// them is not known; refused whole.
			name:  "half_applied_pure_addition_at_chunk_end_refused_whole",
			files: map[string]string{"p.go": "a\nb\nNEW\nc\nd\ne\nf\n"},
			patch: apText("*** Update File: p.go", "@@", " a", " b", "+NEW", "@@", " e", "-f", "+F"),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 1: already applied", "chunk 2: not applied yet"},
		},
		{
			// Added lines without a letter or a digit (a closing bracket) prove nothing.
			name:  "half_applied_pure_addition_of_punctuation_refused_whole",
			files: map[string]string{"p.go": "a\nb\n}\nc\nd\ne\nf\n"},
			patch: apText("*** Update File: p.go", "@@", " b", "+}", " c", "@@", " e", "-f", "+F"),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 1: already applied", "chunk 2: not applied yet"},
		},
		{
			// The rest places only by a rescue (its context drifted): in a file that holds part
			// of the change, drifted lines may be more of it; refused whole.
			name:  "half_applied_rest_by_rescue_refused_whole",
			files: map[string]string{"p.go": strings.Replace(half, "func c() string {", "func c() (string, error) {", 1)},
			patch: partialPatch,
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 2: already applied"},
		},
		{
			// A chunk whose old lines still match after it was applied (it removes one of two
			// equal lines) is not applied a second time around an applied chunk.
			name:  "half_applied_rest_matches_after_applied_refused_whole",
			files: map[string]string{"p.go": "x\nB\ny\nk\nk\n"},
			patch: apText("*** Update File: p.go", "@@", " x", "-b", "+B", " y", "@@", " k", "-k"),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"chunk 1: already applied at line 1", "chunk 2: not applied yet"},
		},
	})
}
