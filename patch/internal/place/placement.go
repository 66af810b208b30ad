package place

// A located chunk is a placement: a window of the file and the edits that turn it into the
// new lines.

// An edit is one step of applying a placed chunk: keep or drop the next file line, or insert
// authored text.
type edit struct {
	op   Op // Context = keep, Remove = drop, Insert = insert text
	text string
}

// A placement is a located chunk: the window [start, end) of the section's base lines and the
// edits that consume exactly end-start file lines.
type placement struct {
	start, end int
	edits      []edit
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

// An Edit is one step of applying a placement: keep (Context) or drop (Remove) the next file
// line, or insert Text (Insert).
type Edit struct {
	Op   Op
	Text string
}

// export converts the core's placements into the face's.
func export(ps []placement) []Placement {
	out := make([]Placement, len(ps))
	for i, p := range ps {
		es := make([]Edit, len(p.edits))
		for j, e := range p.edits {
			es[j] = Edit{Op: e.op, Text: e.text}
		}
		out[i] = Placement{Start: p.start, End: p.end, Edits: es, Order: p.order}
	}
	return out
}
