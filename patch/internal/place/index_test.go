package place

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// lookalikes are lines that differ only at some ladder levels: trailing and leading
// whitespace, a typographic dash or quote, a no-break space.
var lookalikes = []string{"x", "x ", " x", "x\u00a0", "\tx", "y", "a-b", "a\u2013b", "a - b", `"q"`, "\u201cq\u201d", ""}

// naivePositions is the test's own index: every start p ≥ start where each line of pat,
// normalised at l, equals the file line normalised at l.
func naivePositions(lines, pat []string, l Level, start int) []int {
	var out []int
	for p := max(start, 0); p+len(pat) <= len(lines); p++ {
		ok := true
		for i := range pat {
			if Normalize(l, pat[i]) != Normalize(l, lines[p+i]) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, p)
		}
	}
	return out
}

// propPositionsNaive: at every level, the index finds exactly the positions a naive scan
// finds, through the full index and through the exact index restricted to the patch's lines,
// and a match at one level is a match at every level looser on both counts (trim-end, then
// unicode-trim-end, then unicode-trim; trim-end, then trim).
func propPositionsNaive(t *rapid.T) {
	lines := rapid.SliceOfN(rapid.SampledFrom(lookalikes), 1, 40).Draw(t, "file")
	pat := rapid.SliceOfN(rapid.SampledFrom(lookalikes), 1, 4).Draw(t, "pattern")
	start := rapid.IntRange(-1, len(lines)).Draw(t, "start")
	restricted := rapid.Bool().Draw(t, "restricted")
	ix := newLineIndex(lines, false)
	if restricted {
		ix.restrictExact(pat)
	}
	for l := LevelExact; l <= LevelUnicodeTrim; l++ {
		w := workBudget{limit: 1 << 40}
		got := ix.positions(l, pat, start, 0, &w)
		want := naivePositions(lines, pat, l, start)
		if !slices.Equal(got, want) {
			t.Fatalf("level %s from %d: index %v, naive scan %v", l, start, got, want)
		}
		for _, p := range want {
			if !ix.matchesAt(l, pat, normAll(l, pat), p) {
				t.Fatalf("level %s: matchesAt(%d) is false at a position the scan found", l, p)
			}
		}
	}
	looser := map[Level][]Level{
		LevelExact:          {LevelTrimEnd, LevelUnicode},
		LevelTrimEnd:        {LevelUnicodeTrimEnd, LevelTrim},
		LevelUnicode:        {LevelUnicodeTrimEnd},
		LevelUnicodeTrimEnd: {LevelUnicodeTrim},
		LevelTrim:           {LevelUnicodeTrim},
	}
	for l, ls := range looser {
		for _, p := range naivePositions(lines, pat, l, 0) {
			for _, m := range ls {
				if !slices.Contains(naivePositions(lines, pat, m, 0), p) {
					t.Fatalf("a match at %s (line %d) is not one at the looser %s", l, p, m)
				}
			}
		}
	}
}

func TestIndexProperties(t *testing.T) {
	t.Run("positions_equal_a_naive_scan_at_every_level", rapid.MakeCheck(propPositionsNaive))
}
