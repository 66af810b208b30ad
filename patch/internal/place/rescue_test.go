package place

import (
	"errors"
	"fmt"
	"testing"
)

// testConfig is the face's default configuration (patch.DefaultRescue, default mode).
func testConfig() Config {
	return Config{MaxTol: LevelUnicodeTrim, PrefixSuffix: true, LCS: true, StaleEdges: true,
		LCSMaxLines: 48, LCSMaxCands: 64, LCSThreshold: 0.70,
		Margin: func(m int) int { return max(1, (m+9)/10) }, WorkLimit: 4_000_000}
}

// testRescuer returns a rescuer for one chunk over file lines, with testConfig changed by
// the change functions.
func testRescuer(file []string, body []Line, change ...func(*Config)) *rescuer {
	cfg := testConfig()
	for _, c := range change {
		c(&cfg)
	}
	s := New(&cfg, "f", 1, file, false)
	return &rescuer{s: s, ch: Chunk{Lines: body}, body: chunkBody{lines: body}, budget: cfg.WorkLimit}
}

func TestInternalEdgeCases(t *testing.T) {
	t.Run("E44_lcs_direct", func(t *testing.T) {
		mk := func(file []string, body ...string) (*rescuer, *ChunkReport) {
			var ls []Line
			for _, b := range body {
				ls = append(ls, Line{Op: Op(b[0]), Text: b[1:]})
			}
			return testRescuer(file, ls), &ChunkReport{}
		}
		r, rep := mk([]string{"P", "Q", "x", "P", "Q"}, " P", "-Q", "+R")
		var pe *Error
		if _, ok, err := r.lcs(1, rep); ok || !errors.As(err, &pe) || pe.Kind != KindAmbiguous {
			t.Errorf("two equal 2-line windows: ok=%v err=%v, want Ambiguous", ok, err)
		}
		r, rep = mk([]string{"P", "z", "y"}, " P", "-Q", "+R")
		if _, ok, err := r.lcs(1, rep); ok || err != nil {
			t.Errorf("one edge only: ok=%v err=%v, want a miss", ok, err)
		}
		long := []string{}
		body := []string{}
		for i := 0; i < 49; i++ {
			long = append(long, fmt.Sprint("l", i))
			body = append(body, fmt.Sprint(" l", i))
		}
		r, rep = mk(long, append(body, "+x")...)
		if _, ok, err := r.lcs(1, rep); ok || err != nil {
			t.Errorf("49-line chunk: ok=%v err=%v, want a miss", ok, err)
		}
		r, rep = mk([]string{"A", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "Z"},
			" A", " b1", " b2", " b3", " b4", " b5", " b6", " b7", "-b8", "+c", " Z")
		if _, ok, err := r.lcs(1, rep); ok || err != nil {
			t.Errorf("bound below 70%%: ok=%v err=%v, want a miss", ok, err)
		}
	})
}

// Benchmarks of the rescues: each reports the work units spent per chunk (work/op).
func BenchmarkRescue(b *testing.B) {
	b.Run("prefix-suffix-worst", func(b *testing.B) {
		// The one-line left edge "{" occurs 10,000 times and every occurrence has 10,000
		// lines of span (5,000 stale lines allow 10,000) in which the right edge "}" never
		// appears, so the pair search stops at the work limit.
		file := make([]string, 0, 20_000)
		for i := 0; i < 10_000; i++ {
			file = append(file, "{")
		}
		for i := 0; i < 10_000; i++ {
			file = append(file, "x")
		}
		body := []Line{{Op: Context, Text: "{"}}
		for i := 0; i < 5000; i++ {
			body = append(body, Line{Op: Remove, Text: fmt.Sprint("stale ", i)})
		}
		body = append(body, Line{Op: Insert, Text: "fresh"}, Line{Op: Context, Text: "}"})
		var used int64
		b.ReportAllocs()
		for b.Loop() {
			r := testRescuer(file, body, func(c *Config) { c.LCS = false })
			if _, ok, err := r.run(1, &ChunkReport{}); ok || err != nil || !r.spent {
				b.Fatalf("ok=%v err=%v spent=%v, want a miss at the work limit", ok, err, r.spent)
			}
			used = r.used
		}
		b.ReportMetric(float64(used), "work/op")
	})
	b.Run("lcs-worst", func(b *testing.B) {
		// A 48-line chunk and 64 candidate windows that all pass the upper bound: each window
		// holds the chunk's lines with neighbours swapped, so no ladder level matches.
		var old []string
		for i := 0; i < 48; i++ {
			old = append(old, fmt.Sprint("line ", i))
		}
		var file []string
		for w := 0; w < 64; w++ {
			win := append([]string(nil), old...)
			for i := 1; i+2 < len(win); i += 4 {
				win[i], win[i+1] = win[i+1], win[i]
			}
			file = append(file, win...)
		}
		body := make([]Line, 0, 49)
		for i, s := range old {
			op := Context
			if i == 20 {
				op = Remove
			}
			body = append(body, Line{Op: op, Text: s})
		}
		body = append(body, Line{Op: Insert, Text: "added"})
		var used int64
		b.ReportAllocs()
		for b.Loop() {
			r := testRescuer(file, body, func(c *Config) { c.PrefixSuffix = false })
			_, _, _ = r.run(1, &ChunkReport{})
			used = r.used
		}
		b.ReportMetric(float64(used), "work/op")
	})
}
