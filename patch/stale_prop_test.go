package patch

import (
	"context"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// staleAlphabet repeats a few lines so that blocks near-duplicate each other.
var staleAlphabet = []string{"func f() {", "\tstmt(1)", "\tstmt(2)", "}", "", "\treturn nil", "x := y", "say \u201chi\u201d"}

// propStaleFile: the model read A and wrote P (A → B), but the file on disk is A', which is A
// with one line inserted, deleted or edited since (another edit landed). Applying P to A'
// must remove only lines P names (property 18 on A'), insert exactly P's added lines, and,
// when the change to A lies outside every chunk's region and each chunk's old lines occur
// exactly once in A', give B with the same change — or refuse with nothing written.
func propStaleFile(t *rapid.T, outcomes map[string]int) {
	a, b := staleEdits.draw(t)
	n := len(a)
	ops := lineDiff(a, b)
	if !slices.ContainsFunc(ops, func(o dop) bool { return o.op != Context }) {
		t.Skip("no change")
	}
	cs := buildChunks(t, a, ops, rapid.IntRange(0, 3).Draw(t, "context"), rapid.Bool().Draw(t, "anchors"))
	p := chunksPatch("f.txt", cs)

	// The change behind the model's back: at A index i.
	kind := rapid.IntRange(0, 2).Draw(t, "stale_kind")
	i := rapid.IntRange(0, n-1).Draw(t, "stale_at")
	if kind == 0 {
		i = rapid.IntRange(0, n).Draw(t, "stale_insert_at")
	}
	const injected = "\tinjected()"
	a2 := slices.Clone(a)
	switch kind {
	case 0:
		a2 = slices.Insert(a2, i, injected)
	case 1:
		a2 = slices.Delete(a2, i, i+1)
	default:
		a2[i] += " // edited"
	}
	// outside: the change touches no chunk's region (from its anchor line, or its first old
	// line, to its last old line; to the end of the file for an end-of-file chunk).
	outside := true
	for _, c := range cs {
		lo, hi := c.aStart, c.aEnd
		if c.anchor != "" {
			lo = slices.Index(a[:c.aStart], c.anchor) // the anchor is the first such line from the cursor
			for j := c.aStart - 1; j >= 0; j-- {
				if a[j] == c.anchor {
					lo = j
					break
				}
			}
		}
		if c.eof {
			hi = n + 1
		}
		if kind == 0 && i > lo && i < hi || kind == 0 && lo == hi && i == lo || kind != 0 && i >= lo && i < hi {
			outside = false
		}
		if kind == 0 && i == lo && (c.anchor != "" || len(c.body) > 0 && c.body[0].Op == Insert) {
			// Between the anchor and the window, or before added lines that open the chunk:
			// which side the added lines go is a reading, not a fact.
			outside = false
		}
		if old := c.old(); len(old) > 0 && len(occurrences(a2, old)) != 1 || c.nonUnique {
			outside = false
		}
	}
	// B with the same change: replay the diff over A'.
	var want []string
	done := false
	for _, o := range ops {
		if !done && o.op != Insert && o.a == i {
			switch kind {
			case 0:
				want = append(want, injected)
			case 1:
				done = true
				continue
			default:
				done = true
				if o.op == Context {
					want = append(want, a2[i])
				}
				continue
			}
			done = true
		}
		if o.op != Remove {
			want = append(want, o.text)
		}
	}
	if kind == 0 && i == n {
		want = append(want, injected)
	}

	text := Format(p)
	before := joinFile(a2)
	m, ap := propApplier(t, map[string][]byte{"f.txt": before})
	res, err := ap.Apply(context.Background(), text)
	got := readMem(m, "f.txt")
	if err != nil {
		if got != string(before) {
			t.Fatalf("refused (%v) but wrote %q", err, got)
		}
		outcomes["refused"]++
		return
	}
	checkRemovalSound(t, p, res.Report, before, []byte(got))
	// Exactly P's added lines are new.
	count := map[string]int{}
	for _, l := range parseDoc([]byte(got), false).lines {
		count[l]++
	}
	for _, l := range a2 {
		count[l]--
	}
	for _, ch := range p.Hunks[0].Chunks {
		for _, l := range ch.Lines {
			switch l.Op {
			case Insert:
				count[l.Text]--
			case Remove:
				count[l.Text]++
			}
		}
	}
	for l, c := range count {
		if c != 0 {
			t.Fatalf("line %q: %+d against A' with P's lines added and removed\nA'  %q\npatch:\n%s\ngot %q\nreport %+v", l, c, a2, text, got, res.Report)
		}
	}
	if outside && got != string(joinFile(want)) {
		t.Fatalf("a change outside every chunk: got %q, want %q\nA  %q\nA' %q\npatch:\n%s\nreport %+v", got, joinFile(want), a, a2, text, res.Report)
	}
	if outside {
		outcomes["applied, change outside the chunks"]++
	} else {
		outcomes["applied, change inside a chunk's region"]++
	}
}

// TestStaleFileProperty runs propStaleFile and logs how the runs ended.
func TestStaleFileProperty(t *testing.T) {
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { propStaleFile(t, outcomes) })
	t.Logf("outcomes: %v", outcomes)
	if outcomes["applied, change outside the chunks"] == 0 || outcomes["refused"] == 0 {
		t.Errorf("the generator needs adjusting: %v", outcomes)
	}
}
