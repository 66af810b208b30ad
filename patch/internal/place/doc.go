// Package place is the matching core of package patch: it places the chunks of one Update
// section on the lines of the file as it was before the section, and says how, or why not.
// It is pure: no file system, no clock, no goroutines, no global state; the work of every
// chunk is bounded by Config.WorkLimit, counted in line comparisons and LCS cells, so the
// same input always gives the same answer. Package patch (the face) parses the patch, reads
// the files, renders the placements ([Walk]) and commits; it converts its Chunk, ChunkReport,
// Error and Level to and from this package's at one place.
//
// # Life cycle
//
//	New(cfg, path, section, lines, bom) → Locator {Locate(chunks)} → []Placement, []ChunkReport | *Error
//	                                             └→ Seek, MatchesAt, LineMatches, SideTwin, Nearest (edits)
//
// A Locator serves one section; its line index (index.go) computes the normalised form of
// every line once per level, lazily, and answers "where does this pattern match at level L".
//
// # The path of a chunk
//
// Locate takes the chunks in patch order with a cursor (where the previous chunk ended).
// Each chunk goes through these steps, each in one file; the first that decides wins.
//
//  1. Anchors (locate.go, locateAll): each "@@" line is sought on the ladder from the cursor,
//     then, if not found and not in Codex mode, in the whole file (a chunk given out of
//     order, unique there). An anchor is unique at a loose level; at exact level the first
//     wins, unless it is on several lines and the chunk's lines follow them at different
//     places (anchorChoice: ambiguous). An anchor found nowhere is a hint only:
//     a chunk with old lines goes on without it, under the rules of a chunk without one.
//     A pure insertion (no old lines) is placed after its anchor or at the end of the file.
//  2. The ladder (locate.go, placeChunk; normalize.go for the levels): the old lines are
//     sought from the cursor at exact, trim-end, unicode, unicode-trim-end, trim and
//     unicode-trim, up to Config.MaxTol. A loose level must be unique; exact too without an
//     anchor. An ambiguity is final, but for one exact tie (twins.go, sameChunks): chunks
//     with the same lines at exactly as many places take them in patch order. A chunk given
//     its place so is placed there at once. A match at a loose level passes the side check
//     (sideGuess, sideTwin) or is refused.
//  3. Codex's trailing-blank retry: a final blank context line is dropped and the chunk
//     sought again; outside Codex mode it is taken only where the rest ends the file.
//  4. Out of order: not found below the cursor, the chunk is sought in the whole file,
//     unique at every level.
//  5. Already applied (locate.go, appliedAround, appliedElsewhere, insertedAlready): the
//     chunk's new side already in the file is recorded, not placed; the section is refused
//     as already applied unless the rest of the patch is proven (partlyApplied).
//  6. Beyond the cap: a chunk that matches only at a level above Config.MaxTol is not found
//     and not rescued, so a lower cap never turns a refusal into a success.
//  7. Read-tool line numbers (linenum.go): old lines that all carry consecutive "    12\t"
//     prefixes are placed where the numbers say, without them; other prefixed chunks are
//     refused with a message about line numbers.
//  8. Partly applied itself (mixed.go, mixedApplied): the chunk read with each of its changes
//     made or not; one reading that matches exactly at one place is applied for the changes
//     not made, and counts as applied for the section's checks.
//  9. Rescues (rescue.go, stale.go), in order and each bounded: prefix/suffix (context edges
//     around an exact middle), LCS (the window that keeps most lines, with a margin over the
//     runner-up) and stale edges (outer context the file no longer has left out; not in
//     Codex mode). Every rescue pairs removed lines only with file lines they equal on the
//     ladder and puts added lines between the file lines their context is paired with
//     (changesSettled, settleGaps); a guess is refused as ambiguous.
//  10. Not found (locate.go, notFound): the closest window by votes through the index
//     (nearest) and its first differing line, or the line that changed since the model read
//     the file (changedErr).
//
// A placed chunk is checked for added lines already beside it (besideAlready) and moves the
// cursor. When every chunk is placed, the section is checked as a whole: the already-applied
// chunks against the others (partlyApplied), rescued chunks against the patch's order
// (rescuedInOrder), stale-edges near copies against the proven places (copiesExcluded), and
// overlaps (order), which also sorts the placements by position.
//
// # Output
//
// A [Placement] is a window [Start, End) of the base lines and the [Edit] steps that turn it
// into the chunk's new lines; a [ChunkReport] says which strategy placed it, where, and which
// file line each old line was paired with. A failure is an [*Error] whose Msg is written for
// the model and whose Kind the face maps to its own.
package place
