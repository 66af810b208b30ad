package place

import (
	"fmt"
	"slices"
)

// A chunk made of several changes (runs of removed and added lines between context lines) may
// be partly applied itself: a model that re-sends a patch after a partial write, or another
// edit that made one of the changes too, leaves some of its changes in the file and not the
// others. mixedApplied finds such a chunk when every one of its lines is accounted for.

// chunkPart is one run of a chunk's body: context lines, or one change (old: its removed
// lines, new: its added lines).
type chunkPart struct {
	from, to int // body.lines[from:to]
	change   bool
	old, new []string
}

func chunkParts(body chunkBody) []chunkPart {
	var parts []chunkPart
	for i, l := range body.lines {
		change := l.Op != Context
		if len(parts) == 0 || parts[len(parts)-1].change != change {
			parts = append(parts, chunkPart{from: i, change: change})
		}
		pt := &parts[len(parts)-1]
		pt.to = i + 1
		switch l.Op {
		case Remove:
			pt.old = append(pt.old, l.Text)
		case Insert:
			pt.new = append(pt.new, l.Text)
		default:
			pt.old = append(pt.old, l.Text)
			pt.new = append(pt.new, l.Text)
		}
	}
	return parts
}

// mixedMatch is one way a chunk's parts match the file: its first line and, per part, whether
// the part stands in its new form.
type mixedMatch struct {
	pos     int
	applied []bool
}

// mixedApplied looks for chunk k (its lines not found as written, nor its new side) partly
// applied: its context lines, each of its changes either as removed or as added lines, match
// the file exactly, at one place only and in one way only in the whole file, with at least one
// change made and one not. Each change taken as made must prove it: it adds a line with a
// letter or a digit, has a context line after it (before it there always is one: the chunk must
// start with context), its removed lines with a letter or a digit are nowhere in the file
// as written, and nor is its old form between the context lines beside it; each change not
// made, between its context lines, is in the file once only. Then the lines around the changes that are not made yet are the lines the patch
// names, in the order it names them, and the changes found made are the patch's own (a second
// copy of them is not what it means: the context it names has them in between). The returned
// body turns the made changes into context lines; rep gets a note naming them. A match that
// overlaps a window placed before, or that sits above the anchor's place, is not taken.
func (s *Locator) mixedApplied(ch Chunk, body chunkBody, cursor int, anchored bool, rep *ChunkReport) (chunkBody, int, bool) {
	if s.cfg.Codex || ch.EOF {
		return chunkBody{}, 0, false
	}
	parts := chunkParts(body)
	changes := 0
	for _, pt := range parts {
		if pt.change {
			changes++
		}
	}
	if changes < 2 || parts[0].change {
		return chunkBody{}, 0, false
	}
	saved := s.work // a budget of its own: the rescues after it keep theirs
	s.work = workBudget{limit: s.cfg.WorkLimit}
	defer func() { s.work = saved }()
	var found []mixedMatch
	s.walkParts(parts, s.ix.positions(LevelExact, parts[0].old, 0, 0, &s.work), func(m mixedMatch) bool {
		found = append(found, m)
		return len(found) > 1
	})
	if len(found) != 1 || s.work.exhausted() {
		return chunkBody{}, 0, false
	}
	m := found[0]
	made, notMade := 0, 0
	for i, pt := range parts {
		switch {
		case !pt.change:
		case m.applied[i]:
			made++
			if i+1 == len(parts) || !SignificantLines(pt.new) {
				return chunkBody{}, 0, false
			}
			if SignificantLines(pt.old) && (len(s.ix.positions(LevelExact, pt.old, 0, 1, &s.work)) > 0 || s.work.exhausted()) {
				return chunkBody{}, 0, false
			}
		default:
			notMade++
		}
	}
	if made == 0 || notMade == 0 || anchored && m.pos < cursor {
		return chunkBody{}, 0, false
	}
	// Each change with the context lines on its two sides, in its old form: for a change
	// taken as made, that form anywhere in the file is a place where it is not made, which may
	// be the chunk's own (its other lines edited since); for a change not made yet, a second
	// copy of it is a place the change may be meant for as well.
	for i, pt := range parts {
		if !pt.change {
			continue
		}
		around := slices.Concat(parts[i-1].old, pt.old)
		if i+1 < len(parts) {
			around = append(around, parts[i+1].old...)
		}
		ps := s.ix.positions(LevelExact, around, 0, 2, &s.work)
		if s.work.exhausted() || m.applied[i] && len(ps) > 0 || !m.applied[i] && len(ps) > 1 {
			return chunkBody{}, 0, false
		}
	}
	var out []Line
	var at []int // file line of each made change
	pos := m.pos
	for i, pt := range parts {
		first := true
		for _, l := range body.lines[pt.from:pt.to] {
			if m.applied[i] {
				if l.Op != Insert {
					continue
				}
				if first {
					at, first = append(at, pos), false
				}
				l = Line{Op: Context, Text: l.Text, Line: l.Line}
			}
			out = append(out, l)
			if l.Op != Insert {
				pos++
			}
		}
	}
	nb := chunkBody{lines: out}
	old, _ := nb.old()
	if _, hit := s.overlapping(m.pos, m.pos+len(old)); hit {
		return chunkBody{}, 0, false
	}
	where := "file line"
	if len(at) > 1 {
		where += "s"
	}
	for i, a := range at {
		if i > 0 {
			where += ","
		}
		where += fmt.Sprintf(" %d", a+1)
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("partly applied: %d of the chunk's %d changes already in the file (at %s); left as they are", made, made+notMade, where))
	return nb, m.pos, true
}

