package patch

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnesskit/harnesskit/wfs"
)

// The commit: every changed entry becomes one operation of a wfs transaction, which locks the
// targets' directories against every other harnesskit writer, re-checks each file against
// the plan's snapshot, journals, stages, switches and syncs (see package wfs), and undoes
// everything if a step fails.

// commitEntries writes the plan's entries all or nothing. It returns the state each written
// entry left on disk, by entry.
func (a *Applier) commitEntries(ctx context.Context, entries []*entry) (map[*entry]wfs.Snapshot, *wfs.Committed, error) {
	tx, err := wfs.Begin(a.fsys, a.root, wfs.WithMaxFileSize(a.cfg.maxFileSize),
		wfs.WithDirMode(a.cfg.dirMode), wfs.WithRandom(a.cfg.random), wfs.WithTrees(append(a.ct.Bases(), a.cfg.worktrees...)...))
	if err != nil {
		return nil, nil, &Error{Kind: KindIO, Err: err, Msg: "Failed to apply changes: " + err.Error()}
	}
	var ops []*entry
	for _, e := range entries {
		if !e.touched {
			continue
		}
		prev := e.orig.snap
		if prev.Name == "" {
			prev = wfs.Absent(e.key) // the new spelling of a case-only rename
		}
		switch {
		case e.exists:
			var opts []wfs.WriteOption
			if e.inherit {
				opts = append(opts, wfs.ExactMode(e.mode))
			} else {
				opts = append(opts, wfs.NewMode(e.mode))
			}
			if e.orig.symlink {
				opts = append(opts, wfs.ReplaceLink()) // the patch deleted the link, then added a file there
			}
			if e.sameAs != nil {
				opts = append(opts, wfs.CheckAtTurn())
			}
			if m := e.movedFrom; m != nil && e.inherit && !e.orig.exists && m.orig.exists {
				opts = append(opts, wfs.MetaFrom(m.key)) // a move keeps its source's owner and attributes
			}
			tx.Write(prev, e.data, opts...)
		case e.orig.exists:
			tx.Delete(prev)
		default:
			continue // created and deleted by the same patch
		}
		ops = append(ops, e)
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		return nil, nil, a.commitErr(ops, err)
	}
	after := make(map[*entry]wfs.Snapshot, len(ops))
	for i, e := range ops {
		after[e] = res.After[i]
	}
	return after, res, nil
}

// commitErr turns a failed transaction into the package's error, naming the path as the
// patch wrote it.
func (a *Applier) commitErr(ops []*entry, err error) *Error {
	var we *wfs.Error
	if !errors.As(err, &we) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return &Error{Kind: KindIO, Msg: "Patch commit was cancelled before anything was written: " + err.Error(), Err: err}
		}
		return &Error{Kind: KindIO, Err: err, Msg: "Failed to apply changes: " + err.Error()}
	}
	byKey := func(key string) string {
		for _, e := range ops {
			if e.key == key {
				return e.path
			}
		}
		return key
	}
	path := byKey(we.Name)
	switch {
	case we.SameAs != "":
		return &Error{Kind: KindPathConflict, Path: path, Err: err,
			Msg: fmt.Sprintf("%s is the file %s that the patch also writes (the volume ignores case); name each file one way in a patch; nothing was written", path, byKey(we.SameAs))}
	case errors.Is(err, wfs.ErrInUse):
		return &Error{Kind: KindBusy, Path: path, Err: err,
			Msg: fmt.Sprintf("%s is in use by another program: close it there and apply again; nothing was written", path)}
	case errors.Is(err, wfs.ErrBusy):
		return &Error{Kind: KindBusy, Path: path, Err: err,
			Msg: fmt.Sprintf("%s is being written by another writer (the lock of its directory stayed held); nothing was written. Apply the patch again in a moment", path)}
	case errors.Is(err, wfs.ErrTooLarge):
		return &Error{Kind: KindTooLarge, Path: path, Err: err, Msg: tooLargeMsg(path, we.Size, we.Limit)}
	case errors.Is(err, wfs.ErrReadOnly):
		return &Error{Kind: KindReadOnly, Path: path, Err: err, Msg: readOnlyMsg(path)}
	case errors.Is(err, wfs.ErrSpecial):
		return &Error{Kind: KindPathConflict, Path: path, Err: err,
			Msg: fmt.Sprintf("%s is not a regular file (a FIFO, socket or device); only regular files can be patched", path)}
	case errors.Is(err, wfs.ErrChanged):
		return &Error{Kind: KindChanged, Path: path, Err: err,
			Msg: fmt.Sprintf("File changed on disk since the patch was planned: %s", path)}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindIO, Path: path, Err: err,
			Msg: "Patch commit was cancelled before anything was written: " + err.Error()}
	}
	cause := we.Err
	if len(we.NotRestored) > 0 {
		var names []string
		for _, n := range we.NotRestored {
			names = append(names, byKey(n))
		}
		slices.Sort(names)
		return &Error{Kind: KindIO, Path: path, Err: err,
			Msg: fmt.Sprintf("Failed to apply changes and rollback was incomplete: %v; not restored: %s", cause, strings.Join(names, ", "))}
	}
	if we.RolledBack {
		return &Error{Kind: KindIO, Path: path, Err: err, Msg: fmt.Sprintf("Failed to apply changes; rolled back: %v", cause)}
	}
	// A failure while staging: what was staged is removed, nothing was switched.
	return &Error{Kind: KindIO, Path: path, Err: err, Msg: fmt.Sprintf("Failed to apply changes; rolled back: %v", we)}
}

