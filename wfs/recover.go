package wfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// An Outcome says what [Recover] did with a journal.
type Outcome uint8

const (
	RolledForward Outcome = iota + 1 // the commit was finished: targets hold what it wrote
	RolledBack                       // the commit was undone: targets hold what they held
	Refused                          // the journal was not acted on (see Trust); Reason says why
)

func (o Outcome) String() string {
	switch o {
	case RolledForward:
		return "rolled forward"
	case RolledBack:
		return "rolled back"
	case Refused:
		return "refused"
	}
	return "unknown outcome"
}

// A Recovery reports one journal that [Recover] (or a commit) handled.
type Recovery struct {
	Journal   string   // the journal file (removed unless Refused)
	Outcome   Outcome  // what was done
	Names     []string // the commit's targets, in its order
	Conflicts []string // targets changed since the crash: left as found, the commit's content dropped
	Reason    string   // for Refused: why
}

// String is one line for a log or a command's stderr.
func (r Recovery) String() string {
	if r.Outcome == Refused {
		return "wfs: left alone the journal " + r.Journal + ": " + r.Reason + "; nothing in the tree was changed by it. Remove it once no harnesskit writer runs"
	}
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

// Recover finishes or undoes dead writers' commits in root/[JournalDir] (see Recovery),
// reports each, and joins its errors.
func Recover(ctx context.Context, fsys FS, root string) ([]Recovery, error) {
	if !filepath.IsAbs(root) {
		return nil, &fs.PathError{Op: "recover", Path: root, Err: ErrNotAbs}
	}
	cfg := txConfig{limit: DefaultMaxFileSize, lockWait: DefaultLockWait}
	return recoverPending(ctx, fsys, filepath.Clean(root), cfg, "")
}

// recoverPending is Recover with a configuration, skipping the journal own (the caller's).
func recoverPending(ctx context.Context, fsys FS, root string, cfg txConfig, own string) ([]Recovery, error) {
	return recoverDir(ctx, fsys, root, cfg, own)
}

// recoverDir recovers the journals in root's journal directory. Only that directory is
// read: a journal directory deeper in the tree (a vendored project's) is never looked at.
func recoverDir(ctx context.Context, fsys FS, root string, cfg txConfig, own string) ([]Recovery, error) {
	dir := filepath.Join(root, JournalDir)
	if _, err := fsys.Lstat(dir); isNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, &Error{Op: "recover", Name: dir, Err: err}
	}
	if err := realDir(fsys, dir); err != nil {
		if isNotExist(err) {
			return nil, nil // removed meanwhile, empty, by the writer that finished last
		}
		return []Recovery{{Journal: dir, Outcome: Refused, Reason: err.Error()}}, nil
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
	key, err := journalKey(fsys)
	if err != nil {
		return nil, &Error{Op: "recover", Name: dir, Err: err}
	}
	var out []Recovery
	var errs []error
	for _, d := range ents {
		name := filepath.Join(dir, d.Name())
		switch {
		case name == own:
		case isJournal(d.Name()):
			r, err := recoverJournal(ctx, fsys, root, name, key, cfg)
			if err != nil {
				errs = append(errs, err)
			}
			if r != nil {
				out = append(out, *r)
			}
		case strings.HasSuffix(d.Name(), ".new"):
			// A journal whose writer died before it was complete: nothing was staged. Only
			// one this user's writer signed for this root is removed.
			if unlock, ok := tryLockDead(fsys, name); ok {
				if _, why := readJournal(fsys, root, name, key); why == "" || unheaded(fsys, name) {
					_ = fsys.Remove(name)
				}
				unlock()
			}
		}
	}
	_ = fsys.Remove(dir) // when empty
	return out, errors.Join(errs...)
}

// unheaded reports whether name is a regular file without one whole line: a journal
// whose writer died before its header was written.
func unheaded(fsys FS, name string) bool {
	fi, err := fsys.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return false
	}
	b, _, err := readFile(context.Background(), fsys, name, fi, fi.Size())
	return err == nil && !bytes.Contains(b, []byte("\n"))
}

// damaged says what is wrong with a journal that holds no line at all ("" when it does): it
// is empty, holds only zero bytes (the blocks a power loss allocated but never wrote), or
// was cut before its first line ended.
func damaged(fsys FS, name string) string {
	fi, err := fsys.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return ""
	}
	b, _, err := readFile(context.Background(), fsys, name, fi, fi.Size())
	switch {
	case err != nil:
		return ""
	case len(b) == 0:
		return "empty"
	case len(bytes.Trim(b, "\x00")) == 0:
		return "only zero bytes"
	case !bytes.Contains(b, []byte("\n")):
		return "cut short before its first line ended"
	}
	return ""
}

// maxJournal is the largest journal recovery reads: a commit's journal names each target a
// few times; one larger than this is no writer's.
const maxJournal = 64 << 20

