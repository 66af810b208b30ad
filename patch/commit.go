package patch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/harnesskit/harnesskit/internal/wfs"
)

// The commit: re-check every snapshot, stage each new file as a temporary sibling,
// then switch in patch order — re-checking each file's hash right before its rename — and
// undo every completed step from the snapshots if anything fails.

// undo kinds
const (
	stepReplaced = iota // a temporary was renamed over key
	stepAside           // key was renamed to aside (a delete or a move source)
)

type step struct {
	kind  int
	e     *entry
	aside string
}

type committer struct {
	a       *Applier
	temps   map[*entry]string // staged temporaries by entry
	created []string          // directories created, in creation order
	done    []step
	asides  []step
}

func (a *Applier) randomHex() (string, error) {
	var b [4]byte
	r := a.cfg.random
	if r == nil {
		r = rand.Reader
	}
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// sibling returns a fresh temporary name next to key (see [IsLeftover] for the pattern).
func (c *committer) sibling(key string) (string, error) {
	h, err := c.a.randomHex()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(key), "."+filepath.Base(key)+tempMark+h+".tmp"), nil
}

// tempMark is the part of every temporary name that says who made it.
const tempMark = ".hkpatch-"

// leftoverName matches the temporaries a commit creates next to the files it writes.
var leftoverName = regexp.MustCompile(`^\..+\.hkpatch-[0-9a-f]{8}\.tmp$`)

// IsLeftover reports whether base is the name of a temporary file a commit creates next to a
// file it writes: ".<name>.hkpatch-<8 hex digits>.tmp". A commit removes its temporaries, also
// when it fails; one is left only when the process dies mid-commit. [Applier.Plan] reports
// such files in the directories a plan touches (Plan.Leftovers) and never deletes them: a
// host may remove them once no commit is running.
func IsLeftover(base string) bool { return leftoverName.MatchString(base) }

// asideName returns a free temporary sibling name for setting key aside. A rename replaces
// whatever holds the new name, so the name is checked first: on a case-insensitive volume
// the aside of "Readme.md" and the staged temporary of "README.md" could otherwise be one
// file when the random source repeats itself.
func (c *committer) asideName(key string) (string, error) {
	for attempt := 0; ; attempt++ {
		n, err := c.sibling(key)
		if err != nil {
			return "", err
		}
		_, err = c.a.fsys.Lstat(n)
		switch {
		case isNotExist(err):
			return n, nil
		case err != nil:
			return "", err
		case attempt >= 8:
			return "", fmt.Errorf("no free temporary name next to %s (last tried %s)", key, n)
		}
	}
}