func tooLargeMsg(path string, size, limit int64) string {
	return fmt.Sprintf("File too large to patch: %s (%d bytes; the limit is %d bytes). Edit it with another tool, or split it", path, size, limit)
}

func readOnlyMsg(path string) string {
	return fmt.Sprintf("File is read-only: %s (no write permission); nothing was written. Make it writable first if it is meant to be edited", path)
}

// commitSections writes the sections of a non-atomic plan one at a time, each all or
// nothing with commitEntries. A section's entries are checked against the state the sections
// before it left: the plan's snapshot for an entry no earlier section wrote, else what that
// section wrote. When a section fails, the sections before it stay written and the error
// names the failing one.
func (a *Applier) commitSections(ctx context.Context, secs []sectionPlan) ([]wfs.Recovery, error) {
	var recovered []wfs.Recovery
	disk := map[*entry]snapshot{} // the state the written sections left, by planner entry
	for k, sp := range secs {
		es := make([]*entry, len(sp.after))
		for i := range sp.after {
			c := sp.after[i]
			if d, ok := disk[sp.live[i]]; ok {
				c.orig, c.sameAs = d, nil // a case-only rename is done once its section is written
			}
			es[i] = &c
		}
		if err := a.sameFileAsWritten(es, disk); err != nil {
			return recovered, sectionErr(err, k+1)
		}
		if err := ctx.Err(); err != nil && k > 0 {
			return recovered, sectionErr(&Error{Kind: KindIO, Err: err,
				Msg: fmt.Sprintf("Patch commit was cancelled before section %d was written: %v", k+1, err)}, k+1)
		}
		after, res, err := a.commitEntries(ctx, es)
		if err != nil {
			return recovered, sectionErr(err, k+1)
		}
		recovered = mergeRecovered(recovered, res.Recovered)
		for i, c := range es {
			if s, ok := after[c]; ok {
				disk[sp.live[i]] = snapshotOf(s)
			}
		}
	}
	return recovered, nil
}

// snapshotOf is the planner's view of a wfs snapshot.
func snapshotOf(s wfs.Snapshot) snapshot {
	o := snapshot{snap: s}
	switch s.Type {
	case wfs.TypeAbsent:
		return o
	case wfs.TypeDir:
		o.dir = true
	case wfs.TypeSymlink:
		o.symlink, o.target = true, s.Target
	case wfs.TypeSpecial:
		o.other = true
	case wfs.TypeFile:
		o.data = s.Data
	}
	o.exists = true
	o.mode = s.Info.Mode() & wfs.ModeBits
	return o
}

// sameFileAsWritten refuses a section that creates a name which, on a case-insensitive
// volume, leads to a file an earlier section of the patch created under another spelling.
// The plan took the two names for two files, as nothing could tell them apart before either
// existed; without this check the commit would report the name as changed on disk.
func (a *Applier) sameFileAsWritten(es []*entry, disk map[*entry]snapshot) error {
	for _, c := range es {
		if c.sameAs != nil {
			continue
		}
		w := a.caseTwin(c, func(yield func(*entry) bool) {
			for w, d := range disk {
				if d.exists && !yield(w) {
					return
				}
			}
		})
		if w != nil {
			return &Error{Kind: KindPathConflict, Path: c.path,
				Msg: fmt.Sprintf("%s is the file %s that an earlier section wrote (the volume ignores case); name each file one way in a patch", c.path, w.path)}
		}
	}
	return nil
}

// caseTwin returns the first of written whose file e's name leads to on a case-insensitive
// volume: a name that differs from e's only in the case of its last element, where e did
// not exist when planned (the plan took the two names, both absent then, for two files). It
// returns nil when there is none.
func (a *Applier) caseTwin(e *entry, written iter.Seq[*entry]) *entry {
	if e.orig.exists {
		return nil
	}
	info, err := a.fsys.Lstat(e.key)
	if err != nil {
		return nil
	}
	for w := range written {
		if w.key == e.key || !strings.EqualFold(filepath.Base(w.key), filepath.Base(e.key)) {
			continue
		}
		if wi, err := a.fsys.Lstat(w.key); err == nil && wfs.SameFile(info, wi) {
			return w
		}
	}
	return nil
}

// sectionErr says which section of a non-atomic commit failed (Section, and in the message
// the sections before it, which stay written).
func sectionErr(err error, section int) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Section == 0 {
		e.Section = section
	}
	switch {
	case section == 2:
		e.Msg += " (in section 2; section 1 was written and stays)"
	case section > 2:
		e.Msg += fmt.Sprintf(" (in section %d; sections 1-%d were written and stay)", section, section-1)
	}
	return e
}
