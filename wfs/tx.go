package wfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// An Option configures a [Tx] (see [Begin]).
type Option func(*txConfig)

type txConfig struct {
	limit    int64
	lockWait time.Duration
	dirMode  fs.FileMode
	rnd      io.Reader
	trees    []string // directories outside root the commit may write in (WithTrees)
}

// GoString makes a configuration readable in test failures.
func (c txConfig) GoString() string {
	return fmt.Sprintf("wfs.txConfig{limit: %d, lockWait: %v, dirMode: %v, rnd: %T}", c.limit, c.lockWait, c.dirMode, c.rnd)
}

// WithMaxFileSize sets the size limit (n ≤ 0: [DefaultMaxFileSize]).
func WithMaxFileSize(n int64) Option {
	return func(c *txConfig) {
		if n > 0 {
			c.limit = n
		}
	}
}

// WithLockWait sets how long Commit waits for a held lock (d ≤ 0: not at all).
func WithLockWait(d time.Duration) Option { return func(c *txConfig) { c.lockWait = max(d, 0) } }

// WithDirMode sets the mode of the directories a write creates.
func WithDirMode(perm fs.FileMode) Option {
	return func(c *txConfig) { c.dirMode = perm & fs.ModePerm }
}

// WithRandom sets the source of temporary names' random part (crypto/rand).
func WithRandom(r io.Reader) Option { return func(c *txConfig) { c.rnd = r } }

// WithTrees names absolute directories outside root (a host's worktrees) that the Tx may
// also write in; recovery acts on no name outside root and these.
func WithTrees(dirs ...string) Option {
	return func(c *txConfig) {
		for _, d := range dirs {
			if filepath.IsAbs(d) {
				c.trees = append(c.trees, filepath.Clean(d))
			}
		}
	}
}

// A WriteOption refines one [Tx.Write].
type WriteOption func(*op)

// NewMode makes a new file, mode perm under the umask, taking nothing from prev (else a
// replaced file keeps its whole mode and metadata).
func NewMode(perm fs.FileMode) WriteOption {
	return func(o *op) { o.newMode, o.exact, o.modeSet, o.fresh = perm&fs.ModePerm, false, false, true }
}

// ExactMode sets the written file's [ModeBits] exactly, without the umask.
func ExactMode(mode fs.FileMode) WriteOption {
	return func(o *op) { o.mode, o.exact, o.modeSet, o.fresh = mode&ModeBits, true, true, false }
}

// MetaFrom gives the written file the mode, owner, group and attributes of src (a move's
// source); ExactMode and NewMode win.
func MetaFrom(src string) WriteOption { return func(o *op) { o.metaFrom = src } }

// ReplaceLink lets prev be a symbolic link, which the new file replaces.
func ReplaceLink() WriteOption { return func(o *op) { o.replaceLink = true } }

// CheckAtTurn checks prev right before this write, for a prev that holds only once earlier
// operations ran (a case-only rename on a case-blind volume).
func CheckAtTurn() WriteOption { return func(o *op) { o.atTurn = true } }

type opKind uint8

const (
	opWrite opKind = iota + 1
	opDelete
)

type op struct {
	kind opKind
	prev Snapshot
	data []byte

	newMode     fs.FileMode
	mode        fs.FileMode // with exact: the mode to set
	exact       bool
	modeSet     bool // ExactMode given
	fresh       bool // NewMode given: nothing is taken from a replaced file
	metaFrom    string
	replaceLink bool
	atTurn      bool

	// Filled by Commit.
	cur     fs.FileInfo // the target's Lstat at the check
	nlinks  uint64      // the target's hard links at the check (1 when unknown or absent)
	metaSrc string      // the file whose owner and attributes the temporary takes
	j       jOp
}

// A Tx is one commit: writes and deletes that happen all or none. Build one with [Begin],
// add operations, then call Commit or Abort. A Tx is used by one goroutine; nothing touches
// the disk before Commit, except a Scratch copy.
type Tx struct {
	fsys    FS
	root    string
	cfg     txConfig
	ops     []*op
	scratch []string
	j       *journalFile
	done    bool
	keep    bool     // the journal must stay for a recovery to finish (a cleanup or undo failed)
	newDirs []string // the missing parents of new files, outermost first (prepare)
	made    []string // those the commit created
}

