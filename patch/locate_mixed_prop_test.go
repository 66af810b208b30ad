package patch

import (
	"context"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// propChunkPartlyApplied: the file holds some of the patch's changes (runs of removed and added
// lines) and not the others, so that a chunk may be partly applied itself. Applying the whole
// patch either refuses with nothing written, or places every chunk as written, or, when it
// leaves a chunk or part of one as it is, gives exactly what the patch gives on the file it was
// written for.
func propChunkPartlyApplied(t *rapid.T, outcomes map[string]int) {
	a, b := partEdits(3, []string{"type T struct{}", "\tv := 1", "\tw := 2"}, []string{"\tchanged()", "\tcall(c)", "}", "\tv := 10"}, []string{"\tadded()", "\tcall(a)", "", "\tw := 20"}).draw(t)
	ops := lineDiff(a, b)
	// The file: a with some of the diff's change runs made.
	var half []string
	runs, made := 0, 0
	for i := 0; i < len(ops); {
		if ops[i].op == Context {
			half = append(half, ops[i].text)
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].op != Context {
			j++
		}
		runs++
		var added []string
		for _, o := range ops[i:j] {
			if o.op == Insert {
				added = append(added, o.text)
			}
		}
		// A change that adds only blank or punctuation lines, found made, proves nothing (a
		// blank line may be meant twice): only changes that add text are made beforehand.
		take := place.SignificantLines(added) && rapid.Bool().Draw(t, "made")
		if take {
			made++
		}
		for _, o := range ops[i:j] {
			if take && o.op == Insert || !take && o.op == Remove {
				half = append(half, o.text)
			}
		}
		i = j
	}
	if made == 0 || made == runs {
		t.Skip("not a part")
	}
	cs := buildChunks(t, a, ops, rapid.IntRange(1, 3).Draw(t, "context"), false)
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
	file := string(joinFile(half))
	got, res, err := apply([]byte(file), whole)
	if err != nil {
		if got != file {
			t.Fatalf("refused (%v) but wrote %q", err, got)
		}
		outcomes["refused"]++
		return
	}
	partly, done := false, false
	for _, r := range res.Report {
		partly = partly || slices.ContainsFunc(r.Notes, func(s string) bool { return strings.HasPrefix(s, "partly applied:") })
		done = done || r.Strategy == StrategyAlreadyApplied
	}
	if !partly && !done {
		// Every chunk placed as written (its old lines are in the file as the patch has them).
		outcomes["applied, nothing found applied"]++
		return
	}
	if got != full {
		t.Fatalf("file %q\npatch:\n%s\ngot  %q\nwant %q\nreport %+v", file, Format(whole), got, full, res.Report)
	}
	if partly {
		outcomes["applied, a chunk partly applied"]++
		return
	}
	outcomes["applied around chunks already applied"]++
}

func TestChunkPartlyAppliedProperty(t *testing.T) {
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { propChunkPartlyApplied(t, outcomes) })
	t.Logf("outcomes: %v", outcomes)
	if testing.Short() {
		return
	}
	if outcomes["applied, a chunk partly applied"] == 0 {
		t.Errorf("no chunk partly applied itself was applied: the property tests nothing (%v)", outcomes)
	}
}
