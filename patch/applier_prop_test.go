package patch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// The properties of spec §6 for the applier (4–17). Files are drawn from a small alphabet so
// that repeats occur; patches come from a line diff of A→B with random context width, chunk
// grouping, end-of-file flags and anchors taken from lines above a chunk.

var propAlphabet = []string{"alpha", "beta", "a - b", `say "hi"`, "  indented", "}", "", "x := 1", "it's"}

// gFile is a generated file: lines, their terminators, a BOM flag.
type gFile struct {
	lines, terms []string
	bom          bool
}

func (f gFile) bytes() []byte {
	var b bytes.Buffer
	if f.bom {
		b.WriteString(bom)
	}
	for i := range f.lines {
		b.WriteString(f.lines[i] + f.terms[i])
	}
	return b.Bytes()
}

// style: 0 LF, 1 CRLF, 2 mixed.
func genFile(t *rapid.T, label string, style int, allowBOM bool) gFile {
	lines := rapid.SliceOfN(rapid.SampledFrom(propAlphabet), 0, 14).Draw(t, label+"_lines")
	f := gFile{lines: lines, terms: make([]string, len(lines))}
	for i := range lines {
		switch style {
		case 0:
			f.terms[i] = "\n"
		case 1:
			f.terms[i] = "\r\n"
		default:
			f.terms[i] = rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, label+"_term")
		}
	}
	// (a last line that is empty and unterminated would not exist)
	if len(lines) > 0 && lines[len(lines)-1] != "" && !rapid.Bool().Draw(t, label+"_final_newline") {
		f.terms[len(lines)-1] = ""
	}
	f.bom = allowBOM && rapid.Bool().Draw(t, label+"_bom")
	return f
}

// dop is one step of a line diff: keep or delete A[a], or insert text.
type dop struct {
	op   Op
	a    int
	text string
}

func lineDiff(a, b []string) []dop {
	n, m := len(a), len(b)
	dp := make([][]int, n+1)
	for i := range dp {
		dp[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	var out []dop
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, dop{op: Context, a: i, text: a[i]})
			i, j = i+1, j+1
		case j < m && (i == n || dp[i][j+1] >= dp[i+1][j]):
			out = append(out, dop{op: Insert, a: i, text: b[j]})
			j++
		default:
			out = append(out, dop{op: Remove, a: i, text: a[i]})
			i++
		}
	}
	return out
}

// editLines draws B from A by random replacements, deletions and insertions.
func editLines(t *rapid.T, a []string) []string {
	b := slices.Clone(a)
	for k := rapid.IntRange(0, 4).Draw(t, "edits"); k > 0; k-- {
		switch op := rapid.IntRange(0, 2).Draw(t, "edit"); {
		case op == 0 && len(b) > 0:
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b[i] = rapid.SampledFrom(append(propAlphabet, "NEW", "changed line")).Draw(t, "text")
		case op == 1 && len(b) > 0:
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b = slices.Delete(b, i, i+1)
		default:
			i := rapid.IntRange(0, len(b)).Draw(t, "at")
			b = slices.Insert(b, i, rapid.SampledFrom(append(propAlphabet, "NEW", "added")).Draw(t, "text"))
		}
	}
	return b
}

// gChunk is a generated chunk over A: window [aStart, aEnd) and body.
type gChunk struct {
	aStart, aEnd int
	body         []Line
	anchor       string
	eof          bool
	// nonUnique: the old lines also match exactly further down and no anchor picks the
	// window, so the default mode refuses the chunk as ambiguous (the amendment's uniqueness
	// rule).
	nonUnique bool
}

func (c gChunk) old() []string {
	var out []string
	for _, l := range c.body {
		if l.Op != Insert {
			out = append(out, l.Text)
		}
	}
	return out
}

// firstExact is the naive exact first-hit seek.
func firstExact(lines, pat []string, from int) int {
	for p := max(from, 0); p+len(pat) <= len(lines); p++ {
		if slices.Equal(lines[p:p+len(pat)], pat) {
			return p
		}
	}
	return -1
}