// Begin starts a Tx over fsys for the tree at the absolute directory root, journaled in
// root/[JournalDir]: every writer of a tree must pass the same root.
func Begin(fsys FS, root string, opts ...Option) (*Tx, error) {
	if fsys == nil {
		return nil, errors.New("wfs: Begin: nil FS")
	}
	if !filepath.IsAbs(root) {
		return nil, &fs.PathError{Op: "begin", Path: root, Err: ErrNotAbs}
	}
	cfg := txConfig{limit: DefaultMaxFileSize, lockWait: DefaultLockWait, dirMode: DefaultDirMode}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return &Tx{fsys: fsys, root: filepath.Clean(root), cfg: cfg}, nil
}

// Write replaces what prev describes (a regular file, whose metadata is kept; an absent
// name, parents created; with ReplaceLink, a link) by a regular file holding data.
func (tx *Tx) Write(prev Snapshot, data []byte, opts ...WriteOption) {
	o := &op{kind: opWrite, prev: prev, data: data, newMode: DefaultFileMode}
	for _, f := range opts {
		if f != nil {
			f(o)
		}
	}
	tx.ops = append(tx.ops, o)
}

// Create adds the new file name (Write of Absent(name) with NewMode(perm)), linked in: a
// name that exists at commit, even unlocked and an instant old, fails it (fs.ErrExist).
func (tx *Tx) Create(name string, data []byte, perm fs.FileMode) {
	o := &op{kind: opWrite, prev: Absent(name), data: data, newMode: perm & fs.ModePerm}
	tx.ops = append(tx.ops, o)
}

// Delete removes the regular file or symbolic link prev describes.
func (tx *Tx) Delete(prev Snapshot) {
	tx.ops = append(tx.ops, &op{kind: opDelete, prev: prev})
}

// Scratch writes data to a new hidden file beside target ([TempName] with suffix) for a tool
// that works only in place, and returns its name; Commit, Abort or Recover removes it.
func (tx *Tx) Scratch(target, suffix string, data []byte) (string, error) {
	if tx.done {
		return "", errors.New("wfs: Scratch after Commit or Abort")
	}
	if err := checkSuffix(suffix); err != nil {
		return "", err
	}
	if tx.j == nil {
		j, err := createJournal(context.Background(), tx.fsys, tx.root, tx.cfg.trees, false, tx.cfg.lockWait)
		if err != nil {
			return "", &Error{Op: "stage", Name: target, Err: err}
		}
		tx.j = j
	}
	for range 8 {
		name, err := TempName(target, suffix, tx.cfg.rnd)
		if err != nil {
			return "", err
		}
		if err := tx.j.record(false, jRecord{Scratch: name}); err != nil {
			return "", &Error{Op: "stage", Name: target, Err: err}
		}
		f, err := tx.fsys.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", &Error{Op: "stage", Name: target, Err: err}
		}
		tx.scratch = append(tx.scratch, name)
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", &Error{Op: "stage", Name: target, Err: err}
		}
		return name, nil
	}
	return "", &Error{Op: "stage", Name: target, Err: errors.New("no free scratch name")}
}

// Abort drops a Tx's scratch copies and journal; after Commit it does nothing.
func (tx *Tx) Abort() error {
	if tx.done {
		return nil
	}
	tx.done = true
	keep := tx.dropScratch()
	if tx.j != nil {
		tx.j.finish(tx.fsys, keep)
		tx.j = nil
	}
	return nil
}

// dropScratch removes the scratch copies; it reports whether one could not be removed.
func (tx *Tx) dropScratch() (failed bool) {
	for _, s := range tx.scratch {
		failed = removeIfExists(tx.fsys, s) != nil || failed
	}
	tx.scratch = nil
	return failed
}

// Committed is what a successful commit reports.
type Committed struct {
	After     []Snapshot // per operation, in order, what is now on disk: the prev of a next commit
	Recovered []Recovery // dead writers' commits this commit handled first
}

