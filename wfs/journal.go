package wfs

import (
	"bufio"
	"bytes"
	"context"
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

const journalVersion = 1

type jHeader struct {
	WFS  int    `json:"wfs"`
	ID   string `json:"id"`
	PID  int    `json:"pid"`
	Root string `json:"root"`
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
	f       File
	unlock  func()
	durable bool // created with its directory entry synced
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

// parseJournal reads a journal; it stops at the first line that does not parse (the end of
// what was durably written). A journal without a valid header is an error.
func parseJournal(b []byte) (*parsed, error) {
	p := &parsed{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	first := true
	for sc.Scan() {
		line := sc.Bytes()
		if first {
			first = false
			if err := json.Unmarshal(line, &p.header); err != nil || p.header.WFS != journalVersion || p.header.ID == "" {
				return nil, fmt.Errorf("not a wfs journal (version %d expected): %q", journalVersion, truncate(line))
			}
			continue
		}
		if len(line) == 0 || line[len(line)-1] != '}' {
			break
		}
		var r jRecord
		if err := json.Unmarshal(line, &r); err != nil {
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
		return nil, errors.New("empty journal")
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
func createJournal(ctx context.Context, fsys FS, root string, durable bool, wait time.Duration) (*journalFile, error) {
	dir := filepath.Join(root, JournalDir)
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
		} else if err := ownFile(fsys, dir, fs.ModeDir|0o700); err != nil && !isNotExist(err) {
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
		j := &journalFile{name: filepath.Join(dir, id+".journal"), f: f, unlock: unlock, durable: durable}
		h, _ := json.Marshal(jHeader{WFS: journalVersion, ID: id, PID: os.Getpid(), Root: root})
		err = j.append(append(h, '\n'), durable)
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

// append writes lines to the journal, synced when durable.
func (j *journalFile) append(b []byte, durable bool) error {
	if _, err := j.f.Write(b); err != nil {
		return err
	}
	if durable {
		return j.f.Sync()
	}
	return nil
}

func (j *journalFile) record(durable bool, recs ...jRecord) error {
	var b bytes.Buffer
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
		b.Write(line)
		b.WriteByte('\n')
	}
	return j.append(b.Bytes(), durable)
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

// errForeign is the error for a journal directory or journal that no writer of this user
// made: a journal directory is a directory (not a link) of mode 0700 and a journal a regular
// file of mode 0600, both owned by the process's user. A tree copied from elsewhere (a
// checkout, an archive) does not make its content look like this, so a recovery does not act
// on a journal planted in a repository.
var errForeign = errors.New("not made by a harnesskit writer of this user (a journal directory is a 0700 directory, a journal a 0600 file, both the user's own); a copy from elsewhere? Remove it if no writer is running")

// ownFile checks that name is of type and permissions mode (Lstat: a link is not followed)
// and, where the FileInfo says, owned by the process's user. Where the file system keeps no
// permission bits (Windows reports 0777 for every directory and 0666 or 0444 for files) only
// the type is checked, and the names a journal may touch are what [parsed.validate] allows.
func ownFile(fsys FS, name string, mode fs.FileMode) error {
	fi, err := fsys.Lstat(name)
	if err != nil {
		return err
	}
	got, want := fi.Mode()&(fs.ModeType|fs.ModePerm), mode
	if !permsKept(fi) {
		got, want = got&fs.ModeType, want&fs.ModeType
	}
	if got != want || !ownedByUs(fi) {
		return fmt.Errorf("%w: mode %v", errForeign, fi.Mode())
	}
	return nil
}

// validate refuses a journal whose temporaries, kept files or scratch copies are not named as
// a commit names them next to their targets: recovery renames and removes those names, and
// must only ever touch a commit's own.
func (p *parsed) validate() error {
	bad := func(what, name string) error {
		return fmt.Errorf("%w: the %s %q is not a temporary name of this package", errForeign, what, name)
	}
	for _, o := range p.ops {
		if !filepath.IsAbs(o.Name) || filepath.Clean(o.Name) != o.Name {
			return bad("target", o.Name)
		}
		for _, t := range []struct{ what, name string }{{"temporary", o.Temp}, {"kept file", o.Aside}} {
			if t.name != "" && !tempOf(o.Name, t.name) {
				return bad(t.what, t.name)
			}
		}
	}
	for _, s := range p.scratch {
		if !filepath.IsAbs(s) || !strings.Contains(filepath.Base(s), ".hk-") || !IsLeftover(filepath.Base(s)) {
			return bad("scratch copy", s)
		}
	}
	for _, d := range p.mkdir {
		if !filepath.IsAbs(d) || filepath.Clean(d) != d {
			return bad("directory", d)
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
