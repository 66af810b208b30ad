package place

// A located chunk is a placement: a window of the file and the edits that turn it into the
// new lines.

// An Edit is one step of applying a placed chunk: keep (Context) or drop (Remove) the next
// file line, or insert Text (Insert).
type Edit struct {
	Op   Op
	Text string
}

// Walk follows edits from file line start (0-based): keep is called with each file line they
// keep and add with each text they insert, in order. It returns the line after the window.
func Walk(start int, edits []Edit, keep func(i int), add func(text string)) int {
	pos := start
	for _, e := range edits {
		switch e.Op {
		case Context:
			keep(pos)
			pos++
		case Remove:
			pos++
		case Insert:
			add(e.Text)
		}
	}
	return pos
}

// A placement is a located chunk: the window [start, end) of the section's base lines and the
// edits that consume exactly end-start file lines.
type placement struct {
	start, end int
	edits      []Edit
	order      int // chunk index, to keep patch order among equal positions
	// copies lists the places (0-based starts) of near copies of a stale-edges placement's
	// lines, each to be excluded by the patch's order once every chunk is placed.
	copies []int
}

// A Placement is a located chunk as the face sees it: the window [Start, End) of the
// section's base lines (0-based), the edits that turn it into the chunk's new lines, and the
// chunk's index in the section (0-based).
type Placement struct {
	Start, End int
	Edits      []Edit
	Order      int
}

// export converts the core's placements into the face's.
func export(ps []placement) []Placement {
	out := make([]Placement, len(ps))
	for i, p := range ps {
		out[i] = Placement{Start: p.start, End: p.end, Edits: p.edits, Order: p.order}
	}
	return out
}
