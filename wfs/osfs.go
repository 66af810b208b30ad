package wfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// OSFS is an [FS] with every extension over real directories, safe for concurrent use. Each
// name goes to the longest base containing it, each base an [os.Root], so what reads content
// or changes anything stays inside a base even if a directory on the way is swapped for a
// symbolic link. Other names, and names with "..", are refused ([ErrOutside]), except that
// Lstat and Readlink answer any absolute name (a real-path resolver must see that an ancestor
// of a base is a link). Rename, Link and CopyMeta need both names in one base. On Windows
// errors are Windows': errors.Is with io/fs sentinels holds, comparisons with errnos do not.
type OSFS struct {
	bases []osBase // longest directory first

	mu     sync.Mutex
	closed bool
	key    []byte // SetJournalKey, or the user's key once read
}

// osBase is one allowed directory: the name it is reached by (cleaned) and the root.
type osBase struct {
	dir  string
	root *os.Root
}

var (
	_ FS        = (*OSFS)(nil)
	_ ReadDirFS = (*OSFS)(nil)
	_ LinkFS    = (*OSFS)(nil)
	_ LockFS    = (*OSFS)(nil)
	_ MetaFS    = (*OSFS)(nil)
	_ KeyFS     = (*OSFS)(nil)
)

// NewOSFS opens an [os.Root] per base (made absolute; also routed by real path).
func NewOSFS(bases ...string) (*OSFS, error) {
	if len(bases) == 0 {
		return nil, errors.New("wfs: NewOSFS needs at least one base directory")
	}
	o := &OSFS{}
	add := func(dir string, root *os.Root) {
		for _, b := range o.bases {
			if b.dir == dir {
				return
			}
		}
		o.bases = append(o.bases, osBase{dir: dir, root: root})
	}
	for _, b := range bases {
		abs, err := filepath.Abs(b)
		if err != nil {
			o.Close()
			return nil, fmt.Errorf("wfs: base directory %q: %w", b, err)
		}
		root, err := os.OpenRoot(abs)
		if err != nil {
			o.Close()
			return nil, fmt.Errorf("wfs: cannot open base directory: %w", err)
		}
		add(abs, root)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			add(real, root)
		}
	}
	slices.SortStableFunc(o.bases, func(a, b osBase) int { return len(b.dir) - len(a.dir) })
	return o, nil
}

// Bases returns the bases, longest first, real paths of linked bases included.
func (o *OSFS) Bases() []string {
	out := make([]string, len(o.bases))
	for i, b := range o.bases {
		out[i] = b.dir
	}
	return out
}

// Close closes every root; later calls fail with fs.ErrClosed.
func (o *OSFS) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	var errs []error
	seen := map[*os.Root]bool{}
	for _, b := range o.bases {
		if !seen[b.root] {
			seen[b.root] = true
			errs = append(errs, b.root.Close())
		}
	}
	return errors.Join(errs...)
}

// route finds the base holding name and name's path relative to it.
func (o *OSFS) route(op, name string) (*os.Root, string, error) {
	if !filepath.IsAbs(name) {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: ErrNotAbs}
	}
	for _, e := range elems(name[len(filepath.VolumeName(name)):]) {
		if e == ".." {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: &outsideError{
				msg:    "path contains a '..' element; pass a cleaned absolute path inside " + o.describe(),
				dotdot: true}}
		}
	}
	o.mu.Lock()
	closed := o.closed
	o.mu.Unlock()
	if closed {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrClosed}
	}
	clean := filepath.Clean(name)
	for _, b := range o.bases {
		if rel, ok := within(b.dir, clean); ok {
			return b.root, rel, nil
		}
	}
	return nil, "", &fs.PathError{Op: op, Path: name, Err: &outsideError{
		msg: "path is outside the allowed base directories " + o.describe()}}
}

func (o *OSFS) describe() string {
	return strings.Join(o.Bases(), ", ")
}