// Commit writes all or nothing (see The commit); ctx counts until the switch.
//
// Errors: an [*Error] wrapping ErrChanged (fs.ErrExist for Create), ErrBusy, ErrReadOnly,
// ErrSpecial, ErrTooLarge, ErrInUse, ErrKey, ErrOutside or a file-system error; ctx.Err().
func (tx *Tx) Commit(ctx context.Context) (*Committed, error) {
	if tx.done {
		return nil, errors.New("wfs: Commit of a finished transaction")
	}
	tx.done = true
	res := &Committed{}
	keep := false // a cleanup step failed: the journal stays for a recovery to finish
	defer func() {
		// Every path that fails has cleaned up what it staged; the journal goes last.
		keep = tx.dropScratch() || keep || tx.keep
		if tx.j != nil {
			tx.j.finish(tx.fsys, keep)
			tx.j = nil
		}
	}()
	if err := tx.validate(); err != nil {
		return nil, err
	}
	if len(tx.ops) == 0 {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec, err := recoverPending(ctx, tx.fsys, tx.root, tx.cfg, tx.ownJournal())
	res.Recovered = rec
	if err != nil {
		return nil, err
	}
	release, err := tx.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	for _, o := range tx.ops {
		if o.atTurn {
			continue
		}
		if err := tx.check(ctx, o); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	multi := len(tx.ops) > 1 || tx.ops[0].kind == opWrite && tx.ops[0].prev.Type == TypeFile && tx.ops[0].nlinks > 1
	if err := tx.prepare(multi); err != nil {
		return nil, err
	}
	if err := tx.writeIntent(ctx, multi); err != nil {
		tx.unstage()
		return nil, err
	}
	if err := tx.stage(ctx, multi); err != nil {
		tx.unstage()
		return nil, err
	}
	if multi {
		if err := tx.j.record(true, jRecord{Mark: "commit"}); err != nil {
			tx.unstage()
			return nil, &Error{Op: "stage", Name: tx.j.name, Err: err}
		}
	}
	var written []*op
	for _, o := range tx.ops {
		if o.atTurn {
			if err := tx.checkAtTurn(o, written); err != nil {
				return nil, tx.rollback(written, o, err)
			}
		}
		i := len(written)
		placeholder := func() error {
			o.j.Placeholder = true
			return tx.j.record(multi, jRecord{Placeholder: &jKeep{Op: i}})
		}
		if err := doSwitch(tx.fsys, o.j, o.data, placeholder); err != nil {
			if errors.Is(err, fs.ErrExist) {
				// A new file's name was taken (nothing was done): by a file this commit
				// wrote under another spelling, or by another program.
				return nil, tx.rollback(written, o, tx.checkAtTurn(o, written))
			}
			return nil, tx.rollback(append(written, o), o, inUse(o.prev.Name, err))
		}
		written = append(written, o)
	}
	for _, d := range tx.syncSet() {
		if err := syncDir(tx.fsys, d); err != nil {
			return nil, tx.rollback(written, nil, &Error{Op: "commit", Name: d, Err: err})
		}
	}
	keep = !tx.cleanTemps()
	return tx.after(res), nil
}

// ownJournal is the journal a Scratch already opened (recovery skips it).
func (tx *Tx) ownJournal() string {
	if tx.j == nil {
		return ""
	}
	return tx.j.name
}

// validate refuses what no commit could write.
func (tx *Tx) validate() error {
	seen := map[string]bool{}
	for _, o := range tx.ops {
		name := o.prev.Name
		e := func(err error) error { return &Error{Op: "check", Name: name, Err: err} }
		switch {
		case !filepath.IsAbs(name):
			return e(ErrNotAbs)
		case filepath.Clean(name) != name:
			return e(errors.New("name is not clean; pass a cleaned absolute name"))
		case seen[name]:
			return e(errors.New("named twice in one transaction"))
		}
		if err := placeOK(tx.root, tx.cfg.trees, name); err != nil {
			return e(err)
		}
		seen[name] = true
		switch o.prev.Type {
		case TypeDir:
			return e(syscall.EISDIR)
		case TypeSpecial:
			return e(ErrSpecial)
		case TypeSymlink:
			if o.kind == opWrite && !o.replaceLink {
				return e(errors.New("is a symbolic link; follow it (wfs.Follow) and write its target"))
			}
		}
		if o.kind == opWrite {
			if int64(len(o.data)) > tx.cfg.limit {
				return &Error{Op: "check", Name: name, Err: ErrTooLarge, Limit: tx.cfg.limit, Size: int64(len(o.data))}
			}
			if o.prev.Large {
				return &Error{Op: "check", Name: name, Err: ErrTooLarge, Limit: tx.cfg.limit, Size: o.prev.Info.Size()}
			}
		}
		if o.kind == opDelete && o.prev.Type == TypeAbsent {
			return e(fs.ErrNotExist)
		}
	}
	return nil
}

// lock takes the lock of every target's directory (and a move source's), all or none: when
// one is held it releases those it has, waits (doubling from 1 ms to 50 ms) and tries again,
// until the lock wait is used up or ctx ends (ErrBusy).
func (tx *Tx) lock(ctx context.Context) (func(), error) {
	var dirs []string
	for _, o := range tx.ops {
		dirs = append(dirs, filepath.Dir(o.prev.Name))
	}
	return lockDirs(ctx, tx.fsys, dirs, tx.cfg.lockWait)
}

func lockDirs(ctx context.Context, fsys FS, names []string, wait time.Duration) (func(), error) {
	lf, ok := fsys.(LockFS)
	if !ok {
		return func() {}, nil
	}
	dirs := uniqueDirs(fsys, names)
	p := pacer{wait: wait}
	for {
		var held []func()
		release := func() {
			for i := len(held) - 1; i >= 0; i-- {
				held[i]()
			}
		}
		busy := ""
		for _, d := range dirs {
			u, err := lf.TryLock(d)
			if errors.Is(err, ErrLocked) {
				busy = d
				break
			}
			if err != nil {
				release()
				return nil, &Error{Op: "lock", Name: d, Err: err}
			}
			held = append(held, u)
		}
		if busy == "" {
			return release, nil
		}
		release()
		if err := p.pause(ctx); err != nil {
			return nil, &Error{Op: "lock", Name: busy, Err: err}
		}
	}
}

// pacer spaces the attempts of a step that other writers make fail for a while (a lock they
// hold, a journal directory they remove): 1 ms, doubling to at most 50 ms, until wait is
// used up or the context ends.
type pacer struct {
	wait, waited, backoff time.Duration
}

// pause waits before the next attempt; it returns ErrBusy (joined with ctx.Err() when the
// context ended) when no attempt is left.
func (p *pacer) pause(ctx context.Context) error {
	if p.waited >= p.wait {
		return ErrBusy
	}
	if p.backoff == 0 {
		p.backoff = time.Millisecond
	}
	d := min(p.backoff, p.wait-p.waited)
	t := time.NewTimer(d)
	select {
	case <-ctx.Done():
		t.Stop()
		return errors.Join(ErrBusy, ctx.Err())
	case <-t.C:
	}
	p.waited += d
	p.backoff = min(2*p.backoff, 50*time.Millisecond)
	return nil
}

// uniqueDirs sorts names and drops those that name a directory already listed (two
// spellings of one directory would otherwise lock it twice and wait for themselves).
func uniqueDirs(fsys FS, names []string) []string {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	type seen struct {
		name string
		fi   fs.FileInfo
	}
	var kept []seen
	var out []string
outer:
	for _, n := range names {
		fi, err := fsys.Stat(n)
		if err == nil {
			for _, k := range kept {
				if k.fi != nil && SameFile(k.fi, fi) {
					continue outer
				}
			}
		}
		kept = append(kept, seen{n, fi})
		out = append(out, nearestDir(fsys, n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// nearestDir returns dir, or its nearest existing ancestor when dir is still to be created:
// the lock of a new directory is its parent's.
func nearestDir(fsys FS, dir string) string {
	for {
		if fi, err := fsys.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		p := filepath.Dir(dir)
		if p == dir {
			return dir
		}
		dir = p
	}
}

// check compares the target of o with o.prev: type first, then (for a regular file) size,
// mode bits, modification time and identity, any difference being a change found without
// reading; then the content, read at most to the size it has. A write also needs permission
// to write the target.
func (tx *Tx) check(ctx context.Context, o *op) error {
	name := o.prev.Name
	changed := func(why string) error {
		return &Error{Op: "check", Name: name, Err: fmt.Errorf("%w: %s", ErrChanged, why)}
	}
	fi, err := tx.fsys.Lstat(name)
	if err != nil && !isNotExist(err) {
		return &Error{Op: "check", Name: name, Err: err}
	}
	o.cur, o.nlinks = fi, 1
	if err == nil {
		o.nlinks = links(fi)
		if lc, ok := tx.fsys.(linkCounter); ok && fi.Mode().IsRegular() {
			if n, ok := lc.linkCount(name); ok {
				o.nlinks = n
			}
		}
	}
	switch o.prev.Type {
	case TypeAbsent:
		if err == nil {
			return &Error{Op: "check", Name: name, Err: existsError{}}
		}
		return nil
	case TypeSymlink:
		if err != nil {
			return changed("the symbolic link is gone")
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return changed("it is no longer a symbolic link")
		}
		t, err := tx.fsys.Readlink(name)
		if err != nil {
			return &Error{Op: "check", Name: name, Err: err}
		}
		if t != o.prev.Target {
			return changed("the symbolic link points elsewhere")
		}
		return nil
	}
	// TypeFile
	switch {
	case err != nil:
		return changed("it was removed")
	case fi.Mode()&fs.ModeType != 0 && !fi.Mode().IsRegular():
		if fi.Mode()&fs.ModeSymlink == 0 && !fi.IsDir() {
			return &Error{Op: "check", Name: name, Err: ErrSpecial}
		}
		return changed("it is no longer a regular file")
	case !sameIdentity(o.prev.Info, fi):
		return changed("its size, mode, modification time or identity differ")
	case o.kind == opWrite && !writable(fi):
		return &Error{Op: "check", Name: name, Err: ErrReadOnly}
	case o.kind == opWrite && fi.Size() > tx.cfg.limit:
		return &Error{Op: "check", Name: name, Err: ErrTooLarge, Limit: tx.cfg.limit, Size: fi.Size()}
	}
	// On Windows a file another program holds open without sharing delete access cannot be
	// replaced or removed: refused here, before anything is staged or journaled.
	if p, ok := tx.fsys.(inUseProber); ok {
		if err := p.probeInUse(name); err != nil {
			return &Error{Op: "check", Name: name, Err: err}
		}
	}
	if o.prev.Large {
		// A large file is only deleted, and its metadata is all there is to compare. The
		// modification time can be set back after an edit of the same size; the
		// status-change time cannot, where the system keeps one.
		if was, ok := changeTime(o.prev.Info); ok {
			if now, ok := changeTime(fi); ok && !now.Equal(was) {
				return changed("its status-change time differs (it was written, linked or had its mode changed)")
			}
		}
		return nil
	}
	data, _, err := readFile(ctx, tx.fsys, name, fi, fi.Size())
	switch {
	case errors.Is(err, errSwapped):
		return changed("it changed while it was compared")
	case err != nil:
		return err
	case !bytes.Equal(data, o.prev.Data):
		return changed("its content differs")
	}
	return nil
}

// prepare chooses every temporary and aside name, how old files are kept, and each write's
// mode and metadata source, and fills the journal records.
func (tx *Tx) prepare(multi bool) error {
	_, canLink := tx.fsys.(LinkFS)
	taken := map[string]bool{} // case-folded names chosen in this commit
	pick := func(target, suffix string) (string, error) {
		for range 8 {
			n, err := TempName(target, suffix, tx.cfg.rnd)
			if err != nil {
				return "", err
			}
			k := strings.ToLower(n)
			if taken[k] {
				continue
			}
			if _, err := tx.fsys.Lstat(n); !isNotExist(err) {
				continue
			}
			taken[k] = true
			return n, nil
		}
		return "", &Error{Op: "stage", Name: target, Err: errors.New("no free temporary name next to it")}
	}
	for _, o := range tx.ops {
		name := o.prev.Name
		j := jOp{Name: name, Old: stateOf(o.prev)}
		if o.kind == opWrite {
			j.Kind = "write"
			j.New = fileState(o.data)
			j.Create = o.prev.Type == TypeAbsent
			t, err := pick(name, suffixNew)
			if err != nil {
				return err
			}
			j.Temp = t
			j.InPlace = o.prev.Type == TypeFile && o.nlinks > 1
			switch {
			case o.metaFrom != "" && !o.fresh:
				// A source that is not a regular file now (created by a commit that has not
				// happened) gives nothing: the mode options decide.
				if fi, err := tx.fsys.Lstat(o.metaFrom); err == nil && fi.Mode().IsRegular() {
					o.metaSrc = o.metaFrom
					if !o.modeSet {
						o.mode, o.exact = fi.Mode()&ModeBits, true
					}
				}
			case o.prev.Type == TypeFile && !o.fresh:
				o.metaSrc = name
				if !o.modeSet {
					o.mode, o.exact = o.cur.Mode()&ModeBits, true
				}
			}
		} else {
			j.Kind = "delete"
		}
		if o.prev.Type != TypeAbsent {
			// The old file is kept until the commit is done, also in a commit of one step,
			// so that a failure after the switch (a directory that cannot be synced) can
			// still be undone.
			a, err := pick(name, suffixAside)
			if err != nil {
				return err
			}
			j.Aside = a
			switch {
			case o.prev.Type == TypeSymlink:
				j.Keep = keepMove
			case j.InPlace:
				j.Keep = keepCopy
			case canLink:
				j.Keep = keepLink
			case o.kind == opDelete:
				j.Keep = keepMove
			default:
				j.Keep = keepCopy
			}
		}
		o.j = j
	}
	tx.newDirs = tx.missingDirs()
	return nil
}

// missingDirs lists the missing parents of every new file, outermost first.
func (tx *Tx) missingDirs() []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range tx.ops {
		if o.kind != opWrite || o.prev.Type != TypeAbsent {
			continue
		}
		var missing []string
		for d := filepath.Dir(o.prev.Name); !seen[d]; d = filepath.Dir(d) {
			if fi, err := tx.fsys.Lstat(d); err == nil && fi.IsDir() {
				break
			}
			missing = append(missing, d)
			seen[d] = true
			if filepath.Dir(d) == d {
				break
			}
		}
		slices.Reverse(missing)
		out = append(out, missing...)
	}
	return out
}

// writeIntent writes the journal's intent: the directories to create and every operation.
func (tx *Tx) writeIntent(ctx context.Context, multi bool) error {
	if tx.j == nil {
		j, err := createJournal(ctx, tx.fsys, tx.root, tx.cfg.trees, multi, tx.cfg.lockWait)
		if err != nil {
			return &Error{Op: "stage", Name: filepath.Join(tx.root, JournalDir), Err: err}
		}
		tx.j = j
	}
	var recs []jRecord
	if len(tx.newDirs) > 0 {
		recs = append(recs, jRecord{Mkdir: tx.newDirs})
	}
	for _, o := range tx.ops {
		jo := o.j
		recs = append(recs, jRecord{Op: &jo})
	}
	if err := tx.j.record(multi, recs...); err != nil {
		return &Error{Op: "stage", Name: tx.j.name, Err: err}
	}
	if multi && !tx.j.durable {
		// A Scratch opened the journal without syncing its directory entry.
		for _, d := range []string{filepath.Dir(tx.j.name), tx.root} {
			if err := syncDir(tx.fsys, d); err != nil {
				return &Error{Op: "stage", Name: d, Err: err}
			}
		}
	}
	return nil
}

// stage creates the missing directories, writes every temporary and keeps every old file
// that a link or a copy keeps, then syncs the directories holding them.
func (tx *Tx) stage(ctx context.Context, multi bool) error {
	for _, d := range tx.newDirs {
		err := tx.fsys.Mkdir(d, tx.cfg.dirMode)
		if err == nil {
			tx.made = append(tx.made, d)
		} else if !errors.Is(err, fs.ErrExist) {
			return &Error{Op: "stage", Name: d, Err: err}
		}
	}
	for i, o := range tx.ops {
		if err := ctx.Err(); err != nil {
			return err
		}
		if o.kind == opWrite {
			if err := tx.writeTemp(o); err != nil {
				return &Error{Op: "stage", Name: o.prev.Name, Err: err}
			}
		}
		if o.j.Keep == keepLink {
			err := tx.fsys.(LinkFS).Link(o.prev.Name, o.j.Aside)
			if linkUnsupported(err) {
				// A file system without hard links here (FAT, exFAT, some network file
				// systems), or a link refused (protected hard links): keep a copy, or
				// move a deleted name aside at its switch.
				how := keepCopy
				if o.kind == opDelete || o.prev.Large {
					how = keepMove
				}
				if rerr := tx.j.record(multi, jRecord{Keep: &jKeep{Op: i, How: how}}); rerr != nil {
					return &Error{Op: "stage", Name: tx.j.name, Err: rerr}
				}
				o.j.Keep = how
			} else if err != nil {
				return &Error{Op: "stage", Name: o.prev.Name, Err: err}
			}
		}
		switch o.j.Keep {
		case keepCopy:
			if err := tx.copyAside(o); err != nil {
				return &Error{Op: "stage", Name: o.prev.Name, Err: err}
			}
		}
	}
	if !multi {
		return nil
	}
	for _, d := range tx.syncSet() {
		if err := syncDir(tx.fsys, d); err != nil {
			return &Error{Op: "stage", Name: d, Err: err}
		}
	}
	return nil
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// writeTemp writes o's new content to its temporary: created exclusively, written, given the
// owner, group and extended attributes of its metadata source, its exact mode (after the
// owner: a change of owner clears setuid and setgid), synced, closed.
func (tx *Tx) writeTemp(o *op) error {
	perm := o.newMode
	if o.exact {
		perm = 0o600
	}
	f, err := tx.fsys.OpenFile(o.j.Temp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(o.data)
	if err == nil && o.metaSrc != "" {
		if mf, ok := tx.fsys.(MetaFS); ok {
			err = mf.CopyMeta(o.metaSrc, o.j.Temp)
		}
	}
	if err == nil && o.exact {
		err = tx.fsys.Chmod(o.j.Temp, o.mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyAside keeps a copy of o's old content (a file written in place, or a file system
// without hard links), synced.
func (tx *Tx) copyAside(o *op) error {
	f, err := tx.fsys.OpenFile(o.j.Aside, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(o.prev.Data)
	if err == nil && !o.j.InPlace {
		// It may be renamed back over the name: it carries what the name carried.
		if mf, ok := tx.fsys.(MetaFS); ok {
			err = mf.CopyMeta(o.prev.Name, o.j.Aside)
		}
		if err == nil {
			err = tx.fsys.Chmod(o.j.Aside, o.cur.Mode()&ModeBits)
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// unstage removes everything a commit staged before its switch (the journal goes with the
// deferred finish).
func (tx *Tx) unstage() {
	for _, o := range tx.ops {
		if o.j.Temp != "" {
			_ = tx.fsys.Remove(o.j.Temp)
		}
		if o.j.Aside != "" && o.j.Keep != keepMove {
			_ = tx.fsys.Remove(o.j.Aside)
		}
	}
	tx.removeDirs()
}

func (tx *Tx) removeDirs() {
	for i := len(tx.made) - 1; i >= 0; i-- {
		_ = tx.fsys.Remove(tx.made[i]) // only when empty
	}
}

func (tx *Tx) checkAtTurn(o *op, written []*op) error {
	fi, err := tx.fsys.Lstat(o.prev.Name)
	if isNotExist(err) {
		return nil
	}
	if err != nil {
		return &Error{Op: "check", Name: o.prev.Name, Err: err}
	}
	for _, w := range written {
		if w.kind != opWrite {
			continue
		}
		if wi, err := tx.fsys.Lstat(w.prev.Name); err == nil && SameFile(fi, wi) {
			return &Error{Op: "check", Name: o.prev.Name, Err: ErrChanged, SameAs: w.prev.Name}
		}
	}
	return &Error{Op: "check", Name: o.prev.Name, Err: existsError{}}
}

// doSwitch performs the switch of one journaled operation: the step after which the name
// holds its new state. It is shared by Commit and by recovery rolling a commit forward. A
// new file is linked into place; where links are unsupported, placeholder (when not nil)
// journals that the name is about to be created exclusively as an empty placeholder, which
// the staged file then replaces: an existing file is never replaced. Recovery, which holds
// the locks and has just seen the name absent, renames directly.
func doSwitch(fsys FS, j jOp, data []byte, placeholder func() error) error {
	name := j.Name
	if j.Kind == "delete" {
		if j.Keep == keepMove {
			return fsys.Rename(name, j.Aside)
		}
		return fsys.Remove(name)
	}
	if j.InPlace {
		return writeInPlace(fsys, name, data)
	}
	if j.Keep == keepMove {
		if err := fsys.Rename(name, j.Aside); err != nil {
			return err
		}
	}
	if j.Create {
		err := errors.ErrUnsupported
		if lf, ok := fsys.(LinkFS); ok {
			err = lf.Link(j.Temp, name)
		}
		switch {
		case err == nil:
			_ = fsys.Remove(j.Temp)
			return nil
		case errors.Is(err, fs.ErrExist):
			return &Error{Op: "commit", Name: name, Err: existsError{}}
		case !linkUnsupported(err):
			return err
		}
		if placeholder != nil {
			if err := createPlaceholder(fsys, name, placeholder); err != nil {
				return err
			}
		}
	}
	return fsys.Rename(j.Temp, name)
}

// createPlaceholder journals and creates name exclusively, empty: the name is now the
// commit's, and the staged file can be renamed over it without replacing anyone's file.
func createPlaceholder(fsys FS, name string, journal func() error) error {
	if err := journal(); err != nil {
		return err
	}
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return &Error{Op: "commit", Name: name, Err: existsError{}}
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// writeInPlace replaces the content of the existing file name (kept: its inode, links,
// owner, mode and attributes), synced.
func writeInPlace(fsys FS, name string, data []byte) error {
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// rollback undoes a commit whose switch failed at failed (nil: after the switch): it marks
// the journal, restores the operations in undo (those switched, and the one that failed
// while switching) from what was kept aside, last first, and returns the error to report.
func (tx *Tx) rollback(undo []*op, failed *op, cause error) error {
	_ = tx.j.record(true, jRecord{Mark: "rollback"})
	var notRestored []string
	for i := len(undo) - 1; i >= 0; i-- {
		o := undo[i]
		// A restore the file system refuses for a while (on Windows without POSIX rename
		// semantics: another process has the file open) is tried again within the lock
		// wait, while the locks are still held: once they are released, other writers
		// could read the half-restored tree and build on it.
		p := pacer{wait: tx.cfg.lockWait}
		conflict, err := back(context.Background(), tx.fsys, o.j, tx.cfg.limit)
		for err != nil && restoreBusy(err) && p.pause(context.Background()) == nil {
			conflict, err = back(context.Background(), tx.fsys, o.j, tx.cfg.limit)
		}
		if err != nil || conflict {
			notRestored = append(notRestored, o.prev.Name)
		}
	}
	for _, o := range tx.ops {
		if removeIfExists(tx.fsys, o.j.Temp) != nil {
			tx.keep = true
		}
		if o.j.Aside != "" && !slices.Contains(notRestored, o.prev.Name) && removeIfExists(tx.fsys, o.j.Aside) != nil {
			tx.keep = true
		}
	}
	if len(notRestored) > 0 {
		tx.keep = true
	}
	tx.removeDirs()
	for _, d := range tx.syncSet() {
		_ = syncDir(tx.fsys, d)
	}
	var e *Error
	if !errors.As(cause, &e) {
		name := ""
		if failed != nil {
			name = failed.prev.Name
		}
		e = &Error{Op: "commit", Name: name, Err: cause}
	}
	e.RolledBack = len(notRestored) == 0
	e.NotRestored = notRestored
	return e
}

func removeIfExists(fsys FS, name string) error {
	if name == "" {
		return nil
	}
	if err := fsys.Remove(name); err != nil && !isNotExist(err) {
		return err
	}
	return nil
}

// syncSet lists the directories whose entries the switch changed: every target's, and the
// parents of the directories the commit created.
func (tx *Tx) syncSet() []string {
	dirs := map[string]bool{}
	for _, o := range tx.ops {
		dirs[filepath.Dir(o.prev.Name)] = true
	}
	for _, d := range tx.newDirs {
		dirs[filepath.Dir(d)] = true
	}
	return slices.Sorted(mapKeys(dirs))
}

// cleanTemps removes what the commit kept aside and the temporaries left by in-place writes
// and links; it reports whether all went.
func (tx *Tx) cleanTemps() bool {
	ok := true
	for _, o := range tx.ops {
		if o.j.InPlace || o.j.Create && exists(tx.fsys, o.j.Temp) {
			ok = removeIfExists(tx.fsys, o.j.Temp) == nil && ok
		}
		if o.j.Aside != "" {
			ok = removeIfExists(tx.fsys, o.j.Aside) == nil && ok
		}
	}
	return ok
}

// after fills the snapshots of what the commit left.
func (tx *Tx) after(res *Committed) *Committed {
	for _, o := range tx.ops {
		s := Absent(o.prev.Name)
		if o.kind == opWrite {
			s.Type, s.Data = TypeFile, o.data
			if fi, err := tx.fsys.Lstat(o.prev.Name); err == nil {
				s.Info = fi
			} else {
				s.Type, s.Data = TypeAbsent, nil
			}
		}
		res.After = append(res.After, s)
	}
	return res
}

// syncDir makes the entries of the directory dir durable. Where directories cannot be synced
// (Windows, some file systems), the error is ignored: their metadata is journaled by the file
// system itself.
func syncDir(fsys FS, dir string) error {
	f, err := fsys.OpenFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil && (runtime.GOOS == "windows" || errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported)) {
		return nil
	}
	return err
}
