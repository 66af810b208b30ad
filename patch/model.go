package patch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Patch is a parsed "*** Begin Patch" text: an ordered list of file sections. Build one with
// [Parse] or in code; render it with [Format]. The zero Patch (no hunks) is valid and formats
// to an empty envelope, but applying it fails with [KindEmpty].
type Patch struct {
	Hunks []Hunk
}

// HunkKind says what a file section does.
type HunkKind uint8

// The three kinds of file section.
const (
	AddFile    HunkKind = iota + 1 // "*** Add File: <path>": create a file with Contents
	DeleteFile                     // "*** Delete File: <path>": remove a file
	UpdateFile                     // "*** Update File: <path>": edit a file by Chunks, optionally moving it
)

// String returns "add", "delete" or "update" ("kind(<n>)" for other values).
func (k HunkKind) String() string {
	switch k {
	case AddFile:
		return "add"
	case DeleteFile:
		return "delete"
	case UpdateFile:
		return "update"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// A Hunk is one file section of a patch.
type Hunk struct {
	Kind     HunkKind
	Path     string  // as written, trimmed
	MoveTo   string  // UpdateFile only; "" = no move
	Contents string  // AddFile only; every line ends with "\n"
	Chunks   []Chunk // UpdateFile only
	Line     int     // 1-based header line in the source text; 0 when built in code
}

// A Chunk is one change inside an Update section: optional "@@" anchors that narrow where it
// applies, then body lines. A chunk without Remove or Context lines is a pure insertion.
type Chunk struct {
	Anchors []string // stacked @@ contexts, outermost first; empty = bare or omitted @@
	Lines   []Line
	EOF     bool // "*** End of File": the chunk is pinned to the end of the file
	Line    int  // 1-based line of the chunk's first header or body line; 0 when built in code
}

// Op is the prefix of a chunk body line.
type Op byte

// The three body-line prefixes.
const (
	Context Op = ' ' // the line is in the file and stays
	Insert  Op = '+' // the line is added
	Remove  Op = '-' // the line is in the file and goes
)

// A Line is one body line of a chunk: its prefix and its text, verbatim (tabs and trailing
// spaces included, without the line break).
type Line struct {
	Op   Op
	Text string
	Line int // 1-based line in the source text; 0 when built in code
}

// Old returns the lines the chunk expects in the file: context and removed lines, in order.
func (c Chunk) Old() []string {
	out := make([]string, 0, len(c.Lines))
	for _, l := range c.Lines {
		if l.Op == Context || l.Op == Remove {
			out = append(out, l.Text)
		}
	}
	return out
}

// New returns the lines the chunk leaves in the file: context and added lines, in order.
func (c Chunk) New() []string {
	out := make([]string, 0, len(c.Lines))
	for _, l := range c.Lines {
		if l.Op == Context || l.Op == Insert {
			out = append(out, l.Text)
		}
	}
	return out
}

// Equal reports whether a and b describe the same patch. It compares structure and text and
// ignores every Line field, so a parsed patch equals the same patch built in code. A nil
// slice equals an empty one; two nil patches are equal, a nil and a non-nil one are not.
func Equal(a, b *Patch) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.EqualFunc(a.Hunks, b.Hunks, hunkEqual)
}

func hunkEqual(a, b Hunk) bool {
	return a.Kind == b.Kind && a.Path == b.Path && a.MoveTo == b.MoveTo &&
		a.Contents == b.Contents && slices.EqualFunc(a.Chunks, b.Chunks, chunkEqual)
}

func chunkEqual(a, b Chunk) bool {
	return a.EOF == b.EOF && slices.Equal(a.Anchors, b.Anchors) &&
		slices.EqualFunc(a.Lines, b.Lines, func(x, y Line) bool { return x.Op == y.Op && x.Text == y.Text })
}

// Validate reports whether p can be rendered by [Format] and read back by [Parse] as the same
// patch. It returns nil or an [*Error] of kind [KindInvalid] naming the section (and chunk)
// at fault:
//
//   - p is non-nil and every hunk has a known Kind;
//   - paths and move targets are non-empty, have no surrounding whitespace (Parse trims them)
//     and contain no line break or NUL byte;
//   - an Add hunk has no move target and no chunks, and Contents is empty or ends with "\n";
//   - a Delete hunk has only a path;
//   - an Update hunk has no Contents and at least one chunk; every chunk has at least one body
//     line; anchors are neither empty nor whitespace only; ops are Context, Insert or Remove;
//     no text contains a line break.
//
// Every patch returned by Parse is valid.
func (p *Patch) Validate() error {
	if p == nil {
		return &Error{Kind: KindInvalid, Msg: "Invalid patch: nil patch"}
	}
	for i := range p.Hunks {
		if err := validateHunk(&p.Hunks[i], i+1); err != nil {
			return err
		}
	}
	return nil
}

func validateHunk(h *Hunk, section int) *Error {
	bad := func(chunk int, format string, args ...any) *Error {
		msg := "Invalid patch: section " + strconv.Itoa(section)
		if chunk > 0 {
			msg += " chunk " + strconv.Itoa(chunk)
		}
		return &Error{Kind: KindInvalid, Path: h.Path, Line: h.Line, Section: section, Chunk: chunk,
			Msg: msg + ": " + fmt.Sprintf(format, args...)}
	}
	if h.Kind < AddFile || h.Kind > UpdateFile {
		return bad(0, "unknown hunk kind %d; use AddFile, DeleteFile or UpdateFile", int(h.Kind))
	}
	if msg := pathProblem(h.Path); msg != "" {
		return bad(0, "path %q %s", h.Path, msg)
	}
	if h.Kind != UpdateFile && h.MoveTo != "" {
		return bad(0, "only an Update File section can have a move target")
	}
	if h.Kind != UpdateFile && len(h.Chunks) > 0 {
		return bad(0, "only an Update File section can have chunks")
	}
	if h.Kind != AddFile && h.Contents != "" {
		return bad(0, "only an Add File section can have contents")
	}
	switch h.Kind {
	case AddFile:
		if h.Contents != "" && !strings.HasSuffix(h.Contents, "\n") {
			return bad(0, "Add File contents must end with a line break")
		}
	case UpdateFile:
		if h.MoveTo != "" {
			if msg := pathProblem(h.MoveTo); msg != "" {
				return bad(0, "move target %q %s", h.MoveTo, msg)
			}
		}
		if len(h.Chunks) == 0 {
			return bad(0, "Update file hunk for path '%s' is empty", h.Path)
		}
		for ci, c := range h.Chunks {
			if len(c.Lines) == 0 {
				return bad(ci+1, "Update hunk does not contain any lines")
			}
			for _, a := range c.Anchors {
				if trimPatchSpace(a) == "" {
					return bad(ci+1, "anchor %q is empty or only whitespace; leave it out instead", a)
				}
				if strings.ContainsRune(a, '\n') {
					return bad(ci+1, "anchor %q contains a line break", a)
				}
			}
			for _, l := range c.Lines {
				if l.Op != Context && l.Op != Insert && l.Op != Remove {
					return bad(ci+1, "line op %q is not ' ', '+' or '-'", rune(l.Op))
				}
				if strings.ContainsRune(l.Text, '\n') {
					return bad(ci+1, "line %q contains a line break; use one Line per line", l.Text)
				}
			}
		}
	}
	return nil
}

// pathProblem returns why p cannot be a hunk path, or "".
func pathProblem(p string) string {
	switch {
	case p == "":
		return "is empty"
	case trimPatchSpace(p) != p:
		return "has surrounding whitespace"
	case strings.ContainsRune(p, '\n'):
		return "contains a line break"
	case strings.IndexByte(p, 0) >= 0:
		return "contains a NUL byte"
	}
	return ""
}
