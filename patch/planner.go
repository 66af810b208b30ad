package patch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/harnesskit/harnesskit/wfs"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// family identifies the Applier a plan belongs to (an Applier and those derived by In).
type family struct{ _ byte } // not zero-size, so that every New gets a distinct pointer

// snapshot is the state of a path on disk when the plan first looked at it; snap is what the
// commit checks the path against.
type snapshot struct {
	exists  bool
	dir     bool
	symlink bool
	other   bool // a FIFO, socket or device: never opened
	large   bool // a regular file over the size limit: not read (it can only be deleted)
	data    []byte
	mode    fs.FileMode
	target  string // symlink target
	snap    wfs.Snapshot
}

// entry is one path of the overlay: its disk snapshot and its planned state.
type entry struct {
	key       string // the real path all I/O uses
	abs       string // lexical absolute path
	path      string // as written in the patch
	orig      snapshot
	exists    bool // planned: a regular file (or, untouched, the original entry) is there
	data      []byte
	mode      fs.FileMode
	inherit   bool // the mode comes from a replaced file or a move source: set it exactly
	touched   bool
	movedFrom *entry
	// sameAs, set on the destination of a case-only rename, is the source entry: on disk this
	// name leads to the source's file until the commit sets that file aside.
	sameAs *entry
	fmt    formatResult // what the formatter did to data
}

// resolved is a checked patch path.
type resolved struct {
	raw  string // as written
	abs  string
	real string // for I/O
	rel  string // relative to the root, '/'-separated
}

// planner builds a plan over an in-memory overlay of the file system.
type planner struct {
	a       *Applier
	ctx     context.Context
	entries map[string]*entry
	order   []*entry
	dirs    map[string]bool // directories the plan will create
	report  []ChunkReport
	paths   map[string]resolved // by raw path: containment results
	parents map[string]string   // Delete: raw path → real path of the entry itself
	folds   map[string][]string // lower-cased key → the keys read under it (see alias)
	// onSection, when set, sees every located Update section (Rewrite renders from it).
	onSection func(base []byte, d *doc, places []place.Placement, reps []ChunkReport)
	// perSection is set for a non-atomic apply: every section is formatted on its own and
	// recorded in sections, so that the commit can write the sections one at a time.
	perSection bool
	sections   []sectionPlan
	marked     []*entry // the entries the current section changed, in the order it reached them
}

// sectionPlan is one section of a non-atomic plan: the state right after it (formatted) of
// every entry it changed. live is the planner's entry, after a copy of it taken then.
type sectionPlan struct {
	live  []*entry
	after []entry
}

func (a *Applier) newPlanner(ctx context.Context, paths map[string]resolved, parents map[string]string) *planner {
	return &planner{a: a, ctx: ctx, entries: map[string]*entry{}, dirs: map[string]bool{},
		paths: paths, parents: parents, folds: map[string][]string{}}
}

// plan plans the sections of p in order over the overlay, so that each sees the earlier ones.
// It stops at the first section that fails and returns its error; the overlay and the report
// then hold the sections before it. Atomic plans are formatted once at the end; with
// perSection every section is formatted and recorded as soon as it is planned, as a commit of
// that section alone would have written it.
func (pl *planner) plan(p *Patch) error {
	for i := range p.Hunks {
		pl.marked = pl.marked[:0]
		n := len(pl.report)
		if err := pl.hunk(&p.Hunks[i], i+1); err != nil {
			pl.report = pl.report[:n] // a Move can fail after its chunks were reported
			return err
		}
		if pl.perSection {
			pl.endSection()
		}
	}
	if !pl.perSection {
		pl.formatEntries(pl.order)
	}
	return nil
}

// mark records that the current section changes e.
func (pl *planner) mark(e *entry) {
	if !slices.Contains(pl.marked, e) {
		pl.marked = append(pl.marked, e)
	}
}

// endSection formats the entries the section changed and records their state.
func (pl *planner) endSection() {
	for _, e := range pl.marked {
		e.fmt = formatResult{} // what a formatter did for an earlier section is not this one's
	}
	pl.formatEntries(pl.marked)
	sp := sectionPlan{live: slices.Clone(pl.marked), after: make([]entry, len(pl.marked))}
	for i, e := range pl.marked {
		sp.after[i] = *e // data is never changed in place, so the copy keeps this state
	}
	pl.sections = append(pl.sections, sp)
}