// buildChunks groups the diff into chunks with context width w and makes each chunk land at
// its own window under exact first-hit semantics (growing context backwards when needed).
func buildChunks(t *rapid.T, a []string, ops []dop, w int, anchors bool) []gChunk {
	n := len(a)
	var runs [][2]int // op index ranges of change runs
	for i := 0; i < len(ops); {
		if ops[i].op == Context {
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].op != Context {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	var chunks []gChunk
	prevOp := 0 // first op index not yet used as context
	for r := 0; r < len(runs); {
		start := runs[r][0]
		for k := 0; k < w && start > prevOp && ops[start-1].op == Context; k++ {
			start--
		}
		end := runs[r][1]
		r++
		for r < len(runs) && runs[r][0]-end <= 2*w {
			end = runs[r][1]
			r++
		}
		after := w
		nextStart := len(ops)
		if r < len(runs) {
			nextStart = runs[r][0]
		}
		hasOld := false
		for _, o := range ops[start:end] {
			if o.op != Insert {
				hasOld = true
			}
		}
		if !hasOld && end < len(ops) {
			after = max(after, 1)
		}
		for k := 0; k < after && end < nextStart && ops[end].op == Context; k++ {
			end++
		}
		if r < len(runs) && runs[r][0]-end < w {
			// the next chunk's before-context would reach into this one: merge
			end = runs[r][1]
			r++
			for k := 0; k < w && end < len(ops) && ops[end].op == Context; k++ {
				end++
			}
		}
		c := gChunk{}
		first := true
		for _, o := range ops[start:end] {
			if o.op == Insert {
				c.body = append(c.body, Line{Op: Insert, Text: o.text})
				if first {
					c.aStart = o.a
				}
			} else {
				c.body = append(c.body, Line{Op: o.op, Text: o.text})
				if first {
					c.aStart = o.a
				}
			}
			first = false
		}
		c.aEnd = c.aStart + len(c.old())
		prevOp = end
		chunks = append(chunks, c)
	}
	// Make each chunk land where it belongs.
	cursor := 0
	for i := range chunks {
		c := &chunks[i]
		for {
			old := c.old()
			if len(old) == 0 {
				if c.aStart == n {
					break
				}
			} else if firstExact(a, old, cursor) == c.aStart && firstExact(a, old, c.aStart+1) < 0 {
				break
			}
			if c.aStart <= cursor {
				break // cannot happen for old lines; a mid-file insertion always has context
			}
			c.aStart--
			c.body = append([]Line{{Op: Context, Text: a[c.aStart]}}, c.body...)
		}
		old := c.old()
		if len(old) > 0 && c.aEnd == n && rapid.Bool().Draw(t, "eof") {
			c.eof = true
		}
		if anchors && len(old) > 0 && c.aStart > cursor && rapid.Bool().Draw(t, "anchor") {
			j := rapid.IntRange(cursor, c.aStart-1).Draw(t, "anchor_line")
			if strings.TrimSpace(a[j]) != "" && firstExact(a, a[j:j+1], cursor) == j && firstExact(a, old, j+1) == c.aStart {
				c.anchor = a[j]
			}
		}
		if len(old) > 0 && c.anchor == "" && !c.eof && (firstExact(a, old, cursor) != c.aStart || firstExact(a, old, c.aStart+1) >= 0 ||
			cursor > 0 && matchesAbove(a, old, chunks[:i], c.aStart)) {
			c.nonUnique = true
		}
		if len(old) > 0 {
			cursor = c.aEnd
		}
	}
	return chunks
}

// matchesAbove reports whether old also matches exactly at a place other than at that does
// not overlap the windows of the chunks before (which the default mode counts, because chunks
// may come out of order).
func matchesAbove(a, old []string, before []gChunk, at int) bool {
	for p := 0; p+len(old) <= len(a); p++ {
		if p == at || !slices.Equal(a[p:p+len(old)], old) {
			continue
		}
		overlap := false
		for _, b := range before {
			if len(b.old()) > 0 && p < b.aEnd && b.aStart < p+len(old) {
				overlap = true
			}
		}
		if !overlap {
			return true
		}
	}
	return false
}

func chunksPatch(path string, cs []gChunk) *Patch {
	h := Hunk{Kind: UpdateFile, Path: path}
	for _, c := range cs {
		ch := Chunk{Lines: c.body, EOF: c.eof}
		if c.anchor != "" {
			ch.Anchors = []string{c.anchor}
		}
		h.Chunks = append(h.Chunks, ch)
	}
	return &Patch{Hunks: []Hunk{h}}
}

// expectedDefault computes B's bytes per R41 straight from the diff: kept lines keep their
// bytes, inserted lines get A's dominant terminator, A's final-newline state and BOM.
func expectedDefault(a gFile, ops []dop) []byte {
	d := &doc{lines: a.lines, terms: a.terms}
	for _, t := range a.terms {
		if t != "" {
			d.firstBreak = t
			break
		}
	}
	dom := d.dominant()
	var ls, ts []string
	for _, o := range ops {
		switch o.op {
		case Context:
			ls, ts = append(ls, a.lines[o.a]), append(ts, a.terms[o.a])
		case Insert:
			ls, ts = append(ls, o.text), append(ts, dom)
		}
	}
	for i := 0; i+1 < len(ts); i++ {
		if ts[i] == "" {
			ts[i] = dom
		}
	}
	final := len(a.terms) == 0 || a.terms[len(a.terms)-1] != ""
	if k := len(ts); k > 0 {
		switch {
		case final || ls[k-1] == "": // an empty last line keeps a terminator
			if ts[k-1] == "" {
				ts[k-1] = dom
			}
		default:
			ts[k-1] = ""
		}
	}
	return gFile{lines: ls, terms: ts, bom: a.bom}.bytes()
}

// diffCase draws A, B and a patch from their diff.
type diffCase struct {
	a     gFile
	ops   []dop
	p     *Patch
	style int
	cs    []gChunk
}

// legitRefusal reports whether err is a refusal the amendment requires for this case and
// nothing was written: KindAmbiguous when a chunk's old lines are not unique without an
// anchor, KindAlreadyApplied when a chunk without removed lines has its added text already in
// the file (the test's own naive check: its new side occurs in A).
func (c diffCase) legitRefusal(err error, unchanged bool) bool {
	if !unchanged {
		return false
	}
	switch {
	case errors.Is(err, ErrAmbiguous):
		return slices.ContainsFunc(c.cs, func(g gChunk) bool { return g.nonUnique })
	case errors.Is(err, ErrAlreadyApplied):
		for _, ch := range c.p.Hunks[0].Chunks {
			if slices.ContainsFunc(ch.Lines, func(l Line) bool { return l.Op == Remove }) {
				continue
			}
			if _, ps := naiveLevel(c.a.lines, ch.New(), 0, false); len(ps) > 0 {
				return true
			}
		}
	}
	return false
}

func genDiffCase(t *rapid.T, allowBOM, anchors bool) diffCase {
	style := rapid.IntRange(0, 2).Draw(t, "style")
	a := genFile(t, "a", style, allowBOM)
	b := editLines(t, a.lines)
	ops := lineDiff(a.lines, b)
	w := rapid.IntRange(0, 3).Draw(t, "context")
	cs := buildChunks(t, a.lines, ops, w, anchors)
	if len(cs) == 0 {
		// no change: a no-op chunk of pure context keeps the patch non-empty
		cs = []gChunk{{aStart: 0, body: []Line{{Op: Insert, Text: "tail"}}}}
		cs[0].aStart = len(a.lines)
		ops = append(slices.Clone(ops), dop{op: Insert, a: len(a.lines), text: "tail"})
	}
	return diffCase{a: a, ops: ops, p: chunksPatch("f.txt", cs), style: style, cs: cs}
}

// fataler is what the helpers need from *testing.T and *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Helper()
}

func propApplier(t fataler, files map[string][]byte, opts ...Option) (*wfs.MemFS, *Applier) {
	m := wfs.NewMemFS()
	if err := m.MkdirAll(itRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range files {
		p := filepath.Join(itRoot, k)
		if err := m.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(p, v, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := New(m, itRoot, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m, a
}

func readMem(m *wfs.MemFS, rel string) string {
	b, err := m.ReadFile(filepath.Join(itRoot, rel))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Property 4 (diff soundness) and 6 (fidelity).
func propDiffSound(t *rapid.T) {
	c := genDiffCase(t, true, true)
	text := Format(c.p)
	m, a := propApplier(t, map[string][]byte{"f.txt": c.a.bytes()})
	if _, err := a.Apply(context.Background(), text); err != nil {
		if c.legitRefusal(err, readMem(m, "f.txt") == string(c.a.bytes())) {
			return
		}
		t.Fatalf("Apply: %v\nfile %q\npatch:\n%s", err, c.a.bytes(), text)
	}
	if got, want := readMem(m, "f.txt"), string(expectedDefault(c.a, c.ops)); got != want {
		t.Fatalf("got %q, want %q\nfile %q\npatch:\n%s", got, want, c.a.bytes(), text)
	}
}

// lookalike perturbs s with mapping-table look-alikes and trailing whitespace.
func lookalike(t *rapid.T, s string) string {
	r := strings.NewReplacer("-", "\u2013", `"`, "\u201c", "'", "\u2019", " ", "\u00a0")
	if rapid.Bool().Draw(t, "map") {
		s = r.Replace(s)
	}
	if rapid.Bool().Draw(t, "trail") {
		s += rapid.SampledFrom([]string{" ", "\t", "  "}).Draw(t, "ws")
	}
	return s
}

// naiveLevel is the test's own locator: the first level with a match from cursor, and how
// many windows match there.
func naiveLevel(lines, pat []string, cursor int, eof bool) (Level, []int) {
	for l := LevelExact; l <= LevelUnicodeTrim; l++ {
		var ps []int
		for p := max(cursor, 0); p+len(pat) <= len(lines); p++ {
			if eof && p != len(lines)-len(pat) {
				continue
			}
			ok := true
			for i := range pat {
				if place.Normalize(place.Level(l), pat[i]) != place.Normalize(place.Level(l), lines[p+i]) {
					ok = false
					break
				}
			}
			if ok {
				ps = append(ps, p)
				if l == LevelExact {
					return l, ps
				}
			}
		}
		if len(ps) > 0 {
			return l, ps
		}
	}
	return 0, nil
}

// drift perturbs the pattern side of every chunk, keeping a perturbation only when the naive
// locator still finds exactly the intended window at its first matching level.
func drift(t *rapid.T, a gFile, p *Patch) *Patch {
	out := &Patch{Hunks: []Hunk{p.Hunks[0]}}
	h := &out.Hunks[0]
	h.Chunks = slices.Clone(h.Chunks)
	cursor := 0
	for k := range h.Chunks {
		ch := &h.Chunks[k]
		orig := ch.Lines
		old := ch.Old()
		if len(ch.Anchors) > 0 {
			cursor = firstExact(a.lines, ch.Anchors, cursor) + 1
		}
		want := firstExact(a.lines, old, cursor)
		if ch.EOF {
			want = len(a.lines) - len(old)
		}
		if len(old) > 0 {
			nl := slices.Clone(orig)
			for i := range nl {
				if nl[i].Op != Insert {
					nl[i].Text = lookalike(t, nl[i].Text)
				}
			}
			ch.Lines = nl
			_, ps := naiveLevel(a.lines, ch.Old(), cursor, ch.EOF)
			if len(ps) != 1 || ps[0] != want || (a.bom && want == 0) {
				ch.Lines = orig
			}
			cursor = want + len(old)
		}
	}
	return out
}

// Property 5 (drift tolerance).
func propDrift(t *rapid.T) {
	c := genDiffCase(t, true, false)
	dp := drift(t, c.a, c.p)
	text := Format(dp)
	m, a := propApplier(t, map[string][]byte{"f.txt": c.a.bytes()})
	res, err := a.Apply(context.Background(), text)
	if err != nil {
		if c.legitRefusal(err, readMem(m, "f.txt") == string(c.a.bytes())) {
			return
		}
		t.Fatalf("Apply: %v\nfile %q\npatch:\n%s", err, c.a.bytes(), text)
	}
	// Property 18 on every chunk of the drift property, rescued or not.
	checkRemovalSound(t, dp, res.Report, c.a.bytes(), []byte(readMem(m, "f.txt")))
	if got, want := readMem(m, "f.txt"), string(expectedDefault(c.a, c.ops)); got != want {
		t.Fatalf("got %q, want %q\nfile %q\npatch:\n%s", got, want, c.a.bytes(), text)
	}
}

// Property 8 (ambiguity never applies).
func propAmbiguous(t *rapid.T) {
	block := rapid.SliceOfN(rapid.SampledFrom(propAlphabet), 1, 3).Draw(t, "block")
	var lines []string
	lines = append(lines, rapid.SliceOfN(rapid.SampledFrom(propAlphabet), 0, 3).Draw(t, "pre")...)
	lines = append(lines, block...)
	lines = append(lines, rapid.SliceOfN(rapid.SampledFrom(propAlphabet), 0, 3).Draw(t, "mid")...)
	for _, l := range block {
		lines = append(lines, lookalike(t, l))
	}
	pat := make([]string, len(block))
	for i, l := range block {
		pat[i] = lookalike(t, l)
	}
	file := strings.Join(lines, "\n") + "\n"
	var body []Line
	for _, l := range pat {
		body = append(body, Line{Op: Remove, Text: l})
	}
	body = append(body, Line{Op: Insert, Text: "REPLACED"})
	lvl, ps := naiveLevel(lines, pat, 0, false)
	if lvl == LevelExact || len(ps) < 2 {
		t.Skip("not ambiguous at the first matching loose level")
	}
	text := Format(&Patch{Hunks: []Hunk{{Kind: UpdateFile, Path: "f.txt", Chunks: []Chunk{{Lines: body}}}}})
	m, a := propApplier(t, map[string][]byte{"f.txt": []byte(file)})
	_, err := a.Apply(context.Background(), text)
	if !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("err = %v, want Ambiguous (level %v, %d places)\nfile %q\n%s", err, lvl, len(ps), file, text)
	}
	if readMem(m, "f.txt") != file {
		t.Fatalf("file changed")
	}
}

// multiCase draws a small tree and a multi-section patch over it (adds, updates, deletes,
// moves), valid in the default mode.
func genMultiCase(t *rapid.T) (map[string][]byte, string) {
	files := map[string][]byte{}
	names := []string{"a.txt", "b.txt", "d/c.txt", "d/e/f.txt"}
	for _, n := range names {
		if rapid.Bool().Draw(t, "has_"+n) {
			files[n] = []byte(strings.Join(rapid.SliceOfN(rapid.SampledFrom([]string{"one", "two", "three", "four"}), 1, 4).Draw(t, "lines_"+n), "\n") + "\n")
		}
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	used := map[string]bool{}
	for _, n := range names {
		content, ok := files[n]
		switch op := rapid.IntRange(0, 3).Draw(t, "op_"+n); {
		case !ok && op > 0:
			fmt.Fprintf(&b, "*** Add File: new/%s\n+added %s\n", n, n)
		case ok && op == 1:
			fmt.Fprintf(&b, "*** Delete File: %s\n", n)
		case ok && op >= 2:
			lines := strings.Split(strings.TrimSuffix(string(content), "\n"), "\n")
			fmt.Fprintf(&b, "*** Update File: %s\n", n)
			if op == 3 && !used["moved/"+n] {
				fmt.Fprintf(&b, "*** Move to: moved/%s\n", n)
				used["moved/"+n] = true
			}
			// The whole file as the chunk, pinned to its end: unique wherever lines repeat.
			fmt.Fprintf(&b, "@@\n-%s\n+%s!\n", lines[0], lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, " %s\n", l)
			}
			b.WriteString("*** End of File\n")
		}
	}
	b.WriteString("*** Add File: always.txt\n+x\n*** End Patch\n")
	return files, b.String()
}

// Property 9 (all-or-nothing under injected faults) and 10 (plan purity).
func propAllOrNothing(t *rapid.T) {
	files, text := genMultiCase(t)
	ref, ra := propApplier(t, files)
	if _, err := ra.Apply(context.Background(), text); err != nil {
		t.Fatalf("reference Apply: %v\n%s", err, text)
	}
	want := ref.TreeUnder(itRoot)

	m, a := propApplier(t, files, withRandom(bytes.NewReader(bytes.Repeat([]byte{7, 1, 2, 3}, 1000))))
	before := m.TreeUnder(itRoot)
	m.ResetCalls()
	pl1, err := a.Plan(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	pl2, _ := a.Plan(context.Background(), text)
	if len(m.Calls()) != 0 {
		t.Fatalf("Plan made mutating calls: %v", m.Calls())
	}
	if fmt.Sprint(pl1.Changes, pl1.Report) != fmt.Sprint(pl2.Changes, pl2.Report) {
		t.Fatalf("two plans differ")
	}
	k := rapid.IntRange(1, 40).Draw(t, "fault_at")
	count := 0
	m.InjectFault(func(op, name string) bool { count++; return count == k }, errors.New("injected"))
	_, err = a.Commit(context.Background(), pl1)
	if err != nil {
		if d := wfsDiff(before, m.TreeUnder(itRoot)); d != "" {
			t.Fatalf("fault at call %d (%v): tree not restored:\n%s", k, err, d)
		}
		return
	}
	// A fault after the last switch (a clean-up step) does not undo the commit; what it left
	// is the journal's, and the next recovery removes it.
	if _, err := wfs.Recover(context.Background(), m, itRoot); err != nil {
		t.Fatalf("fault at call %d after the switch: Recover: %v", k, err)
	}
	if d := wfsDiff(want, m.TreeUnder(itRoot)); d != "" {
		t.Fatalf("commit succeeded (fault at call %d, if it hit, came after the switch): tree after recovery differs from the reference:\n%s", k, d)
	}
}

func wfsDiff(a, b map[string]wfs.Entry) string {
	var out []string
	for k, e := range a {
		f, ok := b[k]
		if !ok || e.Dir != f.Dir || e.Symlink != f.Symlink || !bytes.Equal(e.Data, f.Data) || e.Mode != f.Mode {
			out = append(out, fmt.Sprintf("%s: %+v → %+v", k, e, f))
		}
	}
	for k, f := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("extra %s: %+v", k, f))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// Property 7 (containment).
func propContainment(t *rapid.T) {
	m := wfs.NewMemFS()
	_ = m.MkdirAll(itRoot+"/in", 0o755)
	_ = m.MkdirAll(testenv.Abs("/w/outside"), 0o755)
	_ = m.WriteFile(itRoot+"/in/a.txt", []byte("a\n"), 0o644)
	_ = m.WriteFile(testenv.Abs("/w/outside/o.txt"), []byte("o\n"), 0o644)
	_ = m.Symlink(testenv.Abs("/w/outside"), itRoot+"/out")
	_ = m.Symlink("in", itRoot+"/inlink")
	_ = m.Symlink("../outside/o.txt", itRoot+"/olink")
	paths := []string{"in/a.txt", "inlink/a.txt", "out/o.txt", "out/new.txt", "olink", "../outside/o.txt",
		"/w/outside/x.txt", itRoot + "/in/b.txt", "..cache/c.txt", "in/../../root/in/a.txt", "in/../../outside/z.txt",
		"/w/rootx/y.txt"}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	n := rapid.IntRange(1, 3).Draw(t, "n")
	for i := 0; i < n; i++ {
		p := rapid.SampledFrom(paths).Draw(t, "path")
		switch rapid.IntRange(0, 2).Draw(t, "op") {
		case 0:
			fmt.Fprintf(&b, "*** Add File: %s\n+x\n", p)
		case 1:
			fmt.Fprintf(&b, "*** Delete File: %s\n", p)
		default:
			fmt.Fprintf(&b, "*** Update File: %s\n@@\n+x\n", p)
		}
	}
	b.WriteString("*** End Patch\n")
	a, err := New(m, itRoot, WithOverwrite(true))
	if err != nil {
		t.Fatal(err)
	}
	m.ResetCalls()
	_, err = a.Apply(context.Background(), b.String())
	calls := m.Calls()
	if errors.Is(err, ErrBlocked) && len(calls) != 0 {
		t.Fatalf("blocked patch made calls: %v", calls)
	}
	for _, c := range calls {
		for _, name := range []string{c.Name, c.Name2} {
			if name != "" && name != itRoot && !strings.HasPrefix(name, itRoot+string(filepath.Separator)) {
				t.Fatalf("mutating call outside the root: %+v\n%s", c, b.String())
			}
		}
	}
}

// Property 11 (backend equivalence).
func propBackends(t *rapid.T) {
	files, text := genMultiCase(t)
	m, a := propApplier(t, files)
	res1, err1 := a.Apply(context.Background(), text)
	dir, err := os.MkdirTemp("", "patchprop")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	root, _ := filepath.EvalSymlinks(dir)
	for k, v := range files {
		p := filepath.Join(root, k)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, v, 0o644)
	}
	o, err := wfs.NewOSFS(root)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	b, _ := New(o, root)
	res2, err2 := b.Apply(context.Background(), text)
	if fmt.Sprint(err1) != fmt.Sprint(err2) {
		t.Fatalf("errors differ: %v vs %v", err1, err2)
	}
	if err1 == nil && (res1.Summary != res2.Summary || fmt.Sprint(res1.Report) != fmt.Sprint(res2.Report)) {
		t.Fatalf("results differ: %+v vs %+v", res1, res2)
	}
	memTree := m.TreeUnder(itRoot)
	osTree, err := wfs.ReadTree(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []map[string]wfs.Entry{memTree, osTree} {
		for k, e := range tr {
			e.Mode = 0 // umask differs between backends
			tr[k] = e
		}
	}
	if d := wfsDiff(memTree, osTree); d != "" {
		t.Fatalf("trees differ:\n%s", d)
	}
}

// Property 12 (Codex agreement on exact input) and 13 (Rewrite soundness).
func propCodexAgreement(t *rapid.T) {
	c := genDiffCase(t, false, true)
	if c.style == 2 {
		c.style = 0
		for i, term := range c.a.terms {
			if term != "" {
				c.a.terms[i] = "\n"
			}
		}
	}
	p := c.p
	if rapid.Bool().Draw(t, "drifted") {
		p = drift(t, c.a, p)
	}
	text := Format(p)
	files := map[string][]byte{"f.txt": c.a.bytes()}
	m, ca := propApplier(t, files, WithCodexCompat())
	if _, err := ca.Apply(context.Background(), text); err != nil {
		t.Fatalf("compat Apply: %v", err)
	}
	compat := readMem(m, "f.txt")
	tree := codexTree{"f.txt": c.a.bytes()}
	if err := codexApply(tree, text); err == nil && !slices.ContainsFunc(p.Hunks[0].Chunks, func(ch Chunk) bool { return len(ch.Anchors) > 0 }) {
		// Exact input without anchors: the model on the original text agrees (property 12).
		if !isDrifted(p, c.p) && string(tree["f.txt"]) != compat {
			t.Fatalf("Codex model %q, compat Apply %q\n%s", tree["f.txt"], compat, text)
		}
	}
	_, a := propApplier(t, files)
	rw, err := a.Rewrite(context.Background(), text)
	if err != nil {
		if c.legitRefusal(err, true) {
			return // planning refused: Rewrite promises nothing
		}
		t.Fatalf("Rewrite: %v", err)
	}
	tree = codexTree{"f.txt": c.a.bytes()}
	if err := codexApply(tree, rw.Text); err != nil {
		t.Fatalf("Codex model on the rewrite: %v\n%s", err, rw.Text)
	}
	if string(tree["f.txt"]) != compat {
		t.Fatalf("Codex(Rewrite) %q, compat Apply %q\nfile %q\npatch:\n%s\nrewrite:\n%s", tree["f.txt"], compat, c.a.bytes(), text, rw.Text)
	}
	m1, a1 := propApplier(t, files)
	m2, a2 := propApplier(t, files)
	_, e1 := a1.Apply(context.Background(), text)
	_, e2 := a2.Apply(context.Background(), rw.Text)
	if e1 != nil || e2 != nil || readMem(m1, "f.txt") != readMem(m2, "f.txt") {
		t.Fatalf("Apply(P) %q (%v) vs Apply(Rewrite(P)) %q (%v)", readMem(m1, "f.txt"), e1, readMem(m2, "f.txt"), e2)
	}
	_, a3 := propApplier(t, files)
	rw2, err := a3.Rewrite(context.Background(), rw.Text)
	if err != nil || rw2.Changed {
		t.Fatalf("Rewrite of the rewrite: changed=%v err=%v\n%s\n→\n%s", rw2 != nil && rw2.Changed, err, rw.Text, rw2.Text)
	}
}

func isDrifted(a, b *Patch) bool { return !Equal(a, b) }

// Property 15 (concurrency detection).
func propChanged(t *rapid.T) {
	c := genDiffCase(t, true, false)
	data := c.a.bytes()
	m, a := propApplier(t, map[string][]byte{"f.txt": data})
	pl, err := a.PlanPatch(context.Background(), c.p)
	if err != nil {
		if c.legitRefusal(err, true) {
			t.Skip("refused as the amendment requires")
		}
		t.Fatal(err)
	}
	changed := append(slices.Clone(data), rapid.SampledFrom([]string{"x", "\n", " ", "\r\n"}).Draw(t, "extra")...)
	if i := rapid.IntRange(0, len(changed)-1).Draw(t, "flip"); rapid.Bool().Draw(t, "flip_byte") {
		changed[i] ^= 0x20
	}
	if bytes.Equal(changed, data) {
		t.Skip("no change")
	}
	_ = m.WriteFile(filepath.Join(itRoot, "f.txt"), changed, 0o644)
	_, err = a.Commit(context.Background(), pl)
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v, want Changed", err)
	}
	if readMem(m, "f.txt") != string(changed) {
		t.Fatalf("the concurrent change was lost")
	}
}

// Property 16 (no-op).
func propNoop(t *rapid.T) {
	a0 := genFile(t, "a", rapid.IntRange(0, 2).Draw(t, "style"), true)
	if len(a0.lines) == 0 {
		t.Skip("empty file")
	}
	i := rapid.IntRange(0, len(a0.lines)-1).Draw(t, "at")
	j := rapid.IntRange(i, min(i+2, len(a0.lines)-1)).Draw(t, "to")
	var body []Line
	for _, l := range a0.lines[i : j+1] {
		body = append(body, Line{Op: Context, Text: lookalike(t, l)})
	}
	text := Format(&Patch{Hunks: []Hunk{{Kind: UpdateFile, Path: "f.txt", Chunks: []Chunk{{Lines: body}}}}})
	m, a := propApplier(t, map[string][]byte{"f.txt": a0.bytes()})
	if _, err := a.Apply(context.Background(), text); err != nil {
		if errors.Is(err, ErrAmbiguous) || errors.Is(err, ErrNotFound) {
			return
		}
		t.Fatal(err)
	}
	if readMem(m, "f.txt") != string(a0.bytes()) {
		t.Fatalf("no-op patch changed %q into %q", a0.bytes(), readMem(m, "f.txt"))
	}
}

// Property 14 (rescue bounds) and 17 (monotone tolerance).
func propRescueAndTolerance(t *rapid.T) {
	c := genDiffCase(t, false, false)
	p := drift(t, c.a, c.p)
	// Sometimes make one removed line stale, to exercise the rescues.
	if rapid.Bool().Draw(t, "stale") {
		ch := &p.Hunks[0].Chunks[0]
		for i := range ch.Lines {
			if ch.Lines[i].Op == Remove {
				ch.Lines[i].Text = "stale text"
				break
			}
		}
	}
	text := Format(p)
	files := map[string][]byte{"f.txt": c.a.bytes()}
	_, full := propApplier(t, files)
	plFull, errFull := full.Plan(context.Background(), text)
	cap := Level(rapid.IntRange(0, int(LevelUnicodeTrim)).Draw(t, "cap"))
	_, capped := propApplier(t, files, rescue(func(r *RescueOptions) { r.MaxTolerance = cap }))
	plCap, errCap := capped.Plan(context.Background(), text)
	if errCap == nil && errFull != nil {
		t.Fatalf("capped at %v succeeded, full ladder failed: %v", cap, errFull)
	}
	if errFull == nil {
		// Property 18 replaces the span bound that could never fail: every removed line is
		// a line the patch names, equal at a ladder level.
		checkRemovalSound(t, p, plFull.Report, c.a.bytes(), plFull.Changes[0].After)
		allAllowed := true
		for _, r := range plFull.Report {
			if lvl, ok := strategyLevel(r.Strategy); !ok || lvl > cap || r.AnchorLevel > cap {
				allAllowed = false
			}
		}
		if allAllowed && (errCap != nil || fmt.Sprint(plCap.Report) != fmt.Sprint(plFull.Report)) {
			t.Fatalf("capped at %v: %v / %+v, full: %+v", cap, errCap, plCap, plFull.Report)
		}
		// A rescue never fires when the naive ladder matches or is ambiguous from the
		// chunk's cursor (the end of the windows placed before it), for every chunk.
		d := parseDoc(c.a.bytes(), false)
		cursor := 0
		for k, r := range plFull.Report {
			ch := p.Hunks[0].Chunks[k]
			if r.Strategy == StrategyPrefixSuffix || r.Strategy == StrategyLCS {
				if _, ps := naiveLevel(d.lines, ch.Old(), cursor, ch.EOF); len(ps) > 0 {
					t.Fatalf("chunk %d rescued although the ladder matches at %v from line %d", k+1, ps, cursor+1)
				}
			}
			if r.Len > 0 {
				cursor = max(cursor, r.Start-1+r.Len)
			}
		}
	}
}

func strategyLevel(s Strategy) (Level, bool) {
	for l := LevelExact; l <= LevelUnicodeTrim; l++ {
		if string(s) == l.String() {
			return l, true
		}
	}
	return 0, s == StrategyAppend || s == StrategyAnchor
}

func TestApplyProperties(t *testing.T) {
	t.Run("P4_P6_diff_soundness_and_fidelity", rapid.MakeCheck(propDiffSound))
	t.Run("P5_drift_tolerance", rapid.MakeCheck(propDrift))
	t.Run("P7_containment", rapid.MakeCheck(propContainment))
	t.Run("P8_ambiguity_never_applies", rapid.MakeCheck(propAmbiguous))
	t.Run("P9_P10_all_or_nothing_and_plan_purity", rapid.MakeCheck(propAllOrNothing))
	t.Run("P11_backend_equivalence", rapid.MakeCheck(propBackends))
	t.Run("P12_P13_codex_agreement_and_rewrite", rapid.MakeCheck(propCodexAgreement))
	t.Run("P14_P17_rescue_bounds_and_monotone_tolerance", rapid.MakeCheck(propRescueAndTolerance))
	t.Run("P15_concurrency_detection", rapid.MakeCheck(propChanged))
	t.Run("P16_noop", rapid.MakeCheck(propNoop))
}

// applyMachine is a rapid state machine: a MemFS tree under an Applier against a plain map of
// file contents; every action builds a patch from the model, applies it to both (the model
// with naive string operations), and the invariant compares them.
type applyMachine struct {
	m     *wfs.MemFS
	a     *Applier
	model map[string]string // slash path → content
	moves int
}

func (sm *applyMachine) Check(t *rapid.T) {
	got := map[string]string{}
	for rel, e := range sm.m.TreeUnder(itRoot) {
		if !e.Dir {
			got[rel] = string(e.Data)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(sm.model) {
		t.Fatalf("tree %q, model %q", got, sm.model)
	}
}

func (sm *applyMachine) apply(t *rapid.T, text string) {
	if _, err := sm.a.Apply(context.Background(), text); err != nil {
		t.Fatalf("Apply: %v\n%s", err, text)
	}
}

func (sm *applyMachine) names() []string {
	var out []string
	for k := range sm.model {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (sm *applyMachine) Add(t *rapid.T) {
	name := rapid.SampledFrom([]string{"a.txt", "b.txt", "d/c.txt", "d/e/f.txt"}).Draw(t, "name")
	if _, ok := sm.model[name]; ok {
		t.Skip("exists")
	}
	lines := rapid.SliceOfN(rapid.SampledFrom(propAlphabet), 0, 5).Draw(t, "lines")
	var body strings.Builder
	for _, l := range lines {
		body.WriteString("+" + l + "\n")
	}
	sm.apply(t, "*** Begin Patch\n*** Add File: "+name+"\n"+body.String()+"*** End Patch\n")
	content := ""
	for _, l := range lines {
		content += l + "\n"
	}
	sm.model[name] = content
}

func (sm *applyMachine) Update(t *rapid.T) {
	names := sm.names()
	if len(names) == 0 {
		t.Skip("no files")
	}
	name := rapid.SampledFrom(names).Draw(t, "name")
	lines := strings.SplitAfter(sm.model[name], "\n")
	lines = lines[:len(lines)-1] // every model file ends with "\n" or is empty
	i := rapid.IntRange(0, len(lines)).Draw(t, "at")
	repl := rapid.SampledFrom([]string{"NEW", "changed", "alpha"}).Draw(t, "text")
	// Context: the whole file, so the window is unique (a removed line is replaced, or the
	// new line is added at the end).
	var body strings.Builder
	for _, l := range lines[:i] {
		body.WriteString(" " + strings.TrimSuffix(l, "\n") + "\n")
	}
	var out []string
	out = append(out, lines[:i]...)
	if i < len(lines) {
		body.WriteString("-" + strings.TrimSuffix(lines[i], "\n") + "\n")
		out = append(out, repl+"\n")
		out = append(out, lines[i+1:]...)
	} else {
		out = append(out, repl+"\n")
	}
	body.WriteString("+" + repl + "\n")
	if i < len(lines) {
		for _, l := range lines[i+1:] {
			body.WriteString(" " + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	sm.apply(t, "*** Begin Patch\n*** Update File: "+name+"\n@@\n"+body.String()+"*** End Patch\n")
	sm.model[name] = strings.Join(out, "")
}

func (sm *applyMachine) Move(t *rapid.T) {
	names := sm.names()
	if len(names) == 0 {
		t.Skip("no files")
	}
	from := rapid.SampledFrom(names).Draw(t, "from")
	to := rapid.SampledFrom([]string{"m/a.txt", "m/n/b.txt", "z.txt"}).Draw(t, "to")
	if _, ok := sm.model[to]; ok || to == from {
		t.Skip("destination exists")
	}
	// A numbered line: appending the same text twice would be refused as already applied.
	sm.moves++
	line := fmt.Sprintf("moved %d", sm.moves)
	sm.apply(t, "*** Begin Patch\n*** Update File: "+from+"\n*** Move to: "+to+"\n@@\n+"+line+"\n*** End Patch\n")
	sm.model[to] = sm.model[from] + line + "\n"
	delete(sm.model, from)
}

func (sm *applyMachine) Delete(t *rapid.T) {
	names := sm.names()
	if len(names) == 0 {
		t.Skip("no files")
	}
	name := rapid.SampledFrom(names).Draw(t, "name")
	sm.apply(t, "*** Begin Patch\n*** Delete File: "+name+"\n*** End Patch\n")
	delete(sm.model, name)
}

func TestApplyStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m, a := propApplier(t, nil)
		sm := &applyMachine{m: m, a: a, model: map[string]string{}}
		t.Repeat(rapid.StateMachineActions(sm))
	})
}

// Property 13 with WithMergeRepeated: two sections on one file (A→B1, B1→B2), rewritten
// into one section, applied by the Codex model, equal Apply in compat mode.
func propMergeRewrite(t *rapid.T) {
	a := genFile(t, "a", 0, false)
	b1 := editLines(t, a.lines)
	b2 := editLines(t, b1)
	w := rapid.IntRange(0, 2).Draw(t, "context")
	c1 := buildChunks(t, a.lines, lineDiff(a.lines, b1), w, false)
	c2 := buildChunks(t, b1, lineDiff(b1, b2), w, false)
	if len(c1) == 0 || len(c2) == 0 {
		t.Skip("a section without changes")
	}
	p := &Patch{Hunks: []Hunk{chunksPatch("f.txt", c1).Hunks[0], chunksPatch("f.txt", c2).Hunks[0]}}
	text := Format(p)
	files := map[string][]byte{"f.txt": a.bytes()}
	m, ca := propApplier(t, files, WithCodexCompat())
	if _, err := ca.Apply(context.Background(), text); err != nil {
		t.Skipf("compat Apply refused: %v", err) // e.g. the intermediate file lost its last empty line
	}
	_, ra := propApplier(t, files, WithMergeRepeated(true), WithCodexCompat())
	rw, err := ra.Rewrite(context.Background(), text)
	if err != nil {
		t.Fatalf("Rewrite: %v", err)
	}
	if strings.Count(rw.Text, "*** Update File:") != 1 {
		t.Fatalf("not merged:\n%s", rw.Text)
	}
	tree := codexTree{"f.txt": a.bytes()}
	if err := codexApply(tree, rw.Text); err != nil {
		t.Fatalf("Codex model on the merged rewrite: %v\n%s", err, rw.Text)
	}
	if got := readMem(m, "f.txt"); string(tree["f.txt"]) != got {
		t.Fatalf("Codex(merged Rewrite) %q, compat Apply %q\npatch:\n%s\nrewrite:\n%s", tree["f.txt"], got, text, rw.Text)
	}
}

func TestMergeRewriteProperty(t *testing.T) {
	rapid.Check(t, propMergeRewrite)
}
