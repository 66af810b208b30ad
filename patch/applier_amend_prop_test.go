package patch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// failer is what the property checks need of *testing.T and *rapid.T.
type failer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkRemovalSound is property 18 (removal soundness) for a one-file patch p applied to
// before giving after: every removed old line of every chunk is paired with a file line that
// it equals at a ladder level, and the file lines removed are exactly those paired lines (the
// other lines of before appear in after, in order).
func checkRemovalSound(t failer, p *Patch, reports []ChunkReport, before, after []byte) {
	t.Helper()
	d := parseDoc(before, false)
	loc := place.New(&place.Config{}, "", 1, d.lines, d.bom)
	removed := map[int]bool{}
	for _, r := range reports {
		if r.Section < 1 || r.Section > len(p.Hunks) || r.Chunk < 1 || r.Chunk > len(p.Hunks[r.Section-1].Chunks) {
			t.Fatalf("report %+v names no chunk", r)
		}
		if r.Pairing == nil {
			continue // a pure insertion
		}
		ch := p.Hunks[r.Section-1].Chunks[r.Chunk-1]
		var ops []Line
		for _, l := range ch.Lines {
			if l.Op != Insert {
				ops = append(ops, l)
			}
		}
		if len(r.Pairing) != len(ops) {
			t.Fatalf("chunk %d: pairing %v for %d old lines", r.Chunk, r.Pairing, len(ops))
		}
		n := 0
		for i, l := range ops {
			q := r.Pairing[i]
			if l.Op != Remove {
				continue
			}
			if r.BlankRetry && i == len(ops)-1 && q == 0 {
				continue
			}
			if q < 1 || q > len(d.lines) {
				t.Fatalf("chunk %d: removed line %q paired with file line %d", r.Chunk, l.Text, q)
			}
			eq := false
			for lv := LevelExact; lv <= LevelUnicodeTrim; lv++ {
				eq = eq || loc.LineMatches(place.Level(lv), l.Text, q-1)
			}
			if !eq {
				t.Fatalf("chunk %d: removed line %q paired with file line %d %q, which it does not equal",
					r.Chunk, l.Text, q, d.lines[q-1])
			}
			removed[q-1] = true
			n++
		}
		if n != r.Removed {
			t.Fatalf("chunk %d: %d paired removed lines, report says %d removed", r.Chunk, n, r.Removed)
		}
	}
	var kept []string
	for i, l := range d.lines {
		if !removed[i] {
			kept = append(kept, l)
		}
	}
	if !isSubsequence(kept, parseDoc(after, false).lines) {
		t.Fatalf("a line the patch does not remove is gone:\nbefore %q\nafter  %q\nremoved %v", before, after, removed)
	}
}

// isSubsequence reports whether a is a subsequence of b.
func isSubsequence(a, b []string) bool {
	i := 0
	for _, s := range b {
		if i < len(a) && a[i] == s {
			i++
		}
	}
	return i == len(a)
}

// uniqueCase draws a file of distinct lines and a patch from a line diff to an edited version
// whose new lines are fresh: every chunk is unique in A, and a chunk's removed lines are gone
// from B. Only patches whose every chunk adds a non-blank line are kept (property 19).
func uniqueCase(t *rapid.T) (a []string, p *Patch, b []string) {
	n := rapid.IntRange(1, 30).Draw(t, "lines")
	for i := range n {
		a = append(a, fmt.Sprintf("line %d", i))
	}
	b = slices.Clone(a)
	fresh := 0
	for k := rapid.IntRange(1, 4).Draw(t, "edits"); k > 0; k-- {
		fresh++
		text := fmt.Sprintf("fresh %d", fresh)
		switch op := rapid.IntRange(0, 1).Draw(t, "op"); {
		case op == 0 && len(b) > 0:
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b[i] = text
		default:
			i := rapid.IntRange(0, len(b)).Draw(t, "at")
			b = slices.Insert(b, i, text)
		}
	}
	ops := lineDiff(a, b)
	cs := buildChunks(t, a, ops, rapid.IntRange(0, 2).Draw(t, "context"), false)
	p = chunksPatch("f.txt", cs)
	for _, ch := range p.Hunks[0].Chunks {
		if !slices.ContainsFunc(ch.Lines, func(l Line) bool { return l.Op == Insert && strings.TrimSpace(l.Text) != "" }) {
			t.Skip("a chunk without added text")
		}
	}
	return a, p, b
}

