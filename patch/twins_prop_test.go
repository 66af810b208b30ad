package patch

import (
	"context"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// propSameChunks: a file holding a block of lines at several places among other lines, and a
// patch with some number of chunks, each making the same change to that block. The patch is
// applied only when it has as many such chunks as the file has places for them (and, for two
// chunks or more, the change is nowhere made yet), and then every place gets the change;
// otherwise nothing is written.
func propSameChunks(t *rapid.T, outcomes map[string]int) {
	block := []string{"\tgot := run()", rapid.SampledFrom([]string{"\twant := 1", "\tx := y", "}"}).Draw(t, "removed"), "\tcheck(got)"}
	added := rapid.SampledFrom([]string{"\twant := 2", "\tx := z", ""}).Draw(t, "added")
	filler := []string{"func f() {", "}", "", "\tgot := run()", "\tcheck(got)", block[1], added}
	var file []string
	for k := rapid.IntRange(1, 4).Draw(t, "copies"); k > 0; k-- {
		for j := rapid.IntRange(0, 3).Draw(t, "filler"); j > 0; j-- {
			file = append(file, rapid.SampledFrom(filler).Draw(t, "line"))
		}
		file = append(file, block...)
	}
	for j := rapid.IntRange(0, 3).Draw(t, "filler"); j > 0; j-- {
		file = append(file, rapid.SampledFrom(filler).Draw(t, "line"))
	}
	chunks := rapid.IntRange(1, 5).Draw(t, "chunks")
	h := Hunk{Kind: UpdateFile, Path: "f.txt"}
	for range chunks {
		h.Chunks = append(h.Chunks, Chunk{Lines: []Line{{Op: Context, Text: block[0]}, {Op: Remove, Text: block[1]}, {Op: Insert, Text: added}, {Op: Context, Text: block[2]}}})
	}
	var places []int
	for i := 0; i+len(block) <= len(file); i++ {
		if slices.Equal(file[i:i+len(block)], block) {
			places = append(places, i)
		}
	}
	newSide := []string{block[0], added, block[2]}
	made := false
	for i := 0; i+len(newSide) <= len(file); i++ {
		made = made || slices.Equal(file[i:i+len(newSide)], newSide)
	}
	orig := string(joinFile(file))
	m, ap := propApplier(t, map[string][]byte{"f.txt": []byte(orig)})
	res, err := ap.Apply(context.Background(), Format(&Patch{Hunks: []Hunk{h}}))
	got := readMem(m, "f.txt")
	if err != nil {
		if got != orig {
			t.Fatalf("refused (%v) but wrote %q", err, got)
		}
		outcomes["refused"]++
		return
	}
	if len(places) != chunks || made && chunks > 1 {
		t.Fatalf("applied %d chunks to a file with %d places (change made already: %v): %q → %q\n%+v", chunks, len(places), made, orig, got, res.Report)
	}
	want := slices.Clone(file)
	for _, p := range places {
		want[p+1] = added
	}
	if got != string(joinFile(want)) {
		t.Fatalf("file %q: got %q, want every place changed %q", orig, got, string(joinFile(want)))
	}
	if chunks > 1 && slices.ContainsFunc(res.Report[0].Notes, func(s string) bool { return strings.HasPrefix(s, "same change at") }) {
		outcomes["applied, same chunks at as many places"]++
		return
	}
	outcomes["applied"]++
}

func TestSameChunksProperty(t *testing.T) {
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { propSameChunks(t, outcomes) })
	t.Logf("outcomes: %v", outcomes)
	if testing.Short() {
		return
	}
	if outcomes["applied, same chunks at as many places"] == 0 {
		t.Errorf("no same chunks were placed at as many places: the property tests nothing (%v)", outcomes)
	}
}
