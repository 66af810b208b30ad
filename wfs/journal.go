package wfs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// The journal is a file of JSON lines in root/.hkwfs: a header, then records appended as the
// commit goes. A line is durable once the journal is synced; a line cut short by a crash does
// not parse and ends the journal (the commit did not get past it). The format:
//
//	{"wfs":1,"id":"<16 hex>","pid":123,"root":"/abs/root"}          header
//	{"scratch":"/abs/dir/.app.rb.hk-….rb"}                           a scratch copy (Tx.Scratch)
//	{"mkdir":["/abs/new","/abs/new/dir"]}                            directories the commit creates
//	{"op":{"kind":"write","name":…,"temp":…,"aside":…,"keep":"link","old":{…},"new":{…}}}
//	{"op":{"kind":"delete","name":…,"aside":…,"keep":"move","old":{…}}}
//	{"keep":{"op":0,"how":"copy"}}                                    op 0 keeps its old file another way (no hard links)
//	{"mark":"commit"}                                                 every temporary is staged
//	{"placeholder":{"op":1}}                                          op 1's name is created empty, then replaced
//	{"mark":"rollback"}                                               the commit is being undone
//
// A state ("old", "new") is {"type":"absent"}, {"type":"file","size":N,"crc32c":"…"} (no sum
// for a file over the size limit) or {"type":"symlink","target":"…"}.

const journalVersion = 2

// Every line ends with a space and the hex of its chained MAC (see chainMAC): a line whose
// MAC does not verify ends the journal, and a journal whose header does not verify is not
// this user's writer's and is never acted on.

type jHeader struct {
	WFS    int      `json:"wfs"`
	ID     string   `json:"id"`
	PID    int      `json:"pid"`
	Root   string   `json:"root"`
	RootID string   `json:"rootid,omitempty"` // the root directory's identity (device and inode) where known
	Trees  []string `json:"trees,omitempty"`  // other directories the commit may write in (WithTrees)
}

type jRecord struct {
	Scratch     string   `json:"scratch,omitempty"`
	Mkdir       []string `json:"mkdir,omitempty"`
	Op          *jOp     `json:"op,omitempty"`
	Keep        *jKeep   `json:"keep,omitempty"`        // operation Op keeps its old file another way
	Placeholder *jKeep   `json:"placeholder,omitempty"` // operation Op's name is created as a placeholder
	Mark        string   `json:"mark,omitempty"`
}

// jKeep names an operation by its index (and, for a Keep record, the new way).
type jKeep struct {
	Op  int    `json:"op"`
	How string `json:"how,omitempty"`
}

// How a commit keeps the old file of a name until it is done.
const (
	keepLink = "link" // a hard link made while staging
	keepCopy = "copy" // a copy written while staging (no LinkFS, or a file written in place)
	keepMove = "move" // the name itself renamed aside when switched (symbolic links; deletes without LinkFS)
)

type jOp struct {
	Kind    string `json:"kind"` // "write" or "delete"
	Name    string `json:"name"`
	Temp    string `json:"temp,omitempty"`
	Aside   string `json:"aside,omitempty"`
	Keep    string `json:"keep,omitempty"`
	InPlace bool   `json:"inplace,omitempty"` // written in place (a file with several hard links)
	Create  bool   `json:"create,omitempty"`  // linked into place, never replacing
	// Placeholder: links were unsupported, so the name was created exclusively, empty,
	// before the staged file was renamed over it.
	Placeholder bool    `json:"placeholder,omitempty"`
	Old         jState  `json:"old"`
	New         *jState `json:"new,omitempty"`
}

type jState struct {
	Type   string `json:"type"` // "absent", "file", "symlink"
	Size   int64  `json:"size,omitempty"`
	CRC32C string `json:"crc32c,omitempty"`
	Target string `json:"target,omitempty"`
}