// writeTemp writes data to a new temporary sibling of key with mode (set exactly when
// exact), synced and closed.
func (c *committer) writeTemp(key string, data []byte, mode fs.FileMode, exact bool) (string, error) {
	var name string
	var f File
	for attempt := 0; ; attempt++ {
		n, err := c.sibling(key)
		if err != nil {
			return "", err
		}
		f, err = c.a.fsys.OpenFile(n, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode.Perm())
		if err == nil {
			name = n
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt >= 8 {
			return "", err
		}
	}
	// The order: write, sync, set an inherited mode exactly (the umask cannot narrow it),
	// close.
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil && exact {
		err = c.a.fsys.Chmod(name, mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = c.a.fsys.Remove(name)
		return "", err
	}
	return name, nil
}

// mkdirs creates the missing parents of key, recording them.
func (c *committer) mkdirs(key string) error {
	var missing []string
	for dir := filepath.Dir(key); ; dir = filepath.Dir(dir) {
		info, err := c.a.fsys.Lstat(dir)
		if err == nil {
			if !info.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			break
		}
		if !isNotExist(err) {
			return err
		}
		missing = append(missing, dir)
		if filepath.Dir(dir) == dir {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := c.a.fsys.Mkdir(missing[i], c.a.cfg.dirMode); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			return err
		}
		c.created = append(c.created, missing[i])
	}
	return nil
}

func changedErr(e *entry) *Error {
	return &Error{Kind: KindChanged, Path: e.path,
		Msg: fmt.Sprintf("File changed on disk since the patch was planned: %s", e.path)}
}

// commit writes the plan's entries all or nothing.
func (a *Applier) commitEntries(ctx context.Context, entries []*entry) error {
	// Every snapshot still holds. The destination of a case-only rename is skipped: its
	// name leads to the source's file (checked through the source) until the switch sets that
	// file aside, and the switch re-checks that the name is free right before its rename.
	for _, e := range entries {
		if e.sameAs != nil {
			continue
		}
		ok, err := a.unchanged(e)
		if err != nil {
			return &Error{Kind: KindIO, Path: e.path, Msg: fmt.Sprintf("Failed to re-read %s: %v", e.path, err), Err: err}
		}
		if !ok {
			return changedErr(e)
		}
	}
	if err := ctx.Err(); err != nil {
		return &Error{Kind: KindIO, Msg: "Patch commit was cancelled before anything was written: " + err.Error(), Err: err}
	}
	c := &committer{a: a, temps: map[*entry]string{}}
	// Staging.
	for _, e := range entries {
		if !e.touched || !e.exists {
			continue
		}
		if err := c.mkdirs(e.key); err != nil {
			return c.fail(err)
		}
		name, err := c.writeTemp(e.key, e.data, e.mode, e.inherit)
		if err != nil {
			return c.fail(err)
		}
		c.temps[e] = name
	}
	// Switch, in order.
	for _, e := range entries {
		if !e.touched {
			continue
		}
		if ok, err := a.unchanged(e); err != nil || !ok {
			if err == nil {
				if w := c.writtenAs(e); w != nil {
					return c.failWith(&Error{Kind: KindPathConflict, Path: e.path,
						Msg: fmt.Sprintf("%s is the file %s that the patch also writes (the volume ignores case); name each file one way in a patch; nothing was written", e.path, w.path)})
				}
				return c.failWith(changedErr(e))
			}
			return c.fail(err)
		}
		if e.exists {
			if err := a.fsys.Rename(c.temps[e], e.key); err != nil {
				return c.fail(err)
			}
			delete(c.temps, e)
			c.done = append(c.done, step{kind: stepReplaced, e: e})
			continue
		}
		if !e.orig.exists {
			continue // created and deleted by the same patch
		}
		aside, err := c.asideName(e.key)
		if err != nil {
			return c.fail(err)
		}
		if err := a.fsys.Rename(e.key, aside); err != nil {
			return c.fail(err)
		}
		s := step{kind: stepAside, e: e, aside: aside}
		c.done = append(c.done, s)
		c.asides = append(c.asides, s)
	}
	// Cleanup: the set-aside entries go for good.
	for i, s := range c.asides {
		if err := a.fsys.Remove(s.aside); err != nil {
			// Entries already removed can only be restored from their snapshots.
			for _, r := range c.asides[:i] {
				idx := slices.IndexFunc(c.done, func(d step) bool { return d.aside == r.aside })
				c.done[idx].aside = ""
			}
			return c.fail(err)
		}
	}
	return nil
}

// commitSections writes the sections of a non-atomic plan one at a time, each all or
// nothing with commitEntries. A section's entries are checked against the state the sections
// before it left: the plan's snapshot for an entry no earlier section wrote, else what that
// section wrote (its mode read back, as the umask may have narrowed it). When a section
// fails, the sections before it stay written and the error names the failing one.
func (a *Applier) commitSections(ctx context.Context, secs []sectionPlan) error {
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
			return sectionErr(err, k+1)
		}
		if err := ctx.Err(); err != nil && k > 0 {
			return sectionErr(&Error{Kind: KindIO, Err: err,
				Msg: fmt.Sprintf("Patch commit was cancelled before section %d was written: %v", k+1, err)}, k+1)
		}
		if err := a.commitEntries(ctx, es); err != nil {
			return sectionErr(err, k+1)
		}
		for i, c := range es {
			d := snapshot{exists: c.exists}
			if c.exists {
				d.data, d.mode = c.data, c.mode&wfs.ModeBits
				if info, err := a.fsys.Lstat(c.key); err == nil {
					d.mode = info.Mode() & wfs.ModeBits
				}
			}
			disk[sp.live[i]] = d
		}
	}
	return nil
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

// writtenAs is caseTwin over the entries this commit already renamed into place.
func (c *committer) writtenAs(e *entry) *entry {
	return c.a.caseTwin(e, func(yield func(*entry) bool) {
		for _, s := range c.done {
			if s.kind == stepReplaced && !yield(s.e) {
				return
			}
		}
	})
}

func (c *committer) fail(cause error) error {
	return c.failWith(&Error{Kind: KindIO, Err: cause})
}

// failWith undoes every completed step in reverse order and returns the error to report:
// the KindChanged error itself, or KindIO "Failed to apply changes; rolled back: …", or the
// incomplete-rollback error.
func (c *committer) failWith(e *Error) error {
	fsys := c.a.fsys
	var notRestored []string
	var undoErr error
	for i := len(c.done) - 1; i >= 0; i-- {
		s := c.done[i]
		var err error
		switch {
		case s.kind == stepAside && s.aside != "":
			err = fsys.Rename(s.aside, s.e.key)
		case s.e.orig.exists && !s.e.orig.symlink:
			var tmp string
			tmp, err = c.writeTemp(s.e.key, s.e.orig.data, s.e.orig.mode, true)
			if err == nil {
				if err = fsys.Rename(tmp, s.e.key); err != nil {
					_ = fsys.Remove(tmp)
				}
			}
		case s.e.orig.exists:
			err = fmt.Errorf("cannot recreate symbolic link %s", s.e.path)
		default:
			err = fsys.Remove(s.e.key)
		}
		if err != nil {
			notRestored = append(notRestored, s.e.path)
			if undoErr == nil {
				undoErr = err
			}
		}
	}
	for _, t := range c.temps {
		if err := fsys.Remove(t); err != nil && !isNotExist(err) {
			notRestored = append(notRestored, t)
		}
	}
	for i := len(c.created) - 1; i >= 0; i-- {
		_ = fsys.Remove(c.created[i]) // only succeeds when empty, as wanted
	}
	cause := e.Err
	causeText := ""
	if cause != nil {
		causeText = cause.Error()
	}
	if e.Kind != KindIO {
		causeText = e.Msg
	}
	if len(notRestored) > 0 {
		slices.Sort(notRestored)
		return &Error{Kind: KindIO, Path: e.Path, Err: errors.Join(cause, undoErr),
			Msg: fmt.Sprintf("Failed to apply changes and rollback was incomplete: %s; not restored: %s",
				causeText, strings.Join(notRestored, ", "))}
	}
	if e.Kind != KindIO {
		return e // a refusal found at the switch (changed on disk, one file under two names)
	}
	return &Error{Kind: KindIO, Path: e.Path, Err: cause,
		Msg: "Failed to apply changes; rolled back: " + causeText}
}