// walkParts calls found with each way the parts match the file exactly from one of starts,
// each change in its old form or its new form, until found returns true. The walk spends the
// locating budget and stops when it is exhausted.
func (s *Locator) walkParts(parts []chunkPart, starts []int, found func(mixedMatch) bool) {
	applied := make([]bool, len(parts))
	stop := false
	var walk func(i, p, start int)
	walk = func(i, p, start int) {
		if stop || s.work.exhausted() {
			return
		}
		if i == len(parts) {
			stop = found(mixedMatch{pos: start, applied: slices.Clone(applied)})
			return
		}
		try := func(lines []string, made bool) {
			if p+len(lines) > s.n() || !s.work.spend(int64(len(lines))+1) {
				return
			}
			if len(lines) > 0 && !s.ix.matchesAt(LevelExact, lines, lines, p) {
				return
			}
			applied[i] = made
			walk(i+1, p+len(lines), start)
			applied[i] = false
		}
		try(parts[i].old, false)
		if parts[i].change {
			try(parts[i].new, true)
		}
	}
	for _, p := range starts {
		if stop {
			return
		}
		walk(0, p, p)
	}
}

// changeLeft reports whether a chunk whose new side was found at the window [at, at+size) may
// be applied only in part: read with one of its changes in its old form (a removed line that
// equals its neighbour, a bracket, a blank line), the chunk also matches the file at a place
// overlapping or touching the window. Then that change is not known to be made, and the chunk
// is not applied whole.
func (s *Locator) changeLeft(body chunkBody, at, size int) bool {
	saved := s.work
	s.work = workBudget{limit: s.cfg.WorkLimit}
	defer func() { s.work = saved }()
	parts := chunkParts(body)
	old, _ := body.old()
	var starts []int
	for p := max(0, at-len(old)); p <= min(s.n(), at+size); p++ {
		starts = append(starts, p)
	}
	left := false
	s.walkParts(parts, starts, func(m mixedMatch) bool {
		for i, pt := range parts {
			if pt.change && !m.applied[i] {
				left = m.pos <= at+size && m.pos+spanOf(parts, m) >= at
				return left
			}
		}
		return false
	})
	return left || s.work.exhausted()
}

// spanOf is the number of file lines match m covers.
func spanOf(parts []chunkPart, m mixedMatch) int {
	n := 0
	for i, pt := range parts {
		if m.applied[i] {
			n += len(pt.new)
		} else {
			n += len(pt.old)
		}
	}
	return n
}

// changeMade reports whether the chunk placed at p, read with one of its changes made, also
// matches the file over or beside p's window: in a file that holds part of the change, such a
// chunk may be partly applied itself (an added line equal to the context line beside it, say),
// and applying it as written would repeat that change.
func (s *Locator) changeMade(body chunkBody, p placement) bool {
	saved := s.work
	s.work = workBudget{limit: s.cfg.WorkLimit}
	defer func() { s.work = saved }()
	parts := chunkParts(body)
	nw := body.new()
	var starts []int
	for q := max(0, p.start-len(nw)); q <= min(s.n(), p.end); q++ {
		starts = append(starts, q)
	}
	made := false
	s.walkParts(parts, starts, func(m mixedMatch) bool {
		for i, pt := range parts {
			if pt.change && m.applied[i] {
				made = m.pos <= p.end && m.pos+spanOf(parts, m) >= p.start
				return made
			}
		}
		return false
	})
	return made || s.work.exhausted()
}