func stateOf(s Snapshot) jState {
	switch s.Type {
	case TypeFile:
		st := jState{Type: "file", Size: s.Info.Size()}
		if !s.Large {
			st.CRC32C = sum(s.Data)
		}
		return st
	case TypeSymlink:
		return jState{Type: "symlink", Target: s.Target}
	}
	return jState{Type: "absent"}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func fileState(data []byte) *jState {
	return &jState{Type: "file", Size: int64(len(data)), CRC32C: sum(data)}
}

// sum is a state's checksum: CRC-32C (Castagnoli), which the processor computes at several
// GB/s, so that journaling a large file costs little. With the size beside it, it tells the
// commit's own before and after states apart from each other and from a later change; it is
// not meant to resist someone forging a collision, which would gain nothing (a journal is
// only ever the writer's own, and recovery keeps whatever it does not recognise).
func sum(b []byte) string {
	h := binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, castagnoli))
	return hex.EncodeToString(h[:])
}

// journalFile is the journal of one commit in progress, open for appending and locked.
type journalFile struct {
	name    string // root/.hkwfs/<id>.journal
	id      string
	f       File
	unlock  func()
	durable bool   // created with its directory entry synced
	key     []byte // signs the lines
	mac     []byte // the last line's MAC
}

// parsed is a journal as read back.
type parsed struct {
	header   jHeader
	scratch  []string
	mkdir    []string
	ops      []jOp
	commit   bool
	rollback bool
}

// errUntrusted is the error for a journal that no writer holding this key wrote: its header
// does not carry a valid MAC (a journal that came with the tree, an older release's, one
// damaged by a power loss), or it names another root.
var errUntrusted = errors.New("not signed by a writer of this user for this tree")

// splitLine cuts a journal line into its JSON and its MAC.
func splitLine(line []byte) (body, mac []byte, ok bool) {
	i := bytes.LastIndexByte(line, ' ')
	if i < 0 {
		return nil, nil, false
	}
	mac, err := hex.DecodeString(string(line[i+1:]))
	if err != nil || len(mac) != macSize {
		return nil, nil, false
	}
	return line[:i], mac, true
}

// parseJournal reads a journal, verifying each line's MAC under key; it stops at the first
// line that does not parse or verify (the end of what was durably written). A journal whose
// header does not verify is refused with errUntrusted.
func parseJournal(b []byte, key []byte) (*parsed, error) {
	p := &parsed{}
	var prev []byte
	first := true
	for len(b) > 0 {
		line := b
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break // a line without its newline was cut short
		}
		line, b = b[:i], b[i+1:]
		body, mac, ok := splitLine(line)
		var want []byte
		if ok {
			want = chainMAC(key, prev, body)
			ok = hmac.Equal(want, mac)
		}
		if first {
			first = false
			if !ok {
				return nil, fmt.Errorf("%w: its first line has no valid MAC: %q", errUntrusted, truncate(line))
			}
			if err := json.Unmarshal(body, &p.header); err != nil || p.header.WFS != journalVersion || p.header.ID == "" {
				return nil, fmt.Errorf("%w: not a wfs journal of version %d: %q", errUntrusted, journalVersion, truncate(line))
			}
			p.header.Root = decPath(p.header.Root)
			for k, t := range p.header.Trees {
				p.header.Trees[k] = decPath(t)
			}
			prev = want
			continue
		}
		if !ok {
			break
		}
		prev = want
		var r jRecord
		if err := json.Unmarshal(body, &r); err != nil {
			break
		}
		switch {
		case r.Scratch != "":
			p.scratch = append(p.scratch, decPath(r.Scratch))
		case r.Mkdir != nil:
			for _, d := range r.Mkdir {
				p.mkdir = append(p.mkdir, decPath(d))
			}
		case r.Op != nil:
			p.ops = append(p.ops, *r.Op)
		case r.Keep != nil:
			if k := r.Keep.Op; k >= 0 && k < len(p.ops) {
				p.ops[k].Keep = r.Keep.How
			}
		case r.Placeholder != nil:
			if k := r.Placeholder.Op; k >= 0 && k < len(p.ops) {
				p.ops[k].Placeholder = true
			}
		case r.Mark == "commit":
			p.commit = true
		case r.Mark == "rollback":
			p.rollback = true
		}
	}
	if first {
		return nil, fmt.Errorf("%w: it is empty", errUntrusted)
	}
	return p, nil
}