func (pl *planner) ioErr(path string, section int, msg string, err error) *Error {
	return &Error{Kind: KindIO, Path: path, Section: section, Msg: msg, Err: err}
}

// look returns the overlay entry for key, reading the disk the first time.
func (pl *planner) look(key, abs, path string, section int) (*entry, error) {
	if e, ok := pl.entries[key]; ok {
		return e, nil
	}
	e := &entry{key: key, abs: abs, path: path}
	// wfs.Read decides the type from Lstat, never opens a FIFO, socket or device (opening
	// one could block forever) and does not read a file over the size limit.
	snap, err := wfs.Read(pl.ctx, pl.a.fsys, key, pl.a.cfg.maxFileSize)
	if err != nil {
		if cerr := pl.ctx.Err(); cerr != nil {
			return nil, &Error{Kind: KindIO, Path: path, Section: section, Msg: "Patch planning was cancelled: " + cerr.Error(), Err: cerr}
		}
		return nil, pl.ioErr(path, section, fmt.Sprintf("Failed to read %s: %v", path, err), err)
	}
	if snap.Info != nil {
		if x := pl.alias(key, snap.Info); x != nil {
			pl.entries[key] = x
			return x, nil
		}
	}
	e.orig = snapshotOf(snap)
	e.orig.large = snap.Large
	e.exists = e.orig.exists
	e.data = e.orig.data
	e.mode = e.orig.mode
	pl.entries[key] = e
	fk := strings.ToLower(key)
	pl.folds[fk] = append(pl.folds[fk], key)
	pl.order = append(pl.order, e)
	return e, nil
}

