package patch

import (
	"errors"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// The face's side of the matching core (package place): the core has its own copies of the
// few types it reads and writes, and these functions convert at the boundary.

// locate places the chunks of one Update section on the lines of d (see place.Locator).
func locate(cfg *config, path string, section int, d *doc, chunks []Chunk) ([]place.Placement, []ChunkReport, error) {
	loc := place.New(&cfg.Config, path, section, d.lines, d.bom)
	places, reps, err := loc.Locate(coreChunks(chunks))
	return places, faceReports(reps), faceErr(err)
}

// coreChunks converts the chunks of a section into the core's, with the lines of all of them
// in one allocation.
func coreChunks(chunks []Chunk) []place.Chunk {
	n := 0
	for _, ch := range chunks {
		n += len(ch.Lines)
	}
	lines := make([]place.Line, 0, n)
	out := make([]place.Chunk, len(chunks))
	for i, ch := range chunks {
		from := len(lines)
		lines = appendCoreLines(lines, ch.Lines)
		out[i] = place.Chunk{Anchors: ch.Anchors, Lines: lines[from:len(lines):len(lines)], EOF: ch.EOF, Line: ch.Line}
	}
	return out
}

// coreLines converts chunk lines into the core's.
func coreLines(ls []Line) []place.Line { return appendCoreLines(make([]place.Line, 0, len(ls)), ls) }

func appendCoreLines(out []place.Line, ls []Line) []place.Line {
	for _, l := range ls {
		out = append(out, place.Line{Op: place.Op(l.Op), Text: l.Text, Line: l.Line})
	}
	return out
}

// faceReport converts a report of the core.
func faceReport(r place.ChunkReport) ChunkReport {
	return ChunkReport{Section: r.Section, Chunk: r.Chunk, Path: r.Path, Strategy: Strategy(r.Strategy),
		AnchorLevel: Level(r.AnchorLevel), Start: r.Start, Len: r.Len, Removed: r.Removed, Added: r.Added,
		BlankRetry: r.BlankRetry, Notes: r.Notes, Pairing: r.Pairing}
}

// faceReports converts the reports of a section.
func faceReports(rs []place.ChunkReport) []ChunkReport {
	if rs == nil {
		return nil
	}
	out := make([]ChunkReport, len(rs))
	for i, r := range rs {
		out[i] = faceReport(r)
	}
	return out
}

// faceKinds maps the core's kinds to the face's.
var faceKinds = [...]Kind{
	place.KindNotFound:       KindNotFound,
	place.KindAmbiguous:      KindAmbiguous,
	place.KindOverlap:        KindOverlap,
	place.KindAlreadyApplied: KindAlreadyApplied,
	place.KindChanged:        KindChanged,
	place.KindIO:             KindIO,
}

// faceErr converts an error of the core into an [*Error]; nil stays nil, and an error that is
// not the core's (none is expected) becomes KindIO.
func faceErr(err error) error {
	if err == nil {
		return nil
	}
	var ce *place.Error
	if !errors.As(err, &ce) {
		return &Error{Kind: KindIO, Msg: err.Error(), Err: err}
	}
	k := KindIO
	if int(ce.Kind) < len(faceKinds) && faceKinds[ce.Kind] != 0 {
		k = faceKinds[ce.Kind]
	}
	return &Error{Kind: k, Path: ce.Path, Line: ce.Line, Section: ce.Section, Chunk: ce.Chunk,
		FileLine: ce.FileLine, Candidates: ce.Candidates, Msg: ce.Msg, Err: ce.Err}
}