func truncate(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// createJournal creates and locks a new journal under dir (root/.hkwfs, made when missing)
// and writes its header. It is written under a ".new" name and renamed once locked and
// headed, so that a journal a recovery finds always belongs to a writer that locked it. With
// durable set the header and the directory entry are synced. Other writers remove the
// directory when they find it empty, also between this writer's Mkdir and its open; such an
// attempt (or one whose name was taken) is made again, eight times at once, then paced as a
// lock is waited for, within wait; then the error matches ErrBusy.
func createJournal(ctx context.Context, fsys FS, root string, trees []string, durable bool, wait time.Duration) (*journalFile, error) {
	dir := filepath.Join(root, JournalDir)
	key, err := journalKey(fsys)
	if err != nil {
		return nil, err
	}
	rootID := ""
	if fi, err := fsys.Lstat(root); err == nil {
		rootID = dirID(fi)
	}
	lf, _ := fsys.(LockFS)
	var lastErr error
	p := pacer{wait: wait}
	for attempt := 0; ; attempt++ {
		if attempt >= 8 {
			if err := p.pause(ctx); err != nil {
				lastErr = errors.Join(err, lastErr)
				break
			}
		}
		created := false
		if err := fsys.Mkdir(dir, 0o700); err == nil {
			created = true
		} else if !errorsIsExist(err) {
			return nil, err
		} else if err := realDir(fsys, dir); err != nil && !isNotExist(err) {
			return nil, err
		}
		if created && durable {
			if err := syncDir(fsys, root); err != nil {
				_ = fsys.Remove(dir)
				return nil, err
			}
		}
		var b [8]byte
		if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
			return nil, err
		}
		id := hex.EncodeToString(b[:])
		tmp := filepath.Join(dir, id+".new")
		f, err := fsys.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			if !errors.Is(err, fs.ErrExist) && !isNotExist(err) {
				_ = fsys.Remove(dir)
				return nil, err
			}
			lastErr = err
			continue // the directory was removed meanwhile, or the name is taken: again
		}
		unlock := func() {}
		if lf != nil {
			u, err := lf.TryLock(tmp)
			if err != nil {
				f.Close()
				if !errors.Is(err, ErrLocked) && !isNotExist(err) {
					_ = fsys.Remove(tmp)
					_ = fsys.Remove(dir)
					return nil, err
				}
				lastErr = err
				continue // a recovery took it for a dead writer's: again, under another name
			}
			unlock = u
		}
		j := &journalFile{name: filepath.Join(dir, id+".journal"), id: id, f: f, unlock: unlock, durable: durable, key: key}
		hd := jHeader{WFS: journalVersion, ID: id, PID: os.Getpid(), Root: encPath(root), RootID: rootID}
		for _, t := range trees {
			hd.Trees = append(hd.Trees, encPath(t))
		}
		h, _ := json.Marshal(hd)
		err = j.append(durable, h)
		if err == nil {
			err = fsys.Rename(tmp, j.name)
		}
		if err == nil && durable {
			err = syncDir(fsys, dir)
		}
		if err != nil {
			j.close()
			_ = fsys.Remove(tmp)
			_ = fsys.Remove(j.name)
			_ = fsys.Remove(dir) // when empty
			return nil, err
		}
		return j, nil
	}
	_ = fsys.Remove(dir)
	return nil, fmt.Errorf("cannot create a journal in %s: %w", dir, lastErr)
}

func errorsIsExist(err error) bool { return errors.Is(err, os.ErrExist) }

// append writes lines (JSON without newlines) to the journal, each followed by its chained
// MAC, synced when durable.
func (j *journalFile) append(durable bool, lines ...[]byte) error {
	var b []byte
	mac := j.mac
	for _, l := range lines {
		mac = chainMAC(j.key, mac, l)
		b = append(b, l...)
		b = append(b, ' ')
		b = hex.AppendEncode(b, mac)
		b = append(b, '\n')
	}
	if _, err := j.f.Write(b); err != nil {
		return err
	}
	j.mac = mac
	if durable {
		return j.f.Sync()
	}
	return nil
}