// alias returns the overlay entry of another spelling of key that leads to the same file
// (info is key's Lstat) — on a case-insensitive volume "README.md" after "Readme.md" — so
// that the overlay holds one entry per file, as the volume does. Only keys already seen that
// differ from key in case alone are candidates, and identity is checked without following
// symbolic links.
func (pl *planner) alias(key string, info fs.FileInfo) *entry {
	for _, k := range pl.folds[strings.ToLower(key)] {
		if k == key || !strings.EqualFold(k, key) {
			continue
		}
		if xi, err := pl.a.fsys.Lstat(k); err == nil && wfs.SameFile(info, xi) {
			return pl.entries[k]
		}
	}
	return nil
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// The current kind of an overlay entry.
const (
	curNone = iota
	curFile
	curDir
	curLink
	curOther
)

func (e *entry) current() int {
	switch {
	case e.touched && e.exists:
		return curFile
	case e.touched || !e.orig.exists:
		return curNone
	case e.orig.dir:
		return curDir
	case e.orig.symlink:
		return curLink
	case e.orig.other:
		return curOther
	}
	return curFile
}

// reason explains why e is not a regular file.
func (pl *planner) reason(e *entry) string {
	switch k, _ := pl.kind(e); k {
	case curNone:
		return "file does not exist"
	case curDir:
		return "is a directory"
	}
	return "not a regular file"
}

// kind classifies the entry's planned state, counting directories the plan creates.
func (pl *planner) kind(e *entry) (int, bool) {
	if pl.dirs[e.key] {
		return curDir, true
	}
	k := e.current()
	return k, k == curDir
}

// state reports whether the entry is a regular file or a directory in the planned tree.
func (pl *planner) state(e *entry) (file, dir bool) {
	k, _ := pl.kind(e)
	return k == curFile, k == curDir
}

// checkParents verifies that every missing parent of key can be created.
func (pl *planner) checkParents(key, path string, section int) error {
	for dir := filepath.Dir(key); ; dir = filepath.Dir(dir) {
		if pl.dirs[dir] {
			return nil
		}
		if e, ok := pl.entries[dir]; ok {
			if k, _ := pl.kind(e); k != curDir && k != curNone {
				return &Error{Kind: KindPathConflict, Path: path, Section: section,
					Msg: fmt.Sprintf("Cannot create %s: %s is not a directory", path, pl.display(dir, key, path))}
			} else if k == curDir {
				return nil
			}
		} else {
			info, err := pl.a.fsys.Lstat(dir)
			switch {
			case err == nil && info.IsDir():
				return nil
			case err == nil:
				return &Error{Kind: KindPathConflict, Path: path, Section: section,
					Msg: fmt.Sprintf("Cannot create %s: %s is not a directory", path, pl.display(dir, key, path))}
			case !isNotExist(err):
				return pl.ioErr(path, section, fmt.Sprintf("Failed to inspect %s: %v", dir, err), err)
			}
		}
		if filepath.Dir(dir) == dir {
			return nil
		}
	}
}

// display renders the parent component dir of key as the patch wrote it, when possible.
func (pl *planner) display(dir, key, path string) string {
	rel, err := filepath.Rel(dir, key)
	if err != nil {
		return dir
	}
	p := filepath.ToSlash(path)
	relS := filepath.ToSlash(rel)
	if strings.HasSuffix(p, "/"+relS) {
		return strings.TrimSuffix(p, "/"+relS)
	}
	return dir
}

// markParents records the directories an upcoming write will create.
func (pl *planner) markParents(key string) {
	for dir := filepath.Dir(key); ; dir = filepath.Dir(dir) {
		if pl.dirs[dir] {
			return
		}
		if e, ok := pl.entries[dir]; ok && e.orig.dir {
			return
		}
		if info, err := pl.a.fsys.Lstat(dir); err == nil && info.IsDir() {
			return
		}
		pl.dirs[dir] = true
		if filepath.Dir(dir) == dir {
			return
		}
	}
}

func (pl *planner) canceled(path string, section int) error {
	if err := pl.ctx.Err(); err != nil {
		return &Error{Kind: KindIO, Path: path, Section: section,
			Msg: "Patch planning was cancelled: " + err.Error(), Err: err}
	}
	return nil
}

// notRegular refuses a section whose file is a FIFO, socket or device.
func (pl *planner) notRegular(h *Hunk, section int) *Error {
	return &Error{Kind: KindPathConflict, Path: h.Path, Line: h.Line, Section: section,
		Msg: fmt.Sprintf("%s is not a regular file (a FIFO, socket or device); only regular files can be patched", h.Path)}
}

// writable refuses a section that must write (or read whole) the file e holds as it was
// planned: one over the size limit (it can only be deleted) or one the process may not write.
func (pl *planner) writable(e *entry, h *Hunk, section int) *Error {
	switch {
	case e.orig.large:
		return &Error{Kind: KindTooLarge, Path: h.Path, Line: h.Line, Section: section,
			Msg: tooLargeMsg(h.Path, e.orig.snap.Info.Size(), pl.a.cfg.maxFileSize)}
	case !e.orig.snap.Writable():
		return &Error{Kind: KindReadOnly, Path: h.Path, Line: h.Line, Section: section, Msg: readOnlyMsg(h.Path)}
	}
	return nil
}

// hunk plans one section.
func (pl *planner) hunk(h *Hunk, section int) error {
	if err := pl.canceled(h.Path, section); err != nil {
		return err
	}
	cfg := &pl.a.cfg
	r := pl.paths[h.Path]
	switch h.Kind {
	case AddFile:
		key := r.real
		if lk, ok := pl.parents[h.Path]; ok && lk != key {
			// The path is a symbolic link. Deleted earlier in this patch, the link is gone and
			// the new file takes its place; otherwise the Add writes to the link's target.
			if x, ok := pl.entries[lk]; ok && x.touched && !x.exists {
				key = lk
			}
		}
		e, err := pl.look(key, r.abs, h.Path, section)
		if err != nil {
			return err
		}
		file, dir := pl.state(e)
		switch {
		case dir:
			return &Error{Kind: KindPathConflict, Path: h.Path, Line: h.Line, Section: section,
				Msg: fmt.Sprintf("Add File target is a directory: %s", h.Path)}
		case file && !cfg.overwrite:
			return &Error{Kind: KindExists, Path: h.Path, Line: h.Line, Section: section,
				Msg: fmt.Sprintf("Add File target already exists: %s. Use '*** Update File: %s' to change it, or delete it first.", h.Path, h.Path)}
		case e.current() != curNone && !file:
			return &Error{Kind: KindPathConflict, Path: h.Path, Line: h.Line, Section: section,
				Msg: fmt.Sprintf("Add File target is not a regular file: %s", h.Path)}
		}
		if n := int64(len(h.Contents)); n > cfg.maxFileSize {
			return &Error{Kind: KindTooLarge, Path: h.Path, Line: h.Line, Section: section, Msg: tooLargeMsg(h.Path, n, cfg.maxFileSize)}
		}
		if file && !e.touched {
			if err := pl.writable(e, h, section); err != nil {
				return err
			}
		}
		if err := pl.checkParents(key, h.Path, section); err != nil {
			return err
		}
		pl.markParents(key)
		if file && !e.touched {
			e.inherit = true // keeps the replaced file's mode
		} else if !file {
			e.mode, e.inherit = cfg.fileMode, false
		}
		e.exists, e.touched, e.data, e.movedFrom, e.path = true, true, []byte(h.Contents), nil, h.Path
		pl.mark(e)
		return nil
	case DeleteFile:
		key := pl.parents[h.Path]
		e, err := pl.look(key, r.abs, h.Path, section)
		if err != nil {
			return err
		}
		if k, _ := pl.kind(e); k == curOther {
			return pl.notRegular(h, section)
		} else if k != curFile && k != curLink {
			return &Error{Kind: KindMissingFile, Path: h.Path, Line: h.Line, Section: section,
				Msg: fmt.Sprintf("Failed to delete file %s: %s", h.Path, pl.reason(e))}
		}
		e.exists, e.touched, e.data, e.movedFrom = false, true, nil, nil
		pl.mark(e)
		return nil
	}
	// UpdateFile
	key := r.real
	if lk, ok := pl.parents[h.Path]; ok && lk != key {
		// The path was a symbolic link when the patch was checked. Once an earlier section
		// deleted or replaced the link itself, the path names what took its place (or
		// nothing), not the link's old target.
		if x, ok := pl.entries[lk]; ok && x.touched {
			key = lk
		}
	}
	e, err := pl.look(key, r.abs, h.Path, section)
	if err != nil {
		return err
	}
	if k, _ := pl.kind(e); k == curOther {
		return pl.notRegular(h, section)
	}
	if file, _ := pl.state(e); !file {
		return &Error{Kind: KindMissingFile, Path: h.Path, Line: h.Line, Section: section,
			Msg: fmt.Sprintf("Failed to read file to update %s: %s", h.Path, pl.reason(e))}
	}
	if !e.touched {
		if err := pl.writable(e, h, section); err != nil {
			return err
		}
	}
	d := parseDoc(e.data, cfg.eol == EOLCodex)
	places, reps, err := locate(cfg, h.Path, section, d, h.Chunks)
	if err != nil {
		if pe := (*Error)(nil); errors.As(err, &pe) && pe.Line == 0 {
			pe.Line = h.Line
		}
		return err
	}
	if err := pl.canceled(h.Path, section); err != nil {
		return err
	}
	pl.report = append(pl.report, reps...)
	if pl.onSection != nil {
		pl.onSection(e.data, d, places, reps)
	}
	out := render(d, places, cfg.eol)
	if !e.touched {
		// An updated file keeps its whole mode, set exactly after the write (the umask
		// cannot narrow it). A file an earlier section wrote keeps the mode that section
		// gave it: exactly, or under the umask when the patch created it.
		e.inherit = true
	}
	if h.MoveTo == "" {
		e.data, e.touched = out, true
		pl.mark(e)
		return nil
	}
	mr := pl.paths[h.MoveTo]
	if mr.real == r.real && !cfg.overwrite && !strings.EqualFold(mr.abs, r.abs) {
		// Another name (a symbolic link) of the source: the destination exists.
		return &Error{Kind: KindExists, Path: h.MoveTo, Line: h.Line, Section: section,
			Msg: fmt.Sprintf("Move destination already exists: %s (a symbolic link to %s)", h.MoveTo, h.Path)}
	}
	if x, ok := pl.entries[mr.real]; mr.real == r.real || ok && x == e {
		e.data, e.touched = out, true // a move onto itself is an in-place update
		pl.mark(e)
		return nil
	}
	if pl.sameFile(r.real, mr.real) {
		if pl.caseOnly(r.real, mr.real) {
			return pl.renameCase(e, mr, h, section, out)
		}
		if !cfg.overwrite {
			return &Error{Kind: KindExists, Path: h.MoveTo, Line: h.Line, Section: section,
				Msg: fmt.Sprintf("Move destination already exists: %s (another name of %s)", h.MoveTo, h.Path)}
		}
		e.data, e.touched = out, true // another name of the same file: an in-place update
		pl.mark(e)
		return nil
	}
	dst, err := pl.look(mr.real, mr.abs, h.MoveTo, section)
	if err != nil {
		return err
	}
	file, dir := pl.state(dst)
	switch {
	case dir:
		return &Error{Kind: KindPathConflict, Path: h.MoveTo, Line: h.Line, Section: section,
			Msg: fmt.Sprintf("Move destination is a directory: %s", h.MoveTo)}
	case file && !cfg.overwrite:
		return &Error{Kind: KindExists, Path: h.MoveTo, Line: h.Line, Section: section,
			Msg: fmt.Sprintf("Move destination already exists: %s", h.MoveTo)}
	case dst.current() != curNone && !file:
		return &Error{Kind: KindPathConflict, Path: h.MoveTo, Line: h.Line, Section: section,
			Msg: fmt.Sprintf("Move destination is not a regular file: %s", h.MoveTo)}
	}
	if err := pl.checkParents(mr.real, h.MoveTo, section); err != nil {
		return err
	}
	pl.markParents(mr.real)
	// The destination takes the source's mode as the source has it: exactly when it came
	// from a file, under the umask when the patch created the source.
	dst.exists, dst.touched, dst.data, dst.mode, dst.inherit, dst.path = true, true, out, e.mode, e.inherit, h.MoveTo
	dst.movedFrom = e
	if e.movedFrom != nil {
		dst.movedFrom = e.movedFrom
	}
	e.exists, e.touched, e.data, e.movedFrom = false, true, nil, nil
	pl.mark(e)
	pl.mark(dst)
	return nil
}

// sameFile reports whether two different real paths name one existing file (a
// case-insensitive volume, or a hard link). wfs.SameFile compares MemFS files by identity
// and defers to os.SameFile for the operating system's FileInfos.
func (pl *planner) sameFile(a, b string) bool {
	ia, err1 := pl.a.fsys.Stat(a)
	ib, err2 := pl.a.fsys.Stat(b)
	return err1 == nil && err2 == nil && wfs.SameFile(ia, ib)
}

// caseOnly reports whether the real paths a and b, already known to name one file, differ
// only in the case of their final element and lie in the same directory: a case-only rename
// such as Readme.md → README.md on a case-insensitive volume.
func (pl *planner) caseOnly(a, b string) bool {
	ba, bb := filepath.Base(a), filepath.Base(b)
	if ba == bb || !strings.EqualFold(ba, bb) {
		return false
	}
	da, db := filepath.Dir(a), filepath.Dir(b)
	return da == db || pl.sameFile(da, db)
}

// renameCase plans a case-only rename of the file of e to the spelling of mr. It is planned as a move — the destination entry holds the new content and records
// the source, so the result reports "M <new spelling>" like any move — with two
// differences that keep the user's file safe, because on disk both names lead to the one
// file:
//
//   - the destination lives in the source's directory and is marked sameAs the source, so
//     the commit does not expect its name to be absent before the source is set aside, and
//     re-checks that it is absent right before the new file is renamed into place;
//   - every overlay key that led to the source (and both spellings of the destination) now
//     leads to the destination, so later sections see one file, as the volume does.
//
// The commit then sets the source aside (rename to a temporary sibling), renames the staged
// new content to the new spelling, and removes the set-aside file last: the destination is
// never written while the source name still leads to it, and a failure at any step is
// undone by renaming back.
func (pl *planner) renameCase(e *entry, mr resolved, h *Hunk, section int, out []byte) error {
	key := filepath.Join(filepath.Dir(e.key), filepath.Base(mr.real))
	for _, k := range []string{key, mr.real} {
		if x, ok := pl.entries[k]; ok && x != e {
			return &Error{Kind: KindPathConflict, Path: h.MoveTo, Line: h.Line, Section: section,
				Msg: fmt.Sprintf("Move destination %s is another spelling of %s on a case-insensitive volume, and an earlier section already changed it under that spelling; rename the file in a patch of its own", h.MoveTo, h.Path)}
		}
	}
	d := &entry{key: key, abs: mr.abs, path: h.MoveTo, exists: true, touched: true, data: out,
		mode: e.mode, inherit: e.inherit, movedFrom: e, sameAs: e}
	if e.movedFrom != nil {
		d.movedFrom = e.movedFrom
	}
	e.exists, e.touched, e.data, e.movedFrom = false, true, nil, nil
	for k, x := range pl.entries {
		if x == e {
			pl.entries[k] = d
		}
	}
	for _, k := range []string{key, mr.real} {
		if _, ok := pl.entries[k]; !ok {
			fk := strings.ToLower(k)
			pl.folds[fk] = append(pl.folds[fk], k)
		}
		pl.entries[k] = d
	}
	pl.order = append(pl.order, d)
	pl.mark(e)
	pl.mark(d)
	return nil
}

// changes computes the net effect per path.
func netChanges(order []*entry) ([]FileChange, summaryLines) {
	var out []FileChange
	var sum summaryLines
	movedSources := map[*entry]bool{}
	for _, e := range order {
		if e.touched && e.exists && e.movedFrom != nil && e.movedFrom.orig.exists && !e.movedFrom.exists {
			movedSources[e.movedFrom] = true
		}
	}
	for _, e := range order {
		if !e.touched {
			continue
		}
		fc := FileChange{Path: e.path, Abs: e.abs, Mode: e.mode,
			Formatter: e.fmt.name, FormatDiff: e.fmt.diff, FormatNote: e.fmt.note}
		if e.orig.exists && !e.orig.dir {
			fc.Before = e.orig.data
		}
		switch {
		case e.exists && e.movedFrom != nil && movedSources[e.movedFrom]:
			fc.Op, fc.From, fc.FromAbs, fc.After = Moved, e.movedFrom.path, e.movedFrom.abs, e.data
			sum.m = append(sum.m, e.path)
		case e.exists && !e.orig.exists:
			fc.Op, fc.After = Added, e.data
			sum.a = append(sum.a, e.path)
		case e.exists:
			fc.Op, fc.After = Modified, e.data
			sum.m = append(sum.m, e.path)
		case e.orig.exists && !movedSources[e]:
			fc.Op = Deleted
			sum.d = append(sum.d, e.path)
		default:
			continue
		}
		out = append(out, fc)
	}
	return out, sum
}

// reportWritten records on e the net changes of the first n sections of a non-atomic plan,
// which the commit wrote before section n+1 failed, and names them in the message (the
// commit's own message already says which sections were written; a planning failure's does
// not, so say is set for it).
func (pl *planner) reportWritten(e *Error, n int, say bool) {
	at := map[*entry]*entry{}
	for _, sp := range pl.sections[:min(n, len(pl.sections))] {
		for i, live := range sp.live {
			c := sp.after[i]
			at[live] = &c
		}
	}
	var order []*entry
	for _, live := range pl.order {
		if c, ok := at[live]; ok {
			order = append(order, c)
		}
	}
	for _, c := range order {
		if m, ok := at[c.movedFrom]; ok {
			c.movedFrom = m
		}
	}
	var sum summaryLines
	e.Written, sum = netChanges(order)
	if len(e.Written) == 0 {
		return
	}
	var b strings.Builder
	if say {
		if n == 1 {
			b.WriteString(" (in section 2; section 1 was written and stays)")
		} else {
			fmt.Fprintf(&b, " (in section %d; sections 1-%d were written and stay)", n+1, n)
		}
	}
	fmt.Fprintf(&b, "\nAlready written, do not send again (send only section %d and those after it):", n+1)
	for _, l := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(sum.String(), "Success. Updated the following files:\n"), "\n"), "\n") {
		b.WriteString("\n" + l)
	}
	e.Msg += b.String()
}
