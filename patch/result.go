package patch

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/harnesskit/harnesskit/wfs"
)

// Plan is the in-memory outcome of planning a patch: the net change of every affected path,
// with the final bytes, and a report per chunk. Nothing has been written. A Plan is committed
// with [Applier.Commit] of the Applier that made it; it also holds (unexported) a snapshot of
// every file it read, so that the commit can detect concurrent edits.
type Plan struct {
	Patch         *Patch
	Changes       []FileChange // net effect per path, in order of first appearance
	Report        []ChunkReport
	PassedThrough bool     // PassThrough policy and an outside path: nothing was read
	Outside       []string // paths outside the bases (PassThrough only)
	// Leftovers lists temporary files of an interrupted earlier commit ([wfs.IsLeftover]) found
	// in the directories the plan touches, absolute; they are reported, never deleted.
	Leftovers []string

	owner   *family
	entries []*entry // every path the plan read or will change, in order of first appearance
	// recovered: the dead writers' commits finished or undone before planning.
	recovered []wfs.Recovery
	sum       summaryLines
}

// Summary returns the Codex-style success text: "Success. Updated the following files:" then
// one "A <path>", "M <path>" or "D <path>" line per change (adds, then modifications and moves,
// then deletes, each group in order of first appearance).
func (pl *Plan) Summary() string { return pl.sum.String() }

// ChangeOp is the net effect of a patch on one path.
type ChangeOp uint8

const (
	Added    ChangeOp = iota + 1 // the path did not exist and now holds a file
	Modified                     // the file's content (or only its line) was rewritten in place
	Moved                        // the file now lives at Path; From no longer exists
	Deleted                      // the file was removed
)

func (o ChangeOp) String() string {
	switch o {
	case Added:
		return "add"
	case Modified:
		return "update"
	case Moved:
		return "move"
	case Deleted:
		return "delete"
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// FileChange is the net change to one path, relative to the tree before the patch.
type FileChange struct {
	Op      ChangeOp
	Path    string // as written in the patch (the destination for moves)
	From    string // the source path for moves, as written
	Abs     string // absolute, lexically cleaned Path
	FromAbs string // absolute From
	Before  []byte // content before (nil for Added)
	After   []byte // content after (nil for Deleted); formatted when a formatter ran
	Mode    fs.FileMode
	// Formatter is the name of the formatter that ran on After ("" when none ran; see
	// [WithFormatter]). FormatDiff is its change as a unified diff when it is at most 40
	// lines; otherwise, or when it failed or changed nothing, FormatNote says so.
	Formatter  string
	FormatDiff string
	FormatNote string
}

// Result is what a successful [Applier.Apply] or [Applier.Commit] did.
type Result struct {
	Changes       []FileChange
	Report        []ChunkReport
	Summary       string // "Success. Updated the following files:\nA x\nM y\nD z\n"
	PassedThrough bool
	Outside       []string
	Leftovers     []string // the plan's Leftovers (temporaries of an interrupted commit)
	// Recovered lists the interrupted commits of dead writers that the commit finished or
	// undid before it checked its own files (see [wfs.Recover]).
	Recovered []wfs.Recovery
}

// ChunkReport says how one chunk was placed.
type ChunkReport struct {
	Section, Chunk int // 1-based
	Path           string
	Strategy       Strategy
	AnchorLevel    Level // the loosest level at which an @@ anchor matched
	Start, Len     int   // 1-based first line of the window in the file as it was before this section, window length
	Removed, Added int
	BlankRetry     bool // Codex's trailing-blank retry was used
	Notes          []string
	// Pairing says which file line each old line of the chunk (its context and removed lines,
	// in order) was paired with: 1-based, in the file as it was before this section, 0 when
	// the line was left unpaired (a context line the file does not have). A file line is
	// removed only when it is paired with a removed line that it equals at a ladder level.
	// Nil for pure insertions.
	Pairing []int
}

type summaryLines struct{ a, m, d []string }

func (s summaryLines) String() string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, p := range s.a {
		b.WriteString("A " + p + "\n")
	}
	for _, p := range s.m {
		b.WriteString("M " + p + "\n")
	}
	for _, p := range s.d {
		b.WriteString("D " + p + "\n")
	}
	return b.String()
}