func (j *journalFile) record(durable bool, recs ...jRecord) error {
	var lines [][]byte
	for _, r := range recs {
		r.Scratch = encPath(r.Scratch)
		if r.Mkdir != nil {
			dirs := make([]string, len(r.Mkdir))
			for i, d := range r.Mkdir {
				dirs[i] = encPath(d)
			}
			r.Mkdir = dirs
		}
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		lines = append(lines, line)
	}
	return j.append(durable, lines...)
}

func (j *journalFile) close() {
	_ = j.f.Close()
	j.unlock()
}

// finish closes, unlocks and removes the journal, and removes root/.hkwfs when it is empty.
// With keep set the journal stays for a later recovery to finish (a cleanup step failed).
func (j *journalFile) finish(fsys FS, keep bool) {
	j.close()
	if keep {
		return
	}
	_ = fsys.Remove(j.name)
	_ = fsys.Remove(filepath.Dir(j.name)) // fails while another journal is there, as wanted
}

func isJournal(base string) bool {
	return strings.HasSuffix(base, ".journal") && !strings.HasPrefix(base, ".")
}

// errForeign is the error for a journal that verifies but names what no commit of this
// package names (defence in depth: such a journal is refused as a whole).
var errForeign = errors.New("names what no commit of this package writes")

// realDir checks that name is a directory itself, not a symbolic link or a file.
func realDir(fsys FS, name string) error {
	fi, err := fsys.Lstat(name)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is a %v, not a directory: it is not this package's journal directory; remove it", name, fi.Mode().Type())
	}
	return nil
}

// vcsDirs are the names no commit writes in (nor names itself): the repositories of version
// control systems, whose configuration runs commands, and the journal directory.
var vcsDirs = []string{".git", ".hg", ".svn", JournalDir}

// placeOK checks that name lies inside root or one of trees (and is not that directory
// itself), and that no element of its path below that directory is a version-control
// directory or the journal directory.
func placeOK(root string, trees []string, name string) error {
	for _, t := range append([]string{root}, trees...) {
		rel, ok := within(t, name)
		if !ok || rel == "." || rel == "" {
			continue
		}
		for _, e := range strings.Split(filepath.ToSlash(rel), "/") {
			for _, v := range vcsDirs {
				if strings.EqualFold(e, v) {
					return fmt.Errorf("%w: it lies in %s, where no harnesskit writer writes", ErrOutside, v)
				}
			}
		}
		return nil
	}
	return fmt.Errorf("%w: it lies outside the tree %s (pass its directory with WithTrees)", ErrOutside, root)
}

// under returns the directory of root and trees that holds name.
func under(root string, trees []string, name string) string {
	for _, t := range append([]string{root}, trees...) {
		if rel, ok := within(t, name); ok && rel != "." && rel != "" {
			return t
		}
	}
	return ""
}

