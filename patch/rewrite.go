package patch

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/harnesskit/harnesskit/internal/udiff"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// Rewritten is the outcome of [Applier.Rewrite].
type Rewritten struct {
	Text          string // patch text for a strict (Codex-like) applier
	Changed       bool   // false: Text is the input, byte for byte
	PassedThrough bool   // PassThrough policy and an outside path: Text is the input
	Outside       []string
	Report        []ChunkReport
}

// Rewrite plans text exactly like [Applier.Apply] (same options, same errors) but writes
// nothing: it returns patch text that Codex's applier, run on the same tree, turns into the
// same result as Apply in Codex-compatibility mode. A chunk is kept as authored when Codex
// would pick the same window and produce the same lines; every other chunk (loose match,
// rescue, anchored insertion, stacked anchors, trailing-blank retry) is re-rendered under a
// bare "@@" with its context and removed lines taken from the file's bytes and its added
// lines as authored, with more context prepended until Codex's first-match seek lands on the
// planned window. Each rendered section is then checked against a model of Codex's applier
// (its first-match seek from a cursor, its end-of-file rule, its trailing-blank retry); when
// the model would not reach the planned lines, the section is rendered as the minimal line
// difference instead, or as one chunk that replaces the whole file. Absolute paths inside the
// bases are rendered relative to the root ([WithRelativePaths]).
//
// Changed is false, and Text the input byte for byte, when the input is already canonical
// ([Format] of its parse, ignoring one final newline) and nothing had to be re-rendered.
//
// Known limit: a Codex-like host always ends an updated file with a line break and gives
// inserted lines the first line break's style, so the final-newline state, a BOM on a
// replaced first line and the terminators of mixed-ending files are only kept by Apply.
//
// Errors: those of [Applier.PlanPatch].
func (a *Applier) Rewrite(ctx context.Context, text string) (*Rewritten, error) {
	p, err := Parse(text)
	if err != nil {
		return nil, err
	}
	paths, parents, outside, err := a.admit(p)
	if err != nil {
		return nil, err
	}
	if outside != nil {
		return &Rewritten{Text: text, PassedThrough: true, Outside: outside}, nil
	}
	pl := a.newPlanner(ctx, paths, parents)
	out := &Patch{Hunks: make([]Hunk, len(p.Hunks))}
	bases := make([][]byte, len(p.Hunks)) // Update sections: the file before the section
	for i := range p.Hunks {
		h := &p.Hunks[i]
		var chunks []Chunk
		pl.onSection = func(base []byte, d *doc, places []place.Placement, reps []ChunkReport) {
			bases[i] = base // the planner's own read: Rewrite never reads a file itself
			chunks = renderSection(d, h, places, reps)
		}
		if err := pl.hunk(h, i+1); err != nil {
			return nil, err
		}
		nh := *h
		nh.Line = 0
		nh.Path = a.renderPath(paths[h.Path])
		if h.MoveTo != "" {
			nh.MoveTo = a.renderPath(paths[h.MoveTo])
			src, dst := paths[h.Path].real, paths[h.MoveTo].real
			if src == dst || pl.sameFile(src, dst) {
				nh.MoveTo = "" // a move onto itself is an in-place update; Codex would delete the file
			}
		}
		if h.Kind == UpdateFile {
			nh.Chunks = chunks
		}
		out.Hunks[i] = nh
	}
	res := &Rewritten{Report: pl.report}
	merged := false
	if a.cfg.mergeRepeated {
		out, merged = mergeRepeated(p, out, paths, bases)
	}
	canon := Format(p)
	rendered := Format(out)
	if !merged && rendered == canon && (text == canon || text+"\n" == canon || text == canon+"\n") {
		res.Text = text
		return res, nil
	}
	res.Text, res.Changed = rendered, true
	return res, nil
}

// renderPath renders a checked path for the host: absolute paths inside the bases relative to
// the root, with '/' separators.
func (a *Applier) renderPath(r resolved) string {
	if a.cfg.relPaths && rooted(r.raw) && r.rel != "" {
		return r.rel
	}
	return r.raw
}

