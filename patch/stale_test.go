package patch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// mergeRepeats are lines that recur in code, so that blocks look alike.
var mergeRepeats = []string{"}", "", "\treturn nil", "\tif err != nil {", "\t\treturn err"}

// gitMerge runs git merge-file on current, base and other; ok reports a clean merge.
func gitMerge(t *rapid.T, dir string, current, base, other []byte) ([]byte, bool) {
	names := []string{"current", "base", "other"}
	for i, b := range [][]byte{current, base, other} {
		if err := os.WriteFile(filepath.Join(dir, names[i]), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("git", "merge-file", "-p", filepath.Join(dir, "current"), filepath.Join(dir, "base"), filepath.Join(dir, "other"))
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.Bytes(), true
	case errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() < 128:
		return nil, false
	}
	t.Fatalf("git merge-file: %v", err)
	return nil, false
}

// mergeEdit applies 1–3 random edits (a line changed, deleted or inserted) to lines, with new
// lines named by tag so that the two sides' lines differ.
func mergeEdit(t *rapid.T, lines []string, tag string) []string {
	out := slices.Clone(lines)
	for k := rapid.IntRange(1, 3).Draw(t, tag+"_edits"); k > 0; k-- {
		fresh := fmt.Sprintf("\t%s%d()", tag, k)
		switch op := rapid.IntRange(0, 2).Draw(t, tag+"_op"); {
		case op == 0 && len(out) > 0:
			out[rapid.IntRange(0, len(out)-1).Draw(t, tag+"_at")] = fresh
		case op == 1 && len(out) > 1:
			i := rapid.IntRange(0, len(out)-1).Draw(t, tag+"_at")
			out = slices.Delete(out, i, i+1)
		default:
			out = slices.Insert(out, rapid.IntRange(0, len(out)).Draw(t, tag+"_at"), fresh)
		}
	}
	return out
}

// propMergeOracle: the model read A and wrote P (A → B with one to three lines of context,
// anchors sometimes); the file is T, A with another edit. Whenever git's 3-way merge of T and B
// from A is clean and Apply writes, it must write the merge; when the merge conflicts, a write
// must still remove only lines P names. Every refusal leaves the file as it was.
func propMergeOracle(t *rapid.T, dir string, outcomes map[string]int) {
	n := rapid.IntRange(3, 30).Draw(t, "n")
	a := make([]string, n)
	for i := range a {
		if rapid.IntRange(0, 9).Draw(t, "repeat") < 4 {
			a[i] = rapid.SampledFrom(mergeRepeats).Draw(t, "line")
		} else {
			a[i] = fmt.Sprintf("\tv%d()", i)
		}
	}
	b := mergeEdit(t, a, "ours")
	theirs := mergeEdit(t, a, "theirs")
	ops := lineDiff(a, b)
	if !slices.ContainsFunc(ops, func(o dop) bool { return o.op != Context }) || slices.Equal(a, theirs) {
		t.Skip("no change")
	}
	// Three lines of context as a diff writes them, or fewer, with @@ anchors sometimes.
	p := chunksPatch("f.txt", buildChunks(t, a, ops, rapid.IntRange(1, 3).Draw(t, "context"), rapid.Bool().Draw(t, "anchors")))
	text := Format(p)
	// A patch that does not give B on A, the file it was written from (a chunk whose lines are
	// at two places of A, say), says nothing certain about where it goes in T: a chunk sure
	// in T may be at the place the model did not mean, and no file tells the two apart.
	if own, _ := applyTo(t, joinFile(a), text); own != string(joinFile(b)) {
		t.Skip("the patch does not give B on its own file")
	}
	before := joinFile(theirs)
	merged, clean := gitMerge(t, dir, before, joinFile(a), joinFile(b))
	if clean && bytes.Equal(merged, before) {
		t.Skip("the change is already in the file")
	}
	// Where both sides changed the same base lines in the same way (one line of a run of equal
	// lines deleted by both, say), git takes the change once; from the file alone that is not
	// distinguishable from the patch still to be applied. Such merges only have to be sound.
	touching := false
	ourLines, theirLines := changedBase(a, b), changedBase(a, theirs)
	for i := range ourLines {
		if theirLines[i] || theirLines[i-1] || theirLines[i+1] {
			touching = true
		}
	}
	m, ap := propApplier(t, map[string][]byte{"f.txt": before})
	res, err := ap.Apply(context.Background(), text)
	got := readMem(m, "f.txt")
	switch {
	case err != nil && got != string(before):
		t.Fatalf("refused (%v) but wrote %q", err, got)
	case err != nil && clean:
		outcomes["clean merge, refused"]++
	case err != nil:
		outcomes["conflict, refused"]++
	case clean && touching:
		checkRemovalSound(t, p, res.Report, before, []byte(got))
		outcomes["clean merge of touching changes, written"]++
	case clean && got != string(merged):
		t.Fatalf("wrong result on a clean merge\nA      %q\nB      %q\nT      %q\npatch:\n%s\ngot    %q\nmerged %q\nreport %+v", a, b, theirs, text, got, merged, res.Report)
	case clean:
		outcomes["clean merge, applied"]++
	default:
		checkRemovalSound(t, p, res.Report, before, []byte(got))
		outcomes["conflict, written"]++
	}
	if err == nil {
		for _, r := range res.Report {
			if r.Strategy == StrategyStaleEdges {
				outcomes["stale-edges rescues"]++
			}
		}
	}
}

// applyTo applies text to a file f.txt holding data and returns what the file holds after.
func applyTo(t *rapid.T, data []byte, text string) (string, error) {
	m, ap := propApplier(t, map[string][]byte{"f.txt": data})
	_, err := ap.Apply(context.Background(), text)
	return readMem(m, "f.txt"), err
}

// TestMergeOracleProperty runs propMergeOracle against git merge-file (skipped without git).
func TestMergeOracleProperty(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: the 3-way merge oracle is missing (Debian: apt-get install git)")
	}
	dir := t.TempDir()
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { propMergeOracle(t, dir, outcomes) })
	t.Logf("outcomes: %v", outcomes)
	if outcomes["clean merge, applied"] == 0 || outcomes["stale-edges rescues"] == 0 {
		t.Errorf("the generator needs adjusting: %v", outcomes)
	}
}

// changedBase returns the positions of a's lines that the diff a → b removes, and the
// positions before which it inserts, as a set (an insertion at the end is at len(a)).
func changedBase(a, b []string) map[int]bool {
	out := map[int]bool{}
	at := 0
	for _, o := range lineDiff(a, b) {
		switch o.op {
		case Context:
			at = o.a + 1
		case Remove:
			out[o.a] = true
			at = o.a + 1
		case Insert:
			out[at] = true
		}
	}
	return out
}