// validate refuses a journal that names what no commit of this package writes, even when it
// verifies: a target outside root and the trees its header lists, inside a version-control
// directory, or reached through a symbolic link; temporaries, kept files and scratch copies
// not named as a commit names them next to their targets.
func (p *parsed) validate(fsys FS, root string) error {
	bad := func(what, name, why string) error {
		return fmt.Errorf("%w: the %s %q %s", errForeign, what, name, why)
	}
	for _, t := range p.header.Trees {
		if !filepath.IsAbs(t) || filepath.Clean(t) != t {
			return bad("tree", t, "is not a clean absolute name")
		}
	}
	place := func(what, name string) error {
		if !filepath.IsAbs(name) || filepath.Clean(name) != name {
			return bad(what, name, "is not a clean absolute name")
		}
		if err := placeOK(root, p.header.Trees, name); err != nil {
			return bad(what, name, err.Error())
		}
		top := under(root, p.header.Trees, name)
		for d := filepath.Dir(name); d != top && len(d) > len(top); d = filepath.Dir(d) {
			fi, err := fsys.Lstat(d)
			if err == nil && !fi.IsDir() {
				return bad(what, name, "is reached through "+d+", which is not a directory")
			}
		}
		return nil
	}
	for _, o := range p.ops {
		if err := place("target", o.Name); err != nil {
			return err
		}
		switch {
		case o.Kind != "write" && o.Kind != "delete":
			return bad("operation on", o.Name, "has an unknown kind")
		case o.Kind == "write" && (o.New == nil || o.New.Type != "file"):
			return bad("write of", o.Name, "has no new file state")
		case o.Kind == "delete" && o.New != nil:
			return bad("delete of", o.Name, "has a new state")
		case o.Old.Type != "absent" && o.Old.Type != "file" && o.Old.Type != "symlink":
			return bad("operation on", o.Name, "has an unknown old state")
		case o.Keep != "" && o.Keep != keepLink && o.Keep != keepCopy && o.Keep != keepMove:
			return bad("operation on", o.Name, "keeps its old file in an unknown way")
		}
		for _, t := range []struct{ what, name string }{{"temporary", o.Temp}, {"kept file", o.Aside}} {
			if t.name == "" {
				continue
			}
			if !tempOf(o.Name, t.name) {
				return bad(t.what, t.name, "is not a temporary name of this package")
			}
			// A temporary and a kept copy are regular files the commit made; only a name
			// moved aside whole (keep "move") may be the old symbolic link itself.
			fi, err := fsys.Lstat(t.name)
			movedLink := t.name == o.Aside && o.Keep == keepMove && o.Old.Type == "symlink"
			if err == nil && !fi.Mode().IsRegular() && !(movedLink && fi.Mode()&fs.ModeSymlink != 0) {
				return bad(t.what, t.name, "is a "+fi.Mode().Type().String()+", not a file this package made")
			}
		}
	}
	for _, s := range p.scratch {
		if err := place("scratch copy", s); err != nil {
			return err
		}
		if !strings.Contains(filepath.Base(s), ".hk-") || !IsLeftover(filepath.Base(s)) {
			return bad("scratch copy", s, "is not a temporary name of this package")
		}
	}
	for _, d := range p.mkdir {
		if err := place("directory", d); err != nil {
			return err
		}
	}
	return nil
}

// tempOf reports whether temp is a TempName of target: in its directory, named after it.
func tempOf(target, temp string) bool {
	base := filepath.Base(temp)
	stem := filepath.Base(target)
	if len(stem) > maxStem {
		cut := maxStem
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		stem = stem[:cut]
	}
	return filepath.Dir(temp) == filepath.Dir(target) && strings.HasPrefix(base, "."+stem+".hk-") && IsLeftover(base)
}

// Names are bytes on most systems and need not be UTF-8, which a JSON string must be (the
// encoder would replace the bytes it cannot keep). A name that is not valid UTF-8 is written
// as "b64:" and its bytes in base64: no absolute name starts with "b64:".
const b64Prefix = "b64:"

func encPath(s string) string {
	if utf8.ValidString(s) && !strings.HasPrefix(s, b64Prefix) {
		return s
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(s))
}

func decPath(s string) string {
	if rest, ok := strings.CutPrefix(s, b64Prefix); ok {
		if b, err := base64.StdEncoding.DecodeString(rest); err == nil {
			return string(b)
		}
	}
	return s
}

// MarshalJSON writes an operation with its names encoded by encPath.
func (o jOp) MarshalJSON() ([]byte, error) {
	type plain jOp
	c := plain(o)
	c.Name, c.Temp, c.Aside = encPath(c.Name), encPath(c.Temp), encPath(c.Aside)
	c.Old.Target = encPath(c.Old.Target)
	return json.Marshal(c)
}

// UnmarshalJSON reads an operation written by MarshalJSON.
func (o *jOp) UnmarshalJSON(b []byte) error {
	type plain jOp
	var c plain
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	c.Name, c.Temp, c.Aside = decPath(c.Name), decPath(c.Temp), decPath(c.Aside)
	c.Old.Target = decPath(c.Old.Target)
	*o = jOp(c)
	return nil
}