// renderSection renders the chunks of one section for a Codex-like host: each chunk is
// kept as authored when it is eligible and Codex's model picks the same window, else rendered
// from the file's bytes, with context prepended until Codex's first-match seek lands on our
// window. The result is in file order. The whole section is then checked with Codex's model;
// when the model does not reach the planned lines with it, the section is rendered as the
// minimal line difference instead, or, failing that, as one whole-file chunk.
func renderSection(d *doc, h *Hunk, places []place.Placement, reps []ChunkReport) []Chunk {
	lines := make([]string, len(d.lines))
	for i := range lines {
		lines[i] = docLine(d, i)
	}
	want := plannedLines(lines, places)
	if out := renderChunks(lines, h, places, reps); codexReaches(lines, out, want) {
		return out
	}
	if out := minimalLineChunks(lines, want); codexReaches(lines, out, want) {
		return out
	}
	return wholeLineChunk(lines, want)
}

// plannedLines applies sorted placements to lines (the file as a Codex-like host sees it).
func plannedLines(lines []string, places []place.Placement) []string {
	out := make([]string, 0, len(lines)+8)
	pos := 0
	for _, p := range places {
		out = append(out, lines[pos:p.Start]...)
		pos = place.Walk(p.Start, p.Edits, func(i int) { out = append(out, lines[i]) }, func(text string) { out = append(out, text) })
	}
	return append(out, lines[pos:]...)
}

// codexReaches reports whether Codex's model, reading chunks as the host reads their
// rendering, turns lines into want.
func codexReaches(lines []string, chunks []Chunk, want []string) bool {
	hs, err := codexParse(Format(&Patch{Hunks: []Hunk{{Kind: UpdateFile, Path: "f", Chunks: chunks}}}))
	if err != nil || len(hs) != 1 {
		return false
	}
	reps, err := codexLocate(lines, hs[0].chunks, "f")
	if err != nil {
		return false
	}
	slices.SortStableFunc(reps, func(a, b codexReplacement) int { return a.start - b.start })
	got := make([]string, 0, len(want))
	pos := 0
	for _, r := range reps {
		if r.start < pos {
			return false // overlapping windows: Codex's last-to-first splicing is not planned
		}
		got = append(append(got, lines[pos:r.start]...), r.new...)
		pos = r.start + r.oldLen
	}
	return slices.Equal(append(got, lines[pos:]...), want)
}

