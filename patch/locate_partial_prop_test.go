package patch

import (
	"context"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// propPartlyApplied: a patch part of which is already in the file (the model re-sends the
// whole patch after a partial write) is either refused with nothing written, or gives exactly
// what the whole patch gives on the file it was written for whenever a chunk is left as it
// is, reported as already applied.
func propPartlyApplied(t *rapid.T, outcomes map[string]int) {
	a, b := partEdits(2, []string{"type T struct{}"}, []string{"\tchanged()", "\tcall(c)", "}"}, []string{"\tadded()", "\tcall(a)", ""}).draw(t)
	ops := lineDiff(a, b)
	if !slices.ContainsFunc(ops, func(o dop) bool { return o.op != Context }) {
		t.Skip("no change")
	}
	cs := buildChunks(t, a, ops, rapid.IntRange(0, 3).Draw(t, "context"), rapid.Bool().Draw(t, "anchors"))
	if len(cs) < 2 {
		t.Skip("one chunk")
	}
	var part []gChunk
	for _, c := range cs {
		if rapid.Bool().Draw(t, "sent_before") {
			part = append(part, c)
		}
	}
	if len(part) == 0 || len(part) == len(cs) {
		t.Skip("not a part")
	}
	apply := func(file []byte, p *Patch) (string, *Result, error) {
		m, ap := propApplier(t, map[string][]byte{"f.txt": file})
		res, err := ap.Apply(context.Background(), Format(p))
		return readMem(m, "f.txt"), res, err
	}
	whole := chunksPatch("f.txt", cs)
	full, _, err := apply(joinFile(a), whole)
	if err != nil {
		t.Skip("the whole patch does not apply to its own file")
	}
	half, _, err := apply(joinFile(a), chunksPatch("f.txt", part))
	if err != nil {
		t.Skip("the part does not apply")
	}
	got, res, err := apply([]byte(half), whole)
	if err != nil {
		if got != half {
			t.Fatalf("refused (%v) but wrote %q", err, got)
		}
		outcomes["refused"]++
		return
	}
	done, additions := 0, 0
	for _, r := range res.Report {
		if r.Strategy == StrategyAlreadyApplied {
			done++
			if !slices.ContainsFunc(cs[r.Chunk-1].body, func(l Line) bool { return l.Op == Remove }) {
				additions++
			}
			if !slices.ContainsFunc(r.Notes, func(s string) bool { return strings.HasPrefix(s, "already applied") }) {
				t.Fatalf("chunk %d reported already applied without a note: %+v", r.Chunk, r)
			}
		}
	}
	if done == 0 {
		// Every chunk placed by the ordinary rules (a blank line may be added twice).
		outcomes["applied, nothing found applied"]++
		return
	}
	if got != full {
		t.Fatalf("partly applied file %q\npatch:\n%s\ngot  %q\nwant %q", half, Format(whole), got, full)
	}
	outcomes["applied around applied chunks"]++
	if additions > 0 {
		outcomes["applied around a chunk that only adds lines, found applied"]++
	}
}

func TestPartlyAppliedProperty(t *testing.T) {
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { propPartlyApplied(t, outcomes) })
	t.Logf("outcomes: %v", outcomes)
	if testing.Short() {
		return
	}
	if outcomes["applied around a chunk that only adds lines, found applied"] == 0 {
		t.Errorf("no chunk that only adds lines was found applied: %v", outcomes)
	}
	if outcomes["applied around applied chunks"] == 0 {
		t.Errorf("no partly applied patch was applied: the property tests nothing (%v)", outcomes)
	}
}

// fileEdits says how to draw a file and an edited copy of it: minN to maxN lines from
// alphabet, then minEdits to maxEdits edits (a line replaced by one of changed, a line
// deleted, one of added inserted; a list of one is taken without a draw).
type fileEdits struct {
	minN, maxN, minEdits, maxEdits int
	alphabet, changed, added       []string
}

// draw returns the file a and its edited copy b.
func (e fileEdits) draw(t *rapid.T) (a, b []string) {
	pick := func(vs []string) string {
		if len(vs) == 1 {
			return vs[0]
		}
		return rapid.SampledFrom(vs).Draw(t, "text")
	}
	a = make([]string, rapid.IntRange(e.minN, e.maxN).Draw(t, "n"))
	for i := range a {
		a[i] = rapid.SampledFrom(e.alphabet).Draw(t, "line")
	}
	b = slices.Clone(a)
	for k := rapid.IntRange(e.minEdits, e.maxEdits).Draw(t, "edits"); k > 0; k-- {
		switch op := rapid.IntRange(0, 2).Draw(t, "edit"); {
		case op == 0 && len(b) > 0:
			b[rapid.IntRange(0, len(b)-1).Draw(t, "at")] = pick(e.changed)
		case op == 1 && len(b) > 1:
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b = slices.Delete(b, i, i+1)
		default:
			b = slices.Insert(b, rapid.IntRange(0, len(b)).Draw(t, "at"), pick(e.added))
		}
	}
	return a, b
}

// staleEdits is the draw of the stale-context properties: up to 25 lines of staleAlphabet,
// one to three edits.
var staleEdits = fileEdits{minN: 1, maxN: 25, minEdits: 1, maxEdits: 3, alphabet: staleAlphabet,
	changed: []string{"\tchanged()"}, added: []string{"\tadded()"}}

// partEdits is the draw of the partly-applied properties: min to 30 lines of staleAlphabet,
// the call lines and extra, two to five edits.
func partEdits(min int, extra, changed, added []string) fileEdits {
	return fileEdits{minN: min, maxN: 30, minEdits: 2, maxEdits: 5,
		alphabet: slices.Concat(staleAlphabet, []string{"\tcall(a)", "\tcall(b)"}, extra), changed: changed, added: added}
}
