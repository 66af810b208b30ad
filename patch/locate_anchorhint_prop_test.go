package patch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// propAnchorHint: an @@ anchor the file does not have is a hint, not a requirement. A patch
// whose chunks (those with old lines) carry anchors that are nowhere in the file is applied
// exactly as the same patch without those anchors: the same bytes written, or both refused
// with nothing written. The file may have changed since the patch was written (one line
// inserted, deleted or edited), so the rescues are exercised too.
func propAnchorHint(t *rapid.T) {
	a, b := staleEdits.draw(t)
	n := len(a)
	ops := lineDiff(a, b)
	if !slices.ContainsFunc(ops, func(o dop) bool { return o.op != Context }) {
		t.Skip("no change")
	}
	cs := buildChunks(t, a, ops, rapid.IntRange(0, 3).Draw(t, "context"), false)
	a2 := slices.Clone(a)
	if rapid.Bool().Draw(t, "stale") {
		i := rapid.IntRange(0, n-1).Draw(t, "stale_at")
		switch rapid.IntRange(0, 2).Draw(t, "stale_kind") {
		case 0:
			a2 = slices.Insert(a2, i, "\tinjected()")
		case 1:
			a2 = slices.Delete(a2, i, i+1)
		default:
			a2[i] += " // edited"
		}
	}
	bare := chunksPatch("f.txt", cs)
	anchored := chunksPatch("f.txt", cs)
	hinted := 0
	for k, c := range cs {
		if len(c.old()) > 0 && rapid.Bool().Draw(t, "anchor") {
			// Lines that resemble the file's (a renamed function) or not at all.
			gone := rapid.SampledFrom([]string{"func g() {", "func f(x) {", "class Gone:", "\tstmt(9)"}).Draw(t, "gone")
			anchored.Hunks[0].Chunks[k].Anchors = []string{gone + strings.Repeat(" ", k)}
			hinted++
		}
	}
	if hinted == 0 {
		t.Skip("no anchor")
	}
	before := joinFile(a2)
	run := func(p *Patch) (string, []ChunkReport, error) {
		m, ap := propApplier(t, map[string][]byte{"f.txt": before})
		res, err := ap.Apply(context.Background(), Format(p))
		var rep []ChunkReport
		if res != nil {
			rep = res.Report
		}
		return readMem(m, "f.txt"), rep, err
	}
	gotBare, _, errBare := run(bare)
	gotAnch, rep, errAnch := run(anchored)
	if gotBare != gotAnch || (errBare == nil) != (errAnch == nil) {
		t.Fatalf("with anchors not in the file: %q (err %v); without them: %q (err %v)", gotAnch, errAnch, gotBare, errBare)
	}
	if errAnch != nil {
		if gotAnch != string(before) {
			t.Fatalf("refused (%v) but wrote", errAnch)
		}
		return
	}
	checkRemovalSound(t, anchored, rep, before, []byte(gotAnch))
	for k, ch := range anchored.Hunks[0].Chunks {
		if len(ch.Anchors) == 0 {
			continue
		}
		if !slices.ContainsFunc(rep[k].Notes, func(s string) bool { return strings.HasPrefix(s, "anchor ") }) {
			t.Fatalf("chunk %d placed without its anchor, report notes %q", k+1, rep[k].Notes)
		}
	}
}

func TestAnchorHintProperty(t *testing.T) {
	rapid.Check(t, propAnchorHint)
}

// An anchor that is missing never lets a pure insertion through: it has no lines of its own
// to place it by.
func TestAnchorHintPureInsertion(t *testing.T) {
	for _, codex := range []bool{false, true} {
		t.Run(fmt.Sprint("codex=", codex), func(t *testing.T) {
			var opts []Option
			if codex {
				opts = append(opts, WithCodexCompat())
			}
			m, ap := propApplier(t, map[string][]byte{"f.txt": []byte("a\nb\n")}, opts...)
			_, err := ap.Apply(context.Background(), "*** Begin Patch\n*** Update File: f.txt\n@@ gone\n+x\n*** End Patch\n")
			if pe := (*Error)(nil); !errors.As(err, &pe) || pe.Kind != KindNotFound {
				t.Fatalf("err = %v, want not_found", err)
			}
			if got := readMem(m, "f.txt"); got != "a\nb\n" {
				t.Fatalf("wrote %q", got)
			}
		})
	}
}