// renderChunks renders each placement of a section (see renderSection).
func renderChunks(lines []string, h *Hunk, places []place.Placement, reps []ChunkReport) []Chunk {
	d := &doc{lines: lines} // line 0 already carries the BOM a file has
	// Chunks are rendered in file order (places is sorted): a chunk the model gave out of
	// order comes out where Codex, which only searches downwards, finds it.
	out := make([]Chunk, 0, len(places))
	var taken [][2]int // windows of the chunks rendered so far
	cursor := 0
	var grown int64 // work spent on trials of chunks grown by context
	for idx, want := range places {
		k := want.Order
		ch, rep := h.Chunks[k], reps[k]
		wStart, wLen := want.Start, want.End-want.Start
		if rep.Strategy == StrategyAnchor {
			wStart, wLen = want.Start-1, 1 // rendered with its anchor line as context
		}
		next := len(lines)
		if idx+1 < len(places) {
			next = places[idx+1].Start
		}
		pure := rep.Strategy == StrategyAppend
		// unique: without an anchor, the default mode takes an exact match only when it is
		// the only one outside the windows already taken, so the rendering must be.
		unique := func(c Chunk, start int) bool {
			old := c.Old()
			if pure || len(c.Anchors) > 0 || c.EOF || len(old) == 0 {
				return true
			}
			for p := 0; p+len(old) <= len(lines); p++ {
				if p == start || lines[p] != old[0] || !slices.Equal(lines[p:p+len(old)], old) {
					continue
				}
				if !slices.ContainsFunc(taken, func(w [2]int) bool { return p < w[1] && w[0] < p+len(old) }) {
					return false
				}
			}
			return true
		}
		fitsAt := func(c Chunk, s, l int) (int, bool) {
			r, next := codexLocateFrom(lines, toCodexChunk(c), cursor)
			if r == nil {
				return 0, false
			}
			if pure {
				return next, true
			}
			return next, r.start == s && r.oldLen == l && unique(c, s)
		}
		fits := func(c Chunk) (int, bool) { return fitsAt(c, wStart, wLen) }
		// trial is fitsAt for a chunk grown by context, within the section's growth budget
		// (counted as file lines searched times chunk lines: an upper bound of the search).
		trial := func(c Chunk, s, l int) bool {
			grown += int64(len(lines)-cursor+1) * int64(len(c.Lines))
			if grown > renderGrowBudget {
				return false
			}
			_, ok := fitsAt(c, s, l)
			return ok
		}
		keep := len(ch.Anchors) <= 1 && rep.AnchorLevel == LevelExact && !rep.BlankRetry &&
			(rep.Strategy == StrategyExact || rep.Strategy == StrategyAppend)
		if keep {
			c := ch
			c.Line = 0
			c.Lines = stripLineNumbers(ch.Lines)
			if n, ok := fits(c); ok {
				out, cursor = append(out, c), n
				taken = append(taken, [2]int{wStart, wStart + wLen})
				continue
			}
		}
		c := fileChunk(d, want, ch.EOF, rep.Strategy)
		n, ok := fits(c)
		if !ok && !pure {
			// Context before the window, the fewest file lines (down to the cursor) with which
			// Codex lands on it, or all of them.
			base, s0, l0 := c, wStart, wLen
			with := func(k int) Chunk { return withContext(base, lines[s0-k:s0], nil) }
			k, found := grow(s0-cursor, func(k int) bool { return trial(with(k), s0-k, l0+k) })
			if !found {
				k = max(s0-cursor, 0)
			}
			c, wStart, wLen = with(k), s0-k, l0+k
			n, ok = fits(c)
		}
		if !ok && !pure && !c.EOF && wStart+wLen < next {
			// Still not unique: context after the window, up to the next chunk.
			base, e0 := c, wStart+wLen
			with := func(k int) Chunk { return withContext(base, nil, lines[e0:e0+k]) }
			k, found := grow(next-e0, func(k int) bool { return trial(with(k), wStart, e0-wStart+k) })
			if !found {
				k = next - e0
			}
			c, wLen = with(k), e0-wStart+k
			n, ok = fits(c)
		}
		out = append(out, c)
		if !pure {
			taken = append(taken, [2]int{wStart, wStart + wLen})
		}
		if ok {
			cursor = n
		} else if !pure {
			// The chunk carries its window and any context added after it: the next
			// chunk's leading context must start below all of it, where Codex's cursor is.
			cursor = wStart + wLen
		}
	}
	return out
}

// withContext returns a copy of c with the file lines before and after around its lines, as
// context.
func withContext(c Chunk, before, after []string) Chunk {
	ls := make([]Line, 0, len(before)+len(c.Lines)+len(after))
	for _, t := range before {
		ls = append(ls, Line{Op: Context, Text: t})
	}
	ls = append(ls, c.Lines...)
	for _, t := range after {
		ls = append(ls, Line{Op: Context, Text: t})
	}
	c.Lines = ls
	return c
}

// renderGrowBudget bounds the searches a section's rendering makes with chunks grown by
// context. Past it a chunk is left as it is; Codex's model then does not reach the planned
// lines with the section, which is rendered as a plain line difference or one whole-file
// chunk instead (a longer text, equally exact).
const renderGrowBudget = 16_000_000

