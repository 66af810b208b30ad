package wfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// An Outcome says what [Recover] did with an interrupted commit.
type Outcome uint8

const (
	// RolledForward: the commit had staged everything; recovery finished it, so every
	// target holds what the commit wrote.
	RolledForward Outcome = iota + 1
	// RolledBack: the commit had not staged everything (or was being undone); recovery
	// undid it, so every target holds what it held before.
	RolledBack
)

func (o Outcome) String() string {
	switch o {
	case RolledForward:
		return "rolled forward"
	case RolledBack:
		return "rolled back"
	}
	return "unknown outcome"
}

// A Recovery reports one interrupted commit that [Recover] (or a commit) finished or undid.
type Recovery struct {
	Journal string   // the journal file, now removed
	Outcome Outcome  // what was done
	Names   []string // the commit's targets, in its order
	// Conflicts lists the targets that someone else changed after the crash: they were left
	// as found (the other writer's content kept), the commit's content dropped.
	Conflicts []string
}

// String is one line for a host's log or a command's stderr, for example "wfs: finished
// an interrupted commit of 3 files (a.txt, b.txt, c.txt); journal /w/.hkwfs/….journal".
func (r Recovery) String() string {
	what := "finished"
	if r.Outcome == RolledBack {
		what = "undid"
	}
	s := fmt.Sprintf("wfs: %s an interrupted commit of %d %s (%s); journal %s", what, len(r.Names),
		plural(len(r.Names), "file", "files"), strings.Join(r.Names, ", "), r.Journal)
	if len(r.Conflicts) > 0 {
		s += "; changed by another writer since, left as found: " + strings.Join(r.Conflicts, ", ")
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Recover finishes or undoes the commits in root/[JournalDir] whose writers died, and
// reports each. A journal whose writer is alive (it holds the journal's lock) is left alone,
// and so is one whose targets' locks stay held by live writers beyond the lock wait. A
// commit whose every temporary was staged (its journal has the commit mark) is rolled
// forward; any other is rolled back. Before each step recovery compares the target with the
// journal's recorded before and after states, so it can run any number of times, be killed
// at any point and run again, and never overwrites what another writer wrote since the crash
// (such a target is listed in Conflicts). When nothing is pending its cost is one Lstat.
//
// Errors: journals that cannot be read or parsed, and I/O failures, joined; the recoveries
// that succeeded are returned with them.
func Recover(ctx context.Context, fsys FS, root string) ([]Recovery, error) {
	if !filepath.IsAbs(root) {
		return nil, &fs.PathError{Op: "recover", Path: root, Err: ErrNotAbs}
	}
	cfg := txConfig{limit: DefaultMaxFileSize, lockWait: DefaultLockWait}
	return recoverPending(ctx, fsys, filepath.Clean(root), cfg, "")
}

// recoverPending is Recover with a configuration, skipping the journal own (the caller's).
func recoverPending(ctx context.Context, fsys FS, root string, cfg txConfig, own string) ([]Recovery, error) {
	return recoverDir(ctx, fsys, filepath.Join(root, JournalDir), cfg, own)
}

// recoverAround recovers the journals of root and of every directory between root and the
// targets' directories: the journals of writers whose tree is nested in root's.
func recoverAround(ctx context.Context, fsys FS, root string, targets []string, cfg txConfig, own string) ([]Recovery, error) {
	seen := map[string]bool{}
	var out []Recovery
	var errs []error
	visit := func(d string) {
		if seen[d] {
			return
		}
		seen[d] = true
		r, err := recoverDir(ctx, fsys, filepath.Join(d, JournalDir), cfg, own)
		out = append(out, r...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	visit(root)
	for _, t := range targets {
		for d := filepath.Dir(t); ; d = filepath.Dir(d) {
			if _, ok := within(root, d); !ok || d == root {
				break
			}
			visit(d)
		}
	}
	return out, errors.Join(errs...)
}

// recoverDir recovers the journals in the journal directory dir.
func recoverDir(ctx context.Context, fsys FS, dir string, cfg txConfig, own string) ([]Recovery, error) {
	if _, err := fsys.Lstat(dir); isNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, &Error{Op: "recover", Name: dir, Err: err}
	}
	if err := ownFile(fsys, dir, fs.ModeDir|0o700); err != nil {
		if isNotExist(err) {
			return nil, nil // removed meanwhile, empty, by the writer that finished last
		}
		return nil, &Error{Op: "recover", Name: dir, Err: err}
	}
	rd, ok := fsys.(ReadDirFS)
	if !ok {
		return nil, nil // no way to list the journals
	}
	ents, err := rd.ReadDir(dir)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, &Error{Op: "recover", Name: dir, Err: err}
	}
	var out []Recovery
	var errs []error
	for _, d := range ents {
		name := filepath.Join(dir, d.Name())
		switch {
		case name == own:
		case isJournal(d.Name()):
			r, err := recoverJournal(ctx, fsys, name, cfg)
			if err != nil {
				errs = append(errs, err)
			}
			if r != nil {
				out = append(out, *r)
			}
		case strings.HasSuffix(d.Name(), ".new"):
			// A journal whose writer died before it was complete: nothing was staged.
			if unlock, ok := tryLockDead(fsys, name); ok {
				_ = fsys.Remove(name)
				unlock()
			}
		}
	}
	_ = fsys.Remove(dir) // when empty
	return out, errors.Join(errs...)
}

// tryLockDead takes the lock of a journal when its writer is gone (an FS without locks
// cannot tell, and every journal counts as a dead writer's).
func tryLockDead(fsys FS, name string) (func(), bool) {
	lf, ok := fsys.(LockFS)
	if !ok {
		return func() {}, true
	}
	u, err := lf.TryLock(name)
	if err != nil {
		return nil, false
	}
	return u, true
}

// recoverJournal recovers one journal; it returns nil, nil when the journal is not a dead
// writer's (or is gone).
func recoverJournal(ctx context.Context, fsys FS, name string, cfg txConfig) (*Recovery, error) {
	unlock, ok := tryLockDead(fsys, name)
	if !ok {
		return nil, nil
	}
	defer unlock()
	if err := ownFile(fsys, name, 0o600); err != nil {
		if isNotExist(err) {
			return nil, nil // finished meanwhile
		}
		return nil, &Error{Op: "recover", Name: name, Err: err}
	}
	b, err := fsys.ReadFile(name)
	if isNotExist(err) {
		return nil, nil // finished meanwhile
	}
	if err != nil {
		return nil, &Error{Op: "recover", Name: name, Err: err}
	}
	p, err := parseJournal(b)
	if err == nil {
		err = p.validate()
	}
	if err != nil {
		return nil, &Error{Op: "recover", Name: name, Err: err}
	}
	var dirs []string
	for _, o := range p.ops {
		dirs = append(dirs, filepath.Dir(o.Name))
	}
	for _, s := range p.scratch {
		dirs = append(dirs, filepath.Dir(s))
	}
	release, err := lockDirs(ctx, fsys, dirs, cfg.lockWait)
	if err != nil {
		if errors.Is(err, ErrBusy) {
			return nil, nil // live writers hold its directories: a later recovery will do it
		}
		return nil, err
	}
	defer release()
	r := &Recovery{Journal: name}
	for _, o := range p.ops {
		r.Names = append(r.Names, o.Name)
	}
	var errs []error
	note := func(o jOp, conflict bool, err error) {
		if conflict {
			r.Conflicts = append(r.Conflicts, o.Name)
		}
		if err != nil {
			errs = append(errs, &Error{Op: "recover", Name: o.Name, Err: err})
		}
	}
	switch {
	case p.commit && !p.rollback:
		r.Outcome = RolledForward
		for _, o := range p.ops {
			conflict, err := forward(ctx, fsys, o, cfg.limit)
			note(o, conflict, err)
		}
	case p.commit:
		r.Outcome = RolledBack
		for i := len(p.ops) - 1; i >= 0; i-- {
			conflict, err := back(ctx, fsys, p.ops[i], cfg.limit)
			note(p.ops[i], conflict, err)
		}
	case len(p.ops) == 1 && !p.ops[0].InPlace:
		// A commit of one step has no commit mark: its temporary was complete before its
		// switch began. A name that no longer holds its old state was being switched (or was
		// switched, and the commit reported its success before its clean-up failed): finish
		// the switch. Otherwise nothing happened: drop what was staged.
		o := p.ops[0]
		r.Outcome = RolledBack
		old, err := matches(ctx, fsys, o.Name, o.Old, cfg.limit)
		if err != nil {
			errs = append(errs, err)
			break
		}
		if !old || o.Keep == keepMove && !exists(fsys, o.Name) && exists(fsys, o.Aside) {
			r.Outcome = RolledForward
			conflict, err := forward(ctx, fsys, o, cfg.limit)
			note(o, conflict, err)
		}
		if err := removeIfExists(fsys, o.Aside); err != nil && !slices.Contains(r.Conflicts, o.Name) {
			errs = append(errs, err)
		}
	default:
		// Nothing was switched: a commit of several steps switches only after its commit
		// mark. Drop what was staged.
		r.Outcome = RolledBack
		for _, o := range p.ops {
			if o.Keep == keepMove {
				continue // the name itself would have been moved, at the switch only
			}
			if err := removeIfExists(fsys, o.Aside); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, o := range p.ops {
		if err := removeIfExists(fsys, o.Temp); err != nil {
			errs = append(errs, err)
		}
		if p.commit && !slices.Contains(r.Conflicts, o.Name) {
			if err := removeIfExists(fsys, o.Aside); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, s := range p.scratch {
		if err := removeIfExists(fsys, s); err != nil {
			errs = append(errs, err)
		}
	}
	if r.Outcome == RolledBack {
		for i := len(p.mkdir) - 1; i >= 0; i-- {
			_ = fsys.Remove(p.mkdir[i]) // only when empty
		}
	}
	if len(errs) > 0 {
		// Keep the journal: the next recovery tries again.
		return nil, errors.Join(errs...)
	}
	synced := map[string]bool{}
	for _, d := range dirs {
		if !synced[d] {
			synced[d] = true
			if err := syncDir(fsys, d); err != nil && !isNotExist(err) {
				return nil, &Error{Op: "recover", Name: d, Err: err}
			}
		}
	}
	if err := fsys.Remove(name); err != nil && !isNotExist(err) {
		return nil, &Error{Op: "recover", Name: name, Err: err}
	}
	if len(p.ops) == 0 {
		return nil, nil // scratch copies only: nothing a host needs to hear about
	}
	return r, nil
}

// matches reports whether name now holds the state st: absent; a symbolic link to the same
// target; a regular file of the same size and checksum (of the same size only, for a file that
// was over the size limit and never read).
func matches(ctx context.Context, fsys FS, name string, st jState, limit int64) (bool, error) {
	fi, err := fsys.Lstat(name)
	if isNotExist(err) {
		return st.Type == "absent", nil
	}
	if err != nil {
		return false, err
	}
	switch st.Type {
	case "symlink":
		if fi.Mode()&fs.ModeSymlink == 0 {
			return false, nil
		}
		t, err := fsys.Readlink(name)
		return err == nil && t == st.Target, err
	case "file":
		if !fi.Mode().IsRegular() || fi.Size() != st.Size {
			return false, nil
		}
		if st.CRC32C == "" {
			return true, nil
		}
		if fi.Size() > limit {
			return false, nil
		}
		data, _, err := readFile(ctx, fsys, name, fi, fi.Size())
		if errors.Is(err, errSwapped) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return sum(data) == st.CRC32C, nil
	}
	return false, nil
}

// isPlaceholder reports whether name is an empty regular file (a placeholder a commit
// created exclusively, when its journal says so).
func isPlaceholder(fsys FS, name string) bool {
	fi, err := fsys.Lstat(name)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == 0
}

func exists(fsys FS, name string) bool {
	if name == "" {
		return false
	}
	_, err := fsys.Lstat(name)
	return err == nil
}

// readStaged reads a staged temporary or a kept copy and checks it against the state it
// must hold.
func readStaged(ctx context.Context, fsys FS, name string, st *jState, limit int64) ([]byte, bool) {
	fi, err := fsys.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || st == nil || fi.Size() != st.Size || fi.Size() > limit {
		return nil, false
	}
	data, _, err := readFile(ctx, fsys, name, fi, fi.Size())
	if err != nil || sum(data) != st.CRC32C {
		return nil, false
	}
	return data, true
}

// forward brings one operation of a committed journal to its after state. It reports a
// conflict when the name holds neither state the journal knows (another writer changed it
// after the crash: it is left as found).
func forward(ctx context.Context, fsys FS, j jOp, limit int64) (conflict bool, err error) {
	after := jState{Type: "absent"}
	if j.New != nil {
		after = *j.New
	}
	if ok, err := matches(ctx, fsys, j.Name, after, limit); err != nil || ok {
		return false, err
	}
	if j.Kind == "delete" {
		ok, err := matches(ctx, fsys, j.Name, j.Old, limit)
		if err != nil || !ok {
			return err == nil, err
		}
		return false, doSwitch(fsys, j, nil, nil)
	}
	if j.InPlace {
		// A write in place may have been cut short: the name holds neither state then.
		// The staged temporary has the whole new content.
		data, ok := readStaged(ctx, fsys, j.Temp, j.New, limit)
		if !ok {
			return true, nil
		}
		return false, writeInPlace(fsys, j.Name, data)
	}
	if !exists(fsys, j.Temp) {
		return true, nil
	}
	switch {
	case j.Keep == keepMove && !exists(fsys, j.Name) && exists(fsys, j.Aside):
		j.Keep = "" // the link was moved aside before the crash; the new file goes in its place
	case j.Placeholder && isPlaceholder(fsys, j.Name):
		return false, fsys.Rename(j.Temp, j.Name) // the name is the commit's own placeholder
	default:
		if ok, err := matches(ctx, fsys, j.Name, j.Old, limit); err != nil || !ok {
			return err == nil, err
		}
	}
	return false, doSwitch(fsys, j, nil, nil)
}

// back brings one operation to its before state, from what the commit kept aside. It
// reports a conflict when the name holds neither state the journal knows.
func back(ctx context.Context, fsys FS, j jOp, limit int64) (conflict bool, err error) {
	if ok, err := matches(ctx, fsys, j.Name, j.Old, limit); err != nil || ok {
		return false, err
	}
	if j.Kind == "delete" {
		if exists(fsys, j.Name) || !exists(fsys, j.Aside) {
			return true, nil
		}
		return false, fsys.Rename(j.Aside, j.Name)
	}
	if j.InPlace {
		data, ok := readStaged(ctx, fsys, j.Aside, &j.Old, limit)
		if !ok {
			return true, nil
		}
		return false, writeInPlace(fsys, j.Name, data)
	}
	if j.Placeholder && isPlaceholder(fsys, j.Name) && exists(fsys, j.Temp) {
		return false, fsys.Remove(j.Name) // the staged file never replaced the placeholder
	}
	moved := j.Keep == keepMove && !exists(fsys, j.Name) && exists(fsys, j.Aside)
	if !moved {
		ok, err := matches(ctx, fsys, j.Name, *j.New, limit)
		if err != nil || !ok {
			return err == nil, err
		}
	}
	if j.Old.Type == "absent" {
		return false, removeIfExists(fsys, j.Name)
	}
	if !exists(fsys, j.Aside) {
		return true, nil
	}
	return false, fsys.Rename(j.Aside, j.Name)
}
