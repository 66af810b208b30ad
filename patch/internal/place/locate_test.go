package place

import (
	"errors"
	"fmt"
	"maps"
	"slices"
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

// propLocateSound: for chunks cut from a file of look-alike and distinct lines (one line of each replaced,
// some context lines drifted or invented), Locate either refuses with an [*Error] of a known
// kind and a message, or returns placements that are sorted and do not overlap, whose edits
// consume exactly their windows, and whose reports pair every removed line with a file line
// in the window that it equals at a ladder level; the file lines removed are those paired.
func propLocateSound(t *rapid.T, outcomes map[string]int) {
	lines := rapid.SliceOfN(rapid.SampledFrom(lookalikes), 1, 30).Draw(t, "file")
	for i := range lines {
		if rapid.IntRange(0, 2).Draw(t, "distinct") == 0 {
			lines[i] = fmt.Sprint("stmt ", i) // a line the file has once
		}
	}
	var chunks []Chunk
	for k := rapid.IntRange(1, 3).Draw(t, "chunks"); k > 0; k-- {
		lo := rapid.IntRange(0, len(lines)-1).Draw(t, "from")
		hi := rapid.IntRange(lo+1, min(lo+6, len(lines))).Draw(t, "to")
		rm := rapid.IntRange(lo, hi-1).Draw(t, "removed")
		var ch Chunk
		for i := lo; i < hi; i++ {
			text := lines[i]
			switch rapid.IntRange(0, 19).Draw(t, "drift") {
			case 0:
				text = rapid.SampledFrom(lookalikes).Draw(t, "drifted")
			case 1:
				ch.Lines = append(ch.Lines, Line{Op: Context, Text: "invented"})
			}
			if i == rm {
				ch.Lines = append(ch.Lines, Line{Op: Remove, Text: text}, Line{Op: Insert, Text: fmt.Sprint("new ", k)})
				continue
			}
			ch.Lines = append(ch.Lines, Line{Op: Context, Text: text})
		}
		chunks = append(chunks, ch)
	}
	cfg := testConfig()
	cfg.Codex = rapid.Bool().Draw(t, "codex")
	places, reps, err := New(&cfg, "f", 1, lines, false).Locate(chunks)
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) || pe.Kind < KindNotFound || pe.Kind > KindIO || pe.Msg == "" {
			t.Fatalf("refusal %#v is not an *Error of a known kind with a message", err)
		}
		outcomes["refused: "+pe.Kind.String()]++
		return
	}
	if len(reps) != len(chunks) {
		t.Fatalf("%d reports for %d chunks", len(reps), len(chunks))
	}
	removed := map[int]bool{}
	end := 0
	for _, p := range places {
		if p.Start < end {
			t.Fatalf("placement at %d overlaps or precedes the one ending at %d", p.Start, end)
		}
		end = p.End
		consumed := 0
		for _, e := range p.Edits {
			if e.Op != Insert {
				consumed++
			}
		}
		if consumed != p.End-p.Start {
			t.Fatalf("placement [%d, %d) consumes %d file lines", p.Start, p.End, consumed)
		}
		pos := p.Start
		for _, e := range p.Edits {
			if e.Op == Remove {
				removed[pos] = true
			}
			if e.Op != Insert {
				pos++
			}
		}
	}
	paired := map[int]bool{}
	for i, r := range reps {
		outcomes["placed: "+string(r.Strategy)]++
		if r.Strategy == StrategyAlreadyApplied {
			t.Fatalf("chunk %d reported applied already: its new line is in no file", i+1)
		}
		var old []Line
		for _, l := range chunks[i].Lines {
			if l.Op != Insert {
				old = append(old, l)
			}
		}
		if len(r.Pairing) != len(old) {
			t.Fatalf("chunk %d: pairing %v for %d old lines", i+1, r.Pairing, len(old))
		}
		for j, l := range old {
			q := r.Pairing[j] - 1
			if l.Op != Remove || r.BlankRetry && j == len(old)-1 && q == -1 {
				continue // a context line, or the trailing blank Codex's retry dropped
			}
			if q < 0 || q >= len(lines) || !slices.ContainsFunc([]Level{LevelExact, LevelTrimEnd, LevelUnicode, LevelUnicodeTrimEnd, LevelTrim, LevelUnicodeTrim},
				func(lv Level) bool { return Normalize(lv, l.Text) == Normalize(lv, lines[q]) }) {
				t.Fatalf("chunk %d: removed line %q paired with file line %d", i+1, l.Text, q+1)
			}
			paired[q] = true
		}
	}
	if !maps.Equal(removed, paired) {
		t.Fatalf("the placements remove file lines %v, the reports pair removed lines with %v", removed, paired)
	}
}

func TestLocateProperties(t *testing.T) {
	t.Run("placements_remove_only_paired_equal_lines", func(t *testing.T) {
		// outcomes counts the chunks placed by strategy and the refusals by kind, so that a
		// generator that stopped producing either is noticed.
		outcomes := map[string]int{}
		rapid.Check(t, func(t *rapid.T) { propLocateSound(t, outcomes) })
		t.Logf("outcomes: %v", outcomes)
		if outcomes["placed: exact"] == 0 || outcomes["refused: ambiguous"] == 0 || outcomes["refused: not_found"] == 0 {
			t.Errorf("the generator no longer draws exact placements, ambiguities and misses: %v", outcomes)
		}
	})
}

func TestAmendmentProperties(t *testing.T) {
	t.Run("P20_bounded_work", rapid.MakeCheck(propBoundedWork))
}
