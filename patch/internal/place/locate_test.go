package place

import (
	"testing"

	"pgregory.net/rapid"
)

// Property 20 (bounded time): on files and patches built to defeat the index (repeated lines
// and near misses), the line comparisons made while planning — counted independently of the
// budgets, in the index — stay within the three phases' limits (locating, rescuing,
// diagnosing) plus the few comparisons that are not budgeted.
func propBoundedWork(t *rapid.T) {
	alphabet := []string{"x", "x ", " x", "x\u00a0", "y"}
	n := rapid.IntRange(50, 3000).Draw(t, "file_lines")
	weights := rapid.SliceOfN(rapid.IntRange(0, len(alphabet)-1), n, n).Draw(t, "picks")
	lines := make([]string, n)
	for i, w := range weights {
		if w > 2 && rapid.IntRange(0, 9).Draw(t, "rare") > 0 {
			w = 0 // mostly one line, repeated
		}
		lines[i] = alphabet[w]
	}
	m := rapid.IntRange(1, 60).Draw(t, "chunk_lines")
	var body []Line
	for i := range m {
		op := Context
		if i == m/2 {
			op = Remove
		}
		body = append(body, Line{Op: op, Text: rapid.SampledFrom(alphabet).Draw(t, "pat")})
	}
	body = append(body, Line{Op: Insert, Text: "new"})
	limit := int64(rapid.IntRange(100, 200_000).Draw(t, "limit"))
	cfg := testConfig()
	cfg.WorkLimit = limit
	loc := New(&cfg, "f.txt", 1, lines, false)
	_, _, _ = loc.Locate([]Chunk{{Lines: body}})
	bound := 3*limit + 20_000 + 10*int64(m)
	if loc.ix.compares > bound {
		t.Fatalf("%d line comparisons with a work limit of %d (bound %d)", loc.ix.compares, limit, bound)
	}
}

func TestAmendmentProperties(t *testing.T) {
	t.Run("P20_bounded_work", rapid.MakeCheck(propBoundedWork))
}