// readJournal reads and verifies the journal name of root's journal directory. It returns
// the parsed journal, or why it is refused ("" when it is not; the journal being gone is a
// refusal too, with why "gone").
func readJournal(fsys FS, root, name string, key []byte) (*parsed, string) {
	fi, err := fsys.Lstat(name)
	switch {
	case isNotExist(err):
		return nil, "gone"
	case err != nil:
		return nil, err.Error()
	case !fi.Mode().IsRegular():
		return nil, fmt.Sprintf("it is a %v, not a regular file", fi.Mode().Type())
	case fi.Size() > maxJournal:
		return nil, fmt.Sprintf("it has %d bytes, more than any journal", fi.Size())
	}
	b, _, err := readFile(context.Background(), fsys, name, fi, fi.Size())
	if isNotExist(err) {
		return nil, "gone"
	}
	if err != nil {
		return nil, err.Error()
	}
	p, err := parseJournal(b, key)
	if err != nil {
		return nil, err.Error()
	}
	base := filepath.Base(name)
	switch {
	case base != p.header.ID+".journal" && base != p.header.ID+".new":
		return nil, fmt.Sprintf("%v: it is signed as journal %s", errUntrusted, p.header.ID)
	case p.header.Root != root:
		return nil, fmt.Sprintf("%v: it was written for the tree %s", errUntrusted, p.header.Root)
	}
	if p.header.RootID != "" {
		if fi, err := fsys.Lstat(root); err == nil {
			if id := dirID(fi); id != "" && id != p.header.RootID {
				return nil, fmt.Sprintf("%v: it was written for another directory at %s (a copy or a replaced tree)", errUntrusted, root)
			}
		}
	}
	if err := p.validate(fsys, root); err != nil {
		return nil, err.Error()
	}
	return p, ""
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
func recoverJournal(ctx context.Context, fsys FS, root, name string, key []byte, cfg txConfig) (*Recovery, error) {
	if fi, err := fsys.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		if isNotExist(err) {
			return nil, nil
		}
		// A link or a special file is never opened (a FIFO would block the lock's open).
		why := fmt.Sprintf("it is a %v, not a regular file", fi.Mode().Type())
		if err != nil {
			why = err.Error()
		}
		return &Recovery{Journal: name, Outcome: Refused, Reason: why}, nil
	}
	unlock, ok := tryLockDead(fsys, name)
	if !ok {
		return nil, nil
	}
	defer unlock()
	p, why := readJournal(fsys, root, name, key)
	switch why {
	case "":
	case "gone":
		return nil, nil // finished meanwhile
	default:
		if what := damaged(fsys, name); what != "" {
			// What a power loss leaves of a journal that was never synced: nothing to act
			// on, and nothing anyone could have meant. Set aside, so it is reported once.
			aside := name + ".damaged"
			if err := fsys.Rename(name, aside); err != nil {
				return &Recovery{Journal: name, Outcome: Refused, Reason: why}, nil
			}
			return &Recovery{Journal: name, Outcome: Refused, Reason: "it is " + what + ", with no record to act on; set aside as " + aside}, nil
		}
		return &Recovery{Journal: name, Outcome: Refused, Reason: why}, nil
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
		// A kept file goes too when its target was left as found (a conflict): the target
		// holds what its other writer wrote, and nothing is left beside it.
		if p.commit {
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
		// A write in place may have been cut short: the name then holds a prefix of the new
		// content. Anything else but the old state is a later edit, kept.
		data, ok := readStaged(ctx, fsys, j.Temp, j.New, limit)
		if !ok {
			return true, nil
		}
		if ok, err := holdsOrPrefix(ctx, fsys, j.Name, j.Old, data, limit); err != nil || !ok {
			return err == nil, err
		}
		return false, writeInPlace(fsys, j.Name, data)
	}
	if _, ok := readStaged(ctx, fsys, j.Temp, j.New, limit); !ok {
		return true, nil // no staged file holding the new content (never a link)
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
		if exists(fsys, j.Name) {
			return true, nil
		}
		if ok, err := matches(ctx, fsys, j.Aside, j.Old, limit); err != nil || !ok {
			return err == nil, err
		}
		return false, fsys.Rename(j.Aside, j.Name)
	}
	if j.InPlace {
		data, ok := readStaged(ctx, fsys, j.Aside, &j.Old, limit)
		if !ok {
			return true, nil
		}
		// The name holds the new content, or a prefix of it or of the old one (a write in
		// place cut short); anything else is a later edit, kept.
		okNew, err := holdsOrPrefix(ctx, fsys, j.Name, *j.New, nil, limit)
		if err != nil {
			return false, err
		}
		if !okNew {
			staged, _ := readStaged(ctx, fsys, j.Temp, j.New, limit)
			if ok, err := holdsOrPrefix(ctx, fsys, j.Name, jState{Type: "-"}, staged, limit); err != nil || !ok {
				if ok, err := holdsOrPrefix(ctx, fsys, j.Name, jState{Type: "-"}, data, limit); err != nil || !ok {
					return err == nil, err
				}
			}
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
	// The kept file must still be the old state: a regular file of the old content, or the
	// old symbolic link itself. Recovery never puts a link where none was.
	if ok, err := matches(ctx, fsys, j.Aside, j.Old, limit); err != nil || !ok {
		return err == nil, err
	}
	return false, fsys.Rename(j.Aside, j.Name)
}

// holdsOrPrefix reports whether name holds the state st, or is a regular file whose content
// is a non-empty-or-empty prefix of full (what a write in place that was cut short leaves).
func holdsOrPrefix(ctx context.Context, fsys FS, name string, st jState, full []byte, limit int64) (bool, error) {
	if ok, err := matches(ctx, fsys, name, st, limit); err != nil || ok {
		return ok, err
	}
	if full == nil {
		return false, nil
	}
	fi, err := fsys.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > int64(len(full)) {
		return false, nil
	}
	data, _, err := readFile(ctx, fsys, name, fi, fi.Size())
	if err != nil {
		return false, nil
	}
	return bytes.HasPrefix(full, data), nil
}
