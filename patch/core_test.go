package patch

import (
	"errors"
	"reflect"
	"testing"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// coreStrategies pairs each strategy of the face with the core's of the same meaning.
var coreStrategies = []struct {
	face Strategy
	core place.Strategy
}{
	{StrategyExact, place.StrategyExact}, {StrategyTrimEnd, place.StrategyTrimEnd},
	{StrategyUnicode, place.StrategyUnicode}, {StrategyUnicodeTrimEnd, place.StrategyUnicodeTrimEnd},
	{StrategyTrim, place.StrategyTrim}, {StrategyUnicodeTrim, place.StrategyUnicodeTrim},
	{StrategyAppend, place.StrategyAppend}, {StrategyAnchor, place.StrategyAnchor},
	{StrategyPrefixSuffix, place.StrategyPrefixSuffix}, {StrategyLCS, place.StrategyLCS},
	{StrategyStaleEdges, place.StrategyStaleEdges}, {StrategyLineNumbers, place.StrategyLineNumbers},
	{StrategyAlreadyApplied, place.StrategyAlreadyApplied},
}

// TestCoreBoundary checks the conversions of core.go: the core's kinds, strategies, levels and
// ops mean what the face's of the same name mean, and an error crosses with every field.
func TestCoreBoundary(t *testing.T) {
	t.Run("strategies", func(t *testing.T) {
		for _, tc := range coreStrategies {
			if tc.face != Strategy(tc.core) {
				t.Errorf("face %q, core %q", tc.face, tc.core)
			}
		}
	})
	t.Run("kinds", func(t *testing.T) {
		for k := place.KindNotFound; k <= place.KindIO; k++ {
			if got := faceKinds[k]; got.String() != k.String() {
				t.Errorf("core kind %s maps to %s", k, got)
			}
		}
	})
	t.Run("levels_and_ops", func(t *testing.T) {
		for l := LevelExact; l <= LevelUnicodeTrim+1; l++ {
			if l.String() != place.Level(l).String() {
				t.Errorf("level %d: face %s, core %s", l, l, place.Level(l))
			}
		}
		for _, op := range []Op{Context, Insert, Remove} {
			if got := coreLines([]Line{{Op: op}})[0].Op; byte(got) != byte(op) || !(got == place.Context || got == place.Insert || got == place.Remove) {
				t.Errorf("op %q crosses as %q", op, got)
			}
		}
	})
	t.Run("reports", func(t *testing.T) {
		in := place.ChunkReport{Section: 1, Chunk: 2, Path: "p", Strategy: place.StrategyLCS, AnchorLevel: place.LevelTrim,
			Start: 3, Len: 4, Removed: 5, Added: 6, BlankRetry: true, Notes: []string{"n"}, Pairing: []int{7}}
		want := ChunkReport{Section: 1, Chunk: 2, Path: "p", Strategy: StrategyLCS, AnchorLevel: LevelTrim,
			Start: 3, Len: 4, Removed: 5, Added: 6, BlankRetry: true, Notes: []string{"n"}, Pairing: []int{7}}
		if got := faceReport(in); !reflect.DeepEqual(got, want) {
			t.Errorf("crossed as %+v, want %+v", got, want)
		}
		// A field added to one report and not the other would not cross.
		if f, c := reflect.TypeFor[ChunkReport]().NumField(), reflect.TypeFor[place.ChunkReport]().NumField(); f != c {
			t.Errorf("the face's report has %d fields, the core's %d", f, c)
		}
	})
	t.Run("errors", func(t *testing.T) {
		cause := errors.New("cause")
		in := &place.Error{Kind: place.KindAmbiguous, Path: "a.go", Line: 3, Section: 2, Chunk: 1, FileLine: 9,
			Candidates: []int{9, 20}, Msg: "two places", Err: cause}
		var pe *Error
		if !errors.As(faceErr(in), &pe) {
			t.Fatalf("faceErr gave %T", faceErr(in))
		}
		if pe.Kind != KindAmbiguous || pe.Path != "a.go" || pe.Line != 3 || pe.Section != 2 || pe.Chunk != 1 ||
			pe.FileLine != 9 || len(pe.Candidates) != 2 || pe.Msg != "two places" ||
			!errors.Is(pe, ErrAmbiguous) || !errors.Is(pe, cause) {
			t.Errorf("crossed as %#v", pe)
		}
		if faceErr(nil) != nil {
			t.Error("nil crossed as an error")
		}
		if !errors.Is(faceErr(&place.Error{Kind: 99, Msg: "x"}), ErrIO) {
			t.Error("an unknown core kind is not KindIO")
		}
	})
}