// grow returns the smallest k in 1..limit for which try(k) holds, as found by trying 1, 2, 4,
// … and then bisecting between the last k that failed and the first that held: about
// 2·log2(limit) trials. More context only narrows Codex's first-match search, so once try
// holds it holds for larger k too; should it not, the k returned still satisfies try.
func grow(limit int, try func(k int) bool) (int, bool) {
	if limit < 1 {
		return 0, false
	}
	lo, hi := 0, 0 // try(lo) failed (0: none tried), try(hi) held
	for k := 1; ; k *= 2 {
		k = min(k, limit)
		if try(k) {
			hi = k
			break
		}
		lo = k
		if k == limit {
			return 0, false
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if try(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

func stripLineNumbers(ls []Line) []Line {
	out := make([]Line, len(ls))
	for i, l := range ls {
		out[i] = Line{Op: l.Op, Text: l.Text}
	}
	return out
}

// docLine returns file line i as a Codex-like host sees it (with the BOM on line 0).
func docLine(d *doc, i int) string {
	if i == 0 && d.bom {
		return bom + d.lines[0]
	}
	return d.lines[i]
}

// fileChunk renders a placement as a bare-@@ chunk whose context and removed lines are the
// file's bytes; an anchored insertion gets its anchor line as leading context.
func fileChunk(d *doc, p place.Placement, eof bool, st Strategy) Chunk {
	c := Chunk{EOF: eof && st != StrategyAnchor}
	if st == StrategyAnchor && p.Start > 0 {
		c.Lines = append(c.Lines, Line{Op: Context, Text: docLine(d, p.Start-1)})
	}
	pos := p.Start
	for _, e := range p.Edits {
		switch Op(e.Op) {
		case Context, Remove:
			c.Lines = append(c.Lines, Line{Op: Op(e.Op), Text: docLine(d, pos)})
			pos++
		case Insert:
			c.Lines = append(c.Lines, Line{Op: Insert, Text: e.Text})
		}
	}
	return c
}

// toCodexChunk is the chunk as Codex reads its rendering: one "@@ <anchor>" line, whose
// trailing whitespace Codex drops.
func toCodexChunk(c Chunk) codexChunk {
	cc := codexChunk{old: c.Old(), new: c.New(), eof: c.EOF}
	if len(c.Anchors) > 0 {
		if a := rustTrimEnd(c.Anchors[len(c.Anchors)-1]); a != "" {
			cc.ctx = &a
		}
	}
	return cc
}

// codexLocateFrom locates one chunk from cursor as Codex does and returns the replacement and
// Codex's next cursor; nil when Codex fails.
func codexLocateFrom(lines []string, c codexChunk, cursor int) (*codexReplacement, int) {
	if c.ctx != nil {
		i := codexSeek(lines, []string{*c.ctx}, cursor, false)
		if i < 0 {
			return nil, cursor
		}
		cursor = i + 1
	}
	if len(c.old) == 0 {
		return &codexReplacement{start: len(lines), new: c.new}, cursor
	}
	old := c.old
	p := codexSeek(lines, old, cursor, c.eof)
	if p < 0 && old[len(old)-1] == "" {
		old = old[:len(old)-1]
		p = codexSeek(lines, old, cursor, c.eof)
	}
	if p < 0 {
		return nil, cursor
	}
	return &codexReplacement{start: p, oldLen: len(old)}, p + len(old)
}

// mergeRepeated merges the sections that edit one evolving file: Add + Update(s) [+ Move]
// become one Add with the final contents at the final path; Update + Update(s) [+ Move]
// become one Update whose chunks are the minimised difference between the file before the
// first section and after the last, kept only if Codex's model reproduces the final text
// from them, else one whole-file chunk; when even that does not reproduce it (line endings
// that only the sequential application gives), the sections stay apart. The merged section
// takes the first one's place.
func mergeRepeated(p, out *Patch, paths map[string]resolved, bases [][]byte) (*Patch, bool) {
	n := len(p.Hunks)
	group := make([]int, n) // group id per section (index of its first section), -1 = alone
	for i := range group {
		group[i] = -1
	}
	current := map[string]int{} // real path → group id of the file now living there
	for i, h := range p.Hunks {
		real := paths[h.Path].real
		switch h.Kind {
		case AddFile:
			current[real] = i
			group[i] = i
		case DeleteFile:
			delete(current, real)
		case UpdateFile:
			g, ok := current[real]
			if !ok {
				g = i
			}
			group[i] = g
			if h.MoveTo != "" {
				delete(current, real)
				current[paths[h.MoveTo].real] = g
			} else {
				current[real] = g
			}
		}
	}
	members := map[int][]int{}
	for i, g := range group {
		if g >= 0 {
			members[g] = append(members[g], i)
		}
	}
	merged := false
	drop := make([]bool, n)
	res := &Patch{Hunks: slices.Clone(out.Hunks)}
	for g, ms := range members {
		if len(ms) < 2 {
			continue
		}
		first := out.Hunks[ms[0]]
		// The final text as a Codex-like host produces it from the rendered sections.
		tree := codexTree{}
		if first.Kind == UpdateFile {
			tree[first.Path] = bases[ms[0]]
		}
		for _, i := range ms {
			if err := codexApply(tree, Format(&Patch{Hunks: []Hunk{out.Hunks[i]}})); err != nil {
				tree = nil
				break
			}
		}
		if tree == nil || len(tree) != 1 {
			continue // cannot merge safely: keep the sections as they are
		}
		var finalPath string
		var final []byte
		for k, v := range tree {
			finalPath, final = k, v
		}
		var h Hunk
		if first.Kind == AddFile {
			h = Hunk{Kind: AddFile, Path: finalPath, Contents: string(final)}
		} else {
			h = Hunk{Kind: UpdateFile, Path: first.Path}
			if finalPath != first.Path {
				h.MoveTo = finalPath
			}
			reproduces := func() bool {
				check := codexTree{first.Path: bases[ms[0]]}
				err := codexApply(check, Format(&Patch{Hunks: []Hunk{h}}))
				return err == nil && len(check) == 1 && bytes.Equal(check[finalPath], final)
			}
			a, b := codexLines(bases[ms[0]]), codexLines(final)
			h.Chunks = minimalLineChunks(a, b)
			if !reproduces() {
				h.Chunks = wholeLineChunk(a, b)
				if !reproduces() {
					continue // not expressible as one section (line endings): keep them apart
				}
			}
		}
		res.Hunks[g] = h
		for _, i := range ms[1:] {
			drop[i] = true
		}
		merged = true
	}
	if !merged {
		return out, false
	}
	var hs []Hunk
	for i, h := range res.Hunks {
		if !drop[i] {
			hs = append(hs, h)
		}
	}
	return &Patch{Hunks: hs}, true
}

// codexLines splits content as a Codex-like host sees it.
func codexLines(content []byte) []string { return parseDoc(content, true).lines }

// minimalLineChunks renders the line difference between a and b (computed by the module's
// one line diff, internal/udiff) as context-free chunks, each anchored on the line of a
// right before it (when there is one and it is not blank).
func minimalLineChunks(a, b []string) []Chunk {
	var chunks []Chunk
	for _, c := range udiff.Compute(a, b) {
		var ch Chunk
		if c.A > 0 && strings.TrimSpace(a[c.A-1]) != "" {
			ch.Anchors = []string{a[c.A-1]}
		}
		for _, l := range a[c.A:c.B] {
			ch.Lines = append(ch.Lines, Line{Op: Remove, Text: l})
		}
		for _, l := range c.New {
			ch.Lines = append(ch.Lines, Line{Op: Insert, Text: l})
		}
		chunks = append(chunks, ch)
	}
	if len(chunks) == 0 {
		return wholeLineChunk(a, b)
	}
	return chunks
}

// wholeLineChunk replaces every line of a by every line of b.
func wholeLineChunk(a, b []string) []Chunk {
	c := Chunk{EOF: true}
	for _, l := range a {
		c.Lines = append(c.Lines, Line{Op: Remove, Text: l})
	}
	for _, l := range b {
		c.Lines = append(c.Lines, Line{Op: Insert, Text: l})
	}
	if len(c.Old()) == 0 {
		c.EOF = false
	}
	if len(c.Lines) == 0 {
		c.Lines = []Line{{Op: Context, Text: ""}}
	}
	return []Chunk{c}
}
