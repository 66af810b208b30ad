package patch

import (
	"context"
	"path/filepath"
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
// planned window. Absolute paths inside the bases are rendered relative to the root
// ([WithRelativePaths]).
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
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(p.Hunks) == 0 {
		return nil, &Error{Kind: KindEmpty, Msg: errEmptyPatch}
	}
	paths, parents, outside, err := a.contain(p)
	if err != nil {
		return nil, err
	}
	if len(outside) > 0 {
		if a.cfg.outside == PassThrough {
			return &Rewritten{Text: text, PassedThrough: true, Outside: outside}, nil
		}
		return nil, blockedErr(outside)
	}
	pl := a.newPlanner(ctx, paths, parents)
	out := &Patch{Hunks: make([]Hunk, len(p.Hunks))}
	for i := range p.Hunks {
		h := &p.Hunks[i]
		var chunks []Chunk
		pl.onSection = func(d *doc, places []placement, reps []ChunkReport) {
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
		}
		if h.Kind == UpdateFile {
			nh.Chunks = chunks
		}
		out.Hunks[i] = nh
	}
	res := &Rewritten{Report: pl.report}
	canon := Format(p)
	rendered := Format(out)
	if rendered == canon && (text == canon || text+"\n" == canon || text == canon+"\n") {
		res.Text = text
		return res, nil
	}
	res.Text, res.Changed = rendered, true
	return res, nil
}

// renderPath renders a checked path for the host: absolute paths inside the bases relative to
// the root, with '/' separators.
func (a *Applier) renderPath(r resolved) string {
	if a.cfg.relPaths && filepath.IsAbs(r.raw) && r.rel != "" {
		return r.rel
	}
	return r.raw
}

// renderSection renders the chunks of one section for a Codex-like host (R51): each chunk is
// kept as authored when it is eligible and Codex's model picks the same window, else rendered
// from the file's bytes, with context prepended until Codex's first-match seek lands on our
// window. The result is in patch order.
func renderSection(d *doc, h *Hunk, places []placement, reps []ChunkReport) []Chunk {
	byOrder := make([]placement, len(h.Chunks))
	for _, p := range places {
		byOrder[p.order] = p
	}
	lines := make([]string, len(d.lines))
	for i := range lines {
		lines[i] = docLine(d, i)
	}
	out := make([]Chunk, len(h.Chunks))
	cursor := 0
	for k, ch := range h.Chunks {
		rep, want := reps[k], byOrder[k]
		wStart, wLen := want.start, want.end-want.start
		if rep.Strategy == StrategyAnchor {
			wStart, wLen = want.start-1, 1 // rendered with its anchor line as context
		}
		pure := rep.Strategy == StrategyAppend
		fits := func(c Chunk) (int, bool) {
			r, next := codexLocateFrom(lines, toCodexChunk(c), cursor)
			if r == nil {
				return 0, false
			}
			if pure {
				return next, true
			}
			return next, r.start == wStart && r.oldLen == wLen
		}
		keep := len(ch.Anchors) <= 1 && rep.AnchorLevel == LevelExact && !rep.BlankRetry &&
			(rep.Strategy == StrategyExact || rep.Strategy == StrategyAppend)
		if keep {
			c := ch
			c.Line = 0
			c.Lines = stripLineNumbers(ch.Lines)
			if next, ok := fits(c); ok {
				out[k], cursor = c, next
				continue
			}
		}
		c := fileChunk(d, want, ch.EOF, rep.Strategy)
		next, ok := fits(c)
		for !ok && !pure && wStart-1 >= cursor {
			c.Lines = append([]Line{{Op: Context, Text: lines[wStart-1]}}, c.Lines...)
			wStart, wLen = wStart-1, wLen+1
			next, ok = fits(c)
		}
		out[k] = c
		if ok {
			cursor = next
		} else if !pure {
			cursor = want.end
		}
	}
	return out
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
func fileChunk(d *doc, p placement, eof bool, st Strategy) Chunk {
	c := Chunk{EOF: eof && st != StrategyAnchor}
	if st == StrategyAnchor && p.start > 0 {
		c.Lines = append(c.Lines, Line{Op: Context, Text: docLine(d, p.start-1)})
	}
	pos := p.start
	for _, e := range p.edits {
		switch e.op {
		case Context, Remove:
			c.Lines = append(c.Lines, Line{Op: e.op, Text: docLine(d, pos)})
			pos++
		case Insert:
			c.Lines = append(c.Lines, Line{Op: Insert, Text: e.text})
		}
	}
	return c
}

func toCodexChunk(c Chunk) codexChunk {
	cc := codexChunk{old: c.Old(), new: c.New(), eof: c.EOF}
	if len(c.Anchors) > 0 {
		a := c.Anchors[len(c.Anchors)-1]
		cc.ctx = &a
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
