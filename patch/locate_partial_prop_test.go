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
	a, b := drawEdited(t, 2, []string{"type T struct{}"}, []string{"\tchanged()", "\tcall(c)", "}"}, []string{"\tadded()", "\tcall(a)", ""})
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

// drawEdited draws a file a of at least min lines from staleAlphabet, the call lines and
// extra, and b: a after two to five edits (a line replaced by one of changed, a line
// deleted, one of added inserted).
func drawEdited(t *rapid.T, min int, extra, changed, added []string) (a, b []string) {
	alphabet := append(append(slices.Clone(staleAlphabet), "\tcall(a)", "\tcall(b)"), extra...)
	a = make([]string, rapid.IntRange(min, 30).Draw(t, "n"))
	for i := range a {
		a[i] = rapid.SampledFrom(alphabet).Draw(t, "line")
	}
	b = slices.Clone(a)
	for k := rapid.IntRange(2, 5).Draw(t, "edits"); k > 0; k-- {
		switch op := rapid.IntRange(0, 2).Draw(t, "edit"); {
		case op == 0 && len(b) > 0:
			b[rapid.IntRange(0, len(b)-1).Draw(t, "at")] = rapid.SampledFrom(changed).Draw(t, "text")
		case op == 1 && len(b) > 1:
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b = slices.Delete(b, i, i+1)
		default:
			b = slices.Insert(b, rapid.IntRange(0, len(b)).Draw(t, "at"), rapid.SampledFrom(added).Draw(t, "text"))
		}
	}
	return a, b
}
