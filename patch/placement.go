package patch

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