// within reports whether the clean path p is dir or lies below it, and returns p relative
// to dir ("." for dir itself). The test is segment-aware: /w/rootx is not within /w/root.
func within(dir, p string) (string, bool) {
	if p == dir {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if rest, ok := strings.CutPrefix(p, prefix); ok {
		return rest, true
	}
	return "", false
}

// rewrap replaces the relative name and the *at operation of an os.Root error by the
// absolute name and the os package's operation name.
func rewrap(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

func (o *OSFS) Stat(name string) (fs.FileInfo, error) {
	root, rel, err := o.route("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := root.Stat(rel)
	return fi, rewrap("stat", name, err)
}

func (o *OSFS) Lstat(name string) (fs.FileInfo, error) {
	root, rel, err := o.route("lstat", name)
	if errors.Is(err, ErrOutside) && !errors.Is(err, errDotDot) || err == nil && rel == "." {
		return os.Lstat(name)
	}
	if err != nil {
		return nil, err
	}
	fi, err := root.Lstat(rel)
	return fi, rewrap("lstat", name, err)
}

func (o *OSFS) Readlink(name string) (string, error) {
	root, rel, err := o.route("readlink", name)
	if errors.Is(err, ErrOutside) && !errors.Is(err, errDotDot) || err == nil && rel == "." {
		return os.Readlink(name)
	}
	if err != nil {
		return "", err
	}
	t, err := root.Readlink(rel)
	return t, rewrap("readlink", name, err)
}

func (o *OSFS) ReadFile(name string) ([]byte, error) {
	root, rel, err := o.route("open", name)
	if err != nil {
		return nil, err
	}
	b, err := root.ReadFile(rel)
	if err != nil {
		var pe *fs.PathError
		op := "open"
		if errors.As(err, &pe) && pe.Op == "read" {
			op = "read"
		}
		return nil, rewrap(op, name, err)
	}
	return b, nil
}

func (o *OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	root, rel, err := o.route("open", name)
	if err != nil {
		return nil, err
	}
	f, err := root.OpenFile(rel, flag, perm)
	if err != nil {
		return nil, rewrap("open", name, err)
	}
	return &osFile{f: f, name: name}, nil
}

// osFile reports errors with the absolute name the file was opened with.
type osFile struct {
	f    *os.File
	name string
}

func (f *osFile) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	return n, rewrap("write", f.name, err)
}

func (f *osFile) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	if err == io.EOF {
		return n, err
	}
	return n, rewrap("read", f.name, err)
}

func (f *osFile) Stat() (fs.FileInfo, error) {
	fi, err := f.f.Stat()
	return fi, rewrap("stat", f.name, err)
}

func (f *osFile) Sync() error  { return rewrap("sync", f.name, f.f.Sync()) }
func (f *osFile) Close() error { return rewrap("close", f.name, f.f.Close()) }

func (o *OSFS) Rename(oldname, newname string) error {
	linkErr := func(err error) error {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	r1, rel1, err := o.route("rename", oldname)
	if err != nil {
		return linkErr(err)
	}
	r2, rel2, err := o.route("rename", newname)
	if err != nil {
		return linkErr(err)
	}
	if r1 != r2 {
		return linkErr(&outsideError{msg: "rename across base directories is not supported; " +
			"rename within one directory"})
	}
	if err := r1.Rename(rel1, rel2); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return linkErr(err)
	}
	return nil
}

func (o *OSFS) Remove(name string) error {
	root, rel, err := o.route("remove", name)
	if err != nil {
		return err
	}
	err = root.Remove(rel)
	if err != nil {
		err = removeFallback(name, err)
	}
	return rewrap("remove", name, err)
}

func (o *OSFS) Mkdir(name string, perm fs.FileMode) error {
	root, rel, err := o.route("mkdir", name)
	if err != nil {
		return err
	}
	return rewrap("mkdir", name, root.Mkdir(rel, perm&fs.ModePerm))
}

func (o *OSFS) Chmod(name string, mode fs.FileMode) error {
	root, rel, err := o.route("chmod", name)
	if err != nil {
		return err
	}
	return rewrap("chmod", name, root.Chmod(rel, mode&ModeBits))
}

// ReadTree reads what is below the real directory dir, as [MemFS.TreeUnder].
func ReadTree(dir string) (map[string]Entry, error) {
	out := map[string]Entry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			out[key] = Entry{Dir: true, Mode: info.Mode() & ModeBits}
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[key] = Entry{Symlink: true, Mode: info.Mode() & ModeBits, Target: t}
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[key] = Entry{Data: b, Mode: info.Mode() & ModeBits}
		}
		return nil
	})
	return out, err
}

func (o *OSFS) ReadDir(name string) ([]fs.DirEntry, error) {
	root, rel, err := o.route("readdir", name)
	if err != nil {
		return nil, err
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, rewrap("readdir", name, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, rewrap("readdir", name, err)
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

func (o *OSFS) Link(oldname, newname string) error {
	linkErr := func(err error) error {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &le):
			err = le.Err
		case errors.As(err, &pe):
			err = pe.Err
		}
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: err}
	}
	r1, rel1, err := o.route("link", oldname)
	if err != nil {
		return linkErr(err)
	}
	r2, rel2, err := o.route("link", newname)
	if err != nil {
		return linkErr(err)
	}
	if r1 != r2 {
		return linkErr(&outsideError{msg: "link across base directories is not supported"})
	}
	if err := r1.Link(rel1, rel2); err != nil {
		return linkErr(err)
	}
	return nil
}

func (o *OSFS) TryLock(name string) (func(), error) {
	root, rel, err := o.route("lock", name)
	if err != nil {
		return nil, err
	}
	unlock, err := tryLock(root, rel)
	if err != nil {
		return nil, rewrap("lock", name, err)
	}
	return unlock, nil
}

// inUseProber is an FS that can tell, before a commit stages anything, that a target is held
// open by another program in a way that blocks its replacement (an OSFS on Windows).
type inUseProber interface {
	probeInUse(name string) error
}

// probeInUse returns an error matching ErrInUse when the named file (inside a base) is held
// open by another program without sharing delete access, which replacing or removing it
// needs; only Windows has such sharing modes, elsewhere it returns nil.
func (o *OSFS) probeInUse(name string) error {
	if _, _, err := o.route("check", name); err != nil {
		return nil // the commit's own calls report it
	}
	return probeInUse(name)
}

// linkCounter is an FS that counts a file's hard links by name where its FileInfo does not
// say (an OSFS on Windows).
type linkCounter interface {
	linkCount(name string) (uint64, bool)
}

// linkCount returns the number of hard links of the named file (inside a base), when the
// system tells it by name and not in the FileInfo (Windows).
func (o *OSFS) linkCount(name string) (uint64, bool) {
	if _, _, err := o.route("check", name); err != nil {
		return 0, false
	}
	return sysLinkCount(name)
}

func (o *OSFS) CopyMeta(src, dst string) error {
	r1, rel1, err := o.route("copymeta", src)
	if err != nil {
		return err
	}
	r2, rel2, err := o.route("copymeta", dst)
	if err != nil {
		return err
	}
	return rewrap("copymeta", dst, copyMeta(r1, rel1, r2, rel2))
}