func joinFile(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// Property 19 (no double application): P applies to A giving B; Apply(P) on B is refused as
// already applied and B is unchanged.
func propNoDoubleApplication(t *rapid.T) {
	a, p, b := uniqueCase(t)
	text := Format(p)
	m, ap := propApplier(t, map[string][]byte{"f.txt": joinFile(a)})
	if _, err := ap.Apply(context.Background(), text); err != nil {
		t.Fatalf("first Apply: %v\nfile %q\n%s", err, joinFile(a), text)
	}
	if got := readMem(m, "f.txt"); got != string(joinFile(b)) {
		t.Fatalf("first Apply gave %q, want %q", got, joinFile(b))
	}
	_, err := ap.Apply(context.Background(), text)
	if !errors.Is(err, ErrAlreadyApplied) {
		t.Fatalf("second Apply: %v, want already applied\nfile %q\n%s", err, joinFile(b), text)
	}
	if got := readMem(m, "f.txt"); got != string(joinFile(b)) {
		t.Fatalf("second Apply wrote %q", got)
	}
}

// nearDupCase draws a file of near-duplicate blocks (copies of one block, each with one line
// changed) and a patch that edits one line of one block; the patch's context may be perturbed
// by deleting, inserting or editing one line.
func propNearDuplicates(t *rapid.T) {
	blockLen := rapid.IntRange(3, 8).Draw(t, "block_len")
	base := make([]string, blockLen)
	for i := range base {
		base[i] = fmt.Sprintf("\tstmt(%d)", i)
	}
	copies := rapid.IntRange(2, 5).Draw(t, "copies")
	var file []string
	var starts []int
	for c := range copies {
		starts = append(starts, len(file))
		blk := slices.Clone(base)
		if c > 0 {
			j := rapid.IntRange(0, blockLen-1).Draw(t, "variant_line")
			blk[j] = fmt.Sprintf("\tstmt(%d) // copy %d", j, c)
		}
		file = append(file, fmt.Sprintf("func f%d() {", c))
		file = append(file, blk...)
		file = append(file, "}")
		if rapid.Bool().Draw(t, "gap") {
			file = append(file, "")
		}
	}
	target := rapid.IntRange(0, copies-1).Draw(t, "target")
	// The chunk: a window of the target block (function line included or not), one line
	// removed and replaced.
	lo := starts[target] + rapid.IntRange(0, 1).Draw(t, "from_header")
	hi := starts[target] + 1 + blockLen + rapid.IntRange(0, 1).Draw(t, "to_brace")
	ri := rapid.IntRange(lo, hi-1).Draw(t, "removed")
	var body []Line
	for i := lo; i < hi; i++ {
		if i == ri {
			body = append(body, Line{Op: Remove, Text: file[i]}, Line{Op: Insert, Text: "\tchanged()"})
			continue
		}
		body = append(body, Line{Op: Context, Text: file[i]})
	}
	intended := slices.Clone(file)
	intended[ri] = "\tchanged()"
	// Perturb one context line: delete it, insert an invented one, or edit it.
	var ctxIdx []int
	for i, l := range body {
		if l.Op == Context {
			ctxIdx = append(ctxIdx, i)
		}
	}
	if len(ctxIdx) > 0 {
		k := ctxIdx[rapid.IntRange(0, len(ctxIdx)-1).Draw(t, "perturb_at")]
		switch rapid.IntRange(0, 3).Draw(t, "perturbation") {
		case 1:
			body = slices.Delete(body, k, k+1)
		case 2:
			body = slices.Insert(body, k, Line{Op: Context, Text: "\tinvented()"})
		case 3:
			body[k].Text += " // edited"
		}
	}
	if !slices.ContainsFunc(body, func(l Line) bool { return l.Op != Insert }) {
		t.Skip("no old lines left")
	}
	p := &Patch{Hunks: []Hunk{{Kind: UpdateFile, Path: "f.txt", Chunks: []Chunk{{Lines: body}}}}}
	text := Format(p)
	orig := joinFile(file)
	mfs, a := propApplier(t, map[string][]byte{"f.txt": orig})
	res, err := a.Apply(context.Background(), text)
	got := readMem(mfs, "f.txt")
	if err != nil {
		if got != string(orig) {
			t.Fatalf("refused (%v) but wrote %q", err, got)
		}
		return
	}
	if got != string(joinFile(intended)) {
		t.Fatalf("a third outcome: neither the intended file nor a refusal\nfile:\n%s\npatch:\n%s\ngot:\n%s\nreport %+v",
			orig, text, got, res.Report)
	}
	checkRemovalSound(t, p, res.Report, orig, []byte(got))
}

func TestAmendmentProperties(t *testing.T) {
	t.Run("P18_P19_no_double_application", rapid.MakeCheck(propNoDoubleApplication))
	t.Run("near_duplicate_blocks_intended_or_refused", rapid.MakeCheck(propNearDuplicates))
}
