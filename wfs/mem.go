package wfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MemFS is an in-memory [FS] with every extension but [MetaFS], deterministic and safe for
// concurrent use. It behaves as Linux does for an unprivileged owner, on every platform:
// hard and symbolic links (".." after a link climbs from its target), permission bits, a
// umask, the same errno. A rapid state machine requires OSFS's results from it, except that
// it has no bases (it follows links that leave one, and absolute targets), follows
// [MaxSymlinks] links (os.Root 8), denies the owner what the mode denies (root on disk is
// not denied), ignores trailing separators, and keeps no owner, no attributes, zero times,
// size 0 for directories.
//
// For tests: Calls logs every mutating call and sync until ResetCalls; InjectFault fails
// chosen calls until ClearFaults; Tree and TreeUnder copy the entries; the setup methods
// WriteFile, MkdirAll and Symlink take exact modes, make missing parents (0755), and are
// neither logged nor faulted.
type MemFS struct {
	mu    sync.Mutex
	vols  map[string]*node // volume name ("" on Unix) → its root directory
	umask fs.FileMode
	fold  bool   // names compare case-insensitively (SetCaseInsensitive)
	key   []byte // signs this value's journals (JournalKey)

	cmu    sync.Mutex // guards calls and faults; never held while mu is wanted
	calls  []Call
	faults []fault
}

type fault struct {
	match func(op, name string) bool
	err   error
}

type node struct {
	mode   fs.FileMode // type bits | permission bits
	data   []byte
	target string
	kids   map[string]*node
	nlink  int  // directory entries naming this node (hard links)
	locked bool // held by TryLock
}

func (n *node) isDir() bool  { return n.mode.IsDir() }
func (n *node) isLink() bool { return n.mode&fs.ModeSymlink != 0 }

var (
	_ FS        = (*MemFS)(nil)
	_ ReadDirFS = (*MemFS)(nil)
	_ LinkFS    = (*MemFS)(nil)
	_ LockFS    = (*MemFS)(nil)
	_ KeyFS     = (*MemFS)(nil)
)

// NewMemFS returns an empty MemFS: the platform's root volume, mode 0755.
func NewMemFS() *MemFS {
	m := &MemFS{vols: map[string]*node{}, umask: DefaultUmask, key: newKey()}
	if wd, err := os.Getwd(); err == nil {
		m.volume(filepath.VolumeName(wd))
	} else {
		m.volume("")
	}
	return m
}

// volume returns the root directory of vol, creating it. Callers hold mu (or own m).
func (m *MemFS) volume(vol string) *node {
	r := m.vols[vol]
	if r == nil {
		r = &node{mode: fs.ModeDir | 0o755, kids: map[string]*node{}}
		m.vols[vol] = r
	}
	return r
}

// SetCaseInsensitive makes names compare as on macOS and Windows.
func (m *MemFS) SetCaseInsensitive(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fold = on
}

// memID is what the Sys method of a [MemFS] FileInfo returns: the identity of the file, so
// that [SameFile] can tell whether two names lead to the same file.
type memID struct{ n *node }

// SameFile is os.SameFile that also knows FileInfos from a MemFS.
func SameFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return false
	}
	ia, aok := a.Sys().(memID)
	ib, bok := b.Sys().(memID)
	if aok || bok {
		return aok && bok && ia.n == ib.n
	}
	return os.SameFile(a, b)
}

func (m *MemFS) SetUmask(mask fs.FileMode) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.umask = mask & fs.ModePerm
}

// InjectFault makes every later call for which match(op, name) holds fail with err (in an
// [*fs.PathError] unless it is one or an [*os.LinkError]), changing nothing ("close" still
// closes): op is a [Call] Op, "write" or "close", name the name changed; the first match
// wins, and match must not call InjectFault.
func (m *MemFS) InjectFault(match func(op, name string) bool, err error) {
	m.cmu.Lock()
	defer m.cmu.Unlock()
	m.faults = append(m.faults, fault{match, err})
}

func (m *MemFS) ClearFaults() {
	m.cmu.Lock()
	defer m.cmu.Unlock()
	m.faults = nil
}

func (m *MemFS) Calls() []Call {
	m.cmu.Lock()
	defer m.cmu.Unlock()
	return slices.Clone(m.calls)
}

func (m *MemFS) ResetCalls() {
	m.cmu.Lock()
	defer m.cmu.Unlock()
	m.calls = nil
}

// enter logs a mutating call (when logged) and returns the injected fault for it, if any.
func (m *MemFS) enter(op, name, name2 string, logged bool) error {
	m.cmu.Lock()
	if logged {
		m.calls = append(m.calls, Call{Op: op, Name: name, Name2: name2})
	}
	faults := m.faults
	m.cmu.Unlock()
	target := name
	if op == "rename" || op == "link" {
		target = name2
	}
	for _, f := range faults {
		if f.match(op, target) {
			var pe *fs.PathError
			var le *os.LinkError
			switch {
			case errors.As(f.err, &pe), errors.As(f.err, &le):
				return f.err
			case op == "rename" || op == "link":
				return &os.LinkError{Op: op, Old: name, New: name2, Err: f.err}
			default:
				return &fs.PathError{Op: op, Path: name, Err: f.err}
			}
		}
	}
	return nil
}

// resolved is the outcome of resolving a name: the directory holding its final element
// (nil when the name denotes a volume root or ends in "." or ".."), that element as given,
// the key it is stored under (its spelling on a case-insensitive MemFS), and the node (nil
// when the final element does not exist).
type resolved struct {
	parent *node
	leaf   string
	key    string
	n      *node
}

// lookup finds the entry e of dir and the key it is stored under.
func (m *MemFS) lookup(dir *node, e string) (*node, string) {
	if n := dir.kids[e]; n != nil || !m.fold {
		return n, e
	}
	for k, n := range dir.kids {
		if strings.EqualFold(k, e) {
			return n, k
		}
	}
	return nil, e
}

// elems splits the part of a path after its volume name into its elements.
func elems(rest string) []string {
	var out []string
	for e := range strings.SplitSeq(filepath.ToSlash(rest), "/") {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// resolve walks name element by element. Symbolic links in non-final elements are always
// followed, a final one only when follow is set. The error is a bare syscall error (or
// ErrNotAbs) for the caller to wrap. Callers hold mu.
func (m *MemFS) resolve(name string, follow bool) (resolved, error) {
	if !filepath.IsAbs(name) {
		return resolved{}, ErrNotAbs
	}
	vol := filepath.VolumeName(name)
	root := m.vols[vol]
	if root == nil {
		return resolved{}, syscall.ENOENT
	}
	stack := []*node{root}
	todo := elems(name[len(vol):])
	links := 0
	for len(todo) > 0 {
		e := todo[0]
		todo = todo[1:]
		last := len(todo) == 0
		dir := stack[len(stack)-1]
		switch e {
		case ".":
			if last {
				return resolved{n: dir}, nil
			}
			continue
		case "..":
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			if last {
				return resolved{n: stack[len(stack)-1]}, nil
			}
			continue
		}
		if dir.mode&0o100 == 0 {
			return resolved{}, syscall.EACCES
		}
		child, key := m.lookup(dir, e)
		if child == nil {
			if last {
				return resolved{parent: dir, leaf: e, key: e}, nil
			}
			return resolved{}, syscall.ENOENT
		}
		if child.isLink() && (!last || follow) {
			links++
			if links > MaxSymlinks {
				return resolved{}, syscall.ELOOP
			}
			t := child.target
			if t == "" {
				return resolved{}, syscall.ENOENT
			}
			tv := filepath.VolumeName(t)
			rest := t[len(tv):]
			if tv != "" || (rest != "" && os.IsPathSeparator(rest[0])) {
				if tv == "" {
					tv = vol
				}
				r := m.vols[tv]
				if r == nil {
					return resolved{}, syscall.ENOENT
				}
				vol = tv
				stack = []*node{r}
			}
			te := elems(rest)
			if len(te) == 0 {
				te = []string{"."}
			}
			todo = append(te, todo...)
			continue
		}
		if last {
			return resolved{parent: dir, leaf: e, key: key, n: child}, nil
		}
		if !child.isDir() {
			return resolved{}, syscall.ENOTDIR
		}
		stack = append(stack, child)
	}
	return resolved{n: stack[len(stack)-1]}, nil
}

// canModify reports whether entries of dir may be created, removed or renamed.
func canModify(dir *node) bool { return dir.mode&0o300 == 0o300 }

// memInfo is the fs.FileInfo of a MemFS node.
type memInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	id    *node
	links int
}

func (i *memInfo) Name() string       { return i.name }
func (i *memInfo) Size() int64        { return i.size }
func (i *memInfo) Mode() fs.FileMode  { return i.mode }
func (i *memInfo) ModTime() time.Time { return time.Time{} }
func (i *memInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *memInfo) Sys() any           { return memID{i.id} }
func (i *memInfo) nlinks() uint64     { return uint64(max(i.links, 1)) }

func infoOf(name string, n *node) fs.FileInfo {
	size := int64(len(n.data))
	if n.isLink() {
		size = int64(len(n.target))
	}
	return &memInfo{name: filepath.Base(name), size: size, mode: n.mode, id: n, links: n.nlink}
}

func (m *MemFS) stat(op, name string, follow bool) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.resolve(name, follow)
	if err == nil && r.n == nil {
		err = syscall.ENOENT
	}
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return infoOf(name, r.n), nil
}

func (m *MemFS) Stat(name string) (fs.FileInfo, error) { return m.stat("stat", name, true) }

func (m *MemFS) Lstat(name string) (fs.FileInfo, error) { return m.stat("lstat", name, false) }

func (m *MemFS) Readlink(name string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.resolve(name, false)
	switch {
	case err != nil:
	case r.n == nil:
		err = syscall.ENOENT
	case !r.n.isLink():
		err = syscall.EINVAL
	default:
		return r.n.target, nil
	}
	return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
}

func (m *MemFS) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.resolve(name, true)
	switch {
	case err != nil:
	case r.n == nil:
		err = syscall.ENOENT
	case r.n.mode&0o400 == 0:
		err = syscall.EACCES
	case r.n.isDir():
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	default:
		return slices.Clone(r.n.data), nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: err}
}

const accMode = os.O_RDONLY | os.O_WRONLY | os.O_RDWR

func (m *MemFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	acc := flag & accMode
	mutating := acc != os.O_RDONLY || flag&(os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0
	if mutating {
		if err := m.enter("open", name, "", true); err != nil {
			return nil, err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	excl := flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0
	r, err := m.resolve(name, !excl)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	n := r.n
	switch {
	case n == nil && flag&os.O_CREATE == 0:
		err = syscall.ENOENT
	case n == nil && !canModify(r.parent):
		err = syscall.EACCES
	case n == nil:
		n = &node{mode: perm & fs.ModePerm &^ m.umask, nlink: 1}
		r.parent.kids[r.leaf] = n
	case excl:
		err = syscall.EEXIST
	case n.isDir() && (acc != os.O_RDONLY || flag&os.O_TRUNC != 0):
		err = syscall.EISDIR
	case (acc == os.O_RDONLY || acc == os.O_RDWR) && n.mode&0o400 == 0,
		(acc == os.O_WRONLY || acc == os.O_RDWR) && n.mode&0o200 == 0:
		err = syscall.EACCES
	case flag&os.O_TRUNC != 0 && acc != os.O_RDONLY:
		n.data = nil
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &memFile{m: m, n: n, name: name, flag: flag}, nil
}

// memFile is an open MemFS file.
type memFile struct {
	m      *MemFS
	n      *node
	name   string
	flag   int
	off    int
	closed bool // guarded by m.mu
}

func (f *memFile) Write(p []byte) (int, error) {
	if err := f.m.enter("write", f.name, "", false); err != nil {
		return 0, err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	switch {
	case f.closed:
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: fs.ErrClosed}
	case f.flag&accMode == os.O_RDONLY:
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.EBADF}
	case f.n.isDir():
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.EISDIR}
	}
	if len(p) == 0 {
		return 0, nil // like write(2): an empty write does not extend the file
	}
	if f.flag&os.O_APPEND != 0 {
		f.off = len(f.n.data)
	}
	end := f.off + len(p)
	switch {
	case f.off == len(f.n.data):
		// The usual sequential write; append grows the capacity geometrically.
		f.n.data = append(f.n.data, p...)
	case end > len(f.n.data):
		f.n.data = append(f.n.data, make([]byte, end-len(f.n.data))...)
		copy(f.n.data[f.off:], p)
	default:
		copy(f.n.data[f.off:], p)
	}
	f.off = end
	return len(p), nil
}

// Read reads from the file's current offset; a directory fails with syscall.EISDIR.
func (f *memFile) Read(p []byte) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	switch {
	case f.closed:
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrClosed}
	case f.flag&accMode == os.O_WRONLY:
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EBADF}
	case f.n.isDir():
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EISDIR}
	}
	if f.off >= len(f.n.data) {
		return 0, io.EOF
	}
	n := copy(p, f.n.data[f.off:])
	f.off += n
	return n, nil
}

// Stat describes the open file (the node it opened, whatever its name leads to now).
func (f *memFile) Stat() (fs.FileInfo, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.closed {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: fs.ErrClosed}
	}
	return infoOf(f.name, f.n), nil
}

// Sync is logged as a call ("sync"): a recording of Calls shows the order of syncs, renames
// and links.
func (f *memFile) Sync() error {
	if err := f.m.enter("sync", f.name, "", true); err != nil {
		return err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.closed {
		return &fs.PathError{Op: "sync", Path: f.name, Err: fs.ErrClosed}
	}
	return nil
}

func (f *memFile) Close() error {
	ferr := f.m.enter("close", f.name, "", false)
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	f.closed = true
	return ferr
}

// contains reports whether n is dir or lies in the tree below dir.
func contains(dir, n *node) bool {
	if dir == n {
		return true
	}
	for _, k := range dir.kids {
		if k.isDir() && contains(k, n) {
			return true
		}
	}
	return false
}

func (m *MemFS) Rename(oldname, newname string) error {
	if err := m.enter("rename", oldname, newname, true); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.rename(oldname, newname)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	return nil
}

func (m *MemFS) rename(oldname, newname string) error {
	// Like os.Root: both parent directories are resolved before the entries are looked at.
	ro, err := m.resolve(oldname, false)
	if err != nil {
		return err
	}
	rn, err := m.resolve(newname, false)
	if err != nil {
		return err
	}
	if ro.n == nil {
		return syscall.ENOENT
	}
	if ro.parent == nil {
		return syscall.EBUSY
	}
	if rn.parent == nil {
		if rn.n.isDir() {
			return syscall.EEXIST
		}
		return syscall.EINVAL
	}
	if !canModify(ro.parent) || !canModify(rn.parent) {
		return syscall.EACCES
	}
	switch {
	case rn.n != nil && rn.n.isDir() && (rn.n != ro.n || rn.leaf == ro.leaf):
		// os.Rename's own check, kept by os.Root: a directory is never replaced, and
		// renaming a directory onto itself fails too.
		return syscall.EEXIST
	case ro.n.isDir() && contains(ro.n, rn.parent):
		return syscall.EINVAL // a directory cannot move below itself
	case rn.n == ro.n:
		if ro.parent == rn.parent && ro.key != rn.leaf {
			// A case-only rename on a case-insensitive MemFS changes the spelling.
			delete(ro.parent.kids, ro.key)
			ro.parent.kids[rn.leaf] = ro.n
		}
		return nil
	case rn.n != nil && ro.n.isDir():
		return syscall.ENOTDIR
	}
	delete(ro.parent.kids, ro.key)
	if rn.n != nil {
		delete(rn.parent.kids, rn.key)
		rn.n.nlink--
	}
	rn.parent.kids[rn.leaf] = ro.n
	return nil
}

func (m *MemFS) Remove(name string) error {
	if err := m.enter("remove", name, "", true); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.resolve(name, false)
	switch {
	case err != nil:
	case r.n == nil:
		err = syscall.ENOENT
	case r.parent == nil:
		err = syscall.EBUSY
	case !canModify(r.parent):
		err = syscall.EACCES
	case r.n.isDir() && len(r.n.kids) > 0:
		err = syscall.ENOTEMPTY
	default:
		delete(r.parent.kids, r.key)
		r.n.nlink--
		return nil
	}
	return &fs.PathError{Op: "remove", Path: name, Err: err}
}

func (m *MemFS) Mkdir(name string, perm fs.FileMode) error {
	if err := m.enter("mkdir", name, "", true); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.resolve(name, false)
	switch {
	case err != nil:
	case r.n != nil:
		err = syscall.EEXIST
	case !canModify(r.parent):
		err = syscall.EACCES
	default:
		r.parent.kids[r.leaf] = &node{mode: fs.ModeDir | perm&fs.ModePerm&^m.umask, kids: map[string]*node{}, nlink: 1}
		return nil
	}
	return &fs.PathError{Op: "mkdir", Path: name, Err: err}
}

func (m *MemFS) Chmod(name string, mode fs.FileMode) error {
	if err := m.enter("chmod", name, "", true); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.resolve(name, true)
	if err == nil && r.n == nil {
		err = syscall.ENOENT
	}
	if err != nil {
		return &fs.PathError{Op: "chmod", Path: name, Err: err}
	}
	r.n.mode = r.n.mode.Type() | mode&ModeBits
	return nil
}

// mkdirAll creates name and its missing parents with exactly perm (no umask). Callers
// hold mu.
func (m *MemFS) mkdirAll(name string, perm fs.FileMode) error {
	if !filepath.IsAbs(name) {
		return ErrNotAbs
	}
	vol := filepath.VolumeName(name)
	m.volume(vol)
	prefix := vol + string(filepath.Separator)
	for _, e := range elems(name[len(vol):]) {
		prefix = filepath.Join(prefix, e)
		r, err := m.resolve(prefix, true)
		switch {
		case err != nil:
			return err
		case r.n == nil && r.parent != nil:
			r.parent.kids[r.leaf] = &node{mode: fs.ModeDir | perm&fs.ModePerm, kids: map[string]*node{}}
		case r.n != nil && !r.n.isDir():
			return syscall.ENOTDIR
		}
	}
	return nil
}

// create resolves name for a setup method, creating missing parent directories (0755).
func (m *MemFS) create(name string, follow bool) (resolved, error) {
	if !filepath.IsAbs(name) {
		return resolved{}, ErrNotAbs
	}
	m.volume(filepath.VolumeName(name))
	r, err := m.resolve(name, follow)
	if errors.Is(err, syscall.ENOENT) {
		if err := m.mkdirAll(filepath.Dir(name), 0o755); err != nil {
			return resolved{}, err
		}
		r, err = m.resolve(name, follow)
	}
	if err == nil && r.parent == nil && r.n == nil {
		err = syscall.EINVAL
	}
	return r, err
}

func (m *MemFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.create(name, true)
	switch {
	case err != nil:
	case r.n == nil:
		r.parent.kids[r.leaf] = &node{mode: perm & ModeBits, data: slices.Clone(data), nlink: 1}
		return nil
	case r.n.isDir():
		err = syscall.EISDIR
	default:
		r.n.data = slices.Clone(data)
		r.n.mode = perm & ModeBits
		return nil
	}
	return &fs.PathError{Op: "open", Path: name, Err: err}
}

func (m *MemFS) MkdirAll(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.mkdirAll(name, perm); err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return nil
}

func (m *MemFS) Symlink(target, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.create(name, false)
	switch {
	case err != nil:
	case r.n != nil:
		err = syscall.EEXIST
	default:
		r.parent.kids[r.leaf] = &node{mode: fs.ModeSymlink | 0o777, target: target, nlink: 1}
		return nil
	}
	return &os.LinkError{Op: "symlink", Old: target, New: name, Err: err}
}

// Tree returns the entries by absolute name.
func (m *MemFS) Tree() map[string]Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]Entry{}
	for vol, root := range m.vols {
		addTree(out, vol+string(filepath.Separator), root)
	}
	return out
}

func addTree(out map[string]Entry, dir string, n *node) {
	for name, k := range n.kids {
		p := filepath.Join(dir, name)
		switch {
		case k.isDir():
			out[p] = Entry{Dir: true, Mode: k.mode & ModeBits}
			addTree(out, p, k)
		case k.isLink():
			out[p] = Entry{Symlink: true, Mode: k.mode & ModeBits, Target: k.target}
		default:
			out[p] = Entry{Data: append([]byte{}, k.data...), Mode: k.mode & ModeBits}
		}
	}
}

// TreeUnder returns the entries below dir by slash-separated relative path.
func (m *MemFS) TreeUnder(dir string) map[string]Entry {
	return entriesUnder(m.Tree(), dir)
}

// entriesUnder keeps the entries of tree strictly below dir and re-keys them by slash-separated
// paths relative to dir.
func entriesUnder(tree map[string]Entry, dir string) map[string]Entry {
	dir = filepath.Clean(dir)
	out := map[string]Entry{}
	for p, e := range tree {
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out[filepath.ToSlash(rel)] = e
	}
	return out
}

func (m *MemFS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.resolve(name, true)
	if err == nil && r.n == nil {
		err = syscall.ENOENT
	}
	if err == nil && !r.n.mode.IsDir() {
		err = syscall.ENOTDIR
	}
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	names := make([]string, 0, len(r.n.kids))
	for k := range r.n.kids {
		names = append(names, k)
	}
	slices.Sort(names)
	out := make([]fs.DirEntry, len(names))
	for i, k := range names {
		out[i] = fs.FileInfoToDirEntry(infoOf(filepath.Join(name, k), r.n.kids[k]))
	}
	return out, nil
}

func (m *MemFS) Link(oldname, newname string) error {
	if err := m.enter("link", oldname, newname, true); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err := func() error {
		ro, err := m.resolve(oldname, false)
		if err != nil {
			return err
		}
		rn, err := m.resolve(newname, false)
		if err != nil {
			return err
		}
		switch {
		case ro.n == nil:
			return syscall.ENOENT
		case ro.n.isDir():
			return syscall.EPERM
		case rn.n != nil:
			return syscall.EEXIST
		case rn.parent == nil:
			return syscall.EINVAL
		case !canModify(rn.parent):
			return syscall.EACCES
		}
		rn.parent.kids[rn.leaf] = ro.n
		ro.n.nlink = max(ro.n.nlink, 1) + 1
		return nil
	}()
	if err != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: err}
	}
	return nil
}

func (m *MemFS) TryLock(name string) (func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.resolve(name, true)
	if err == nil && r.n == nil {
		err = syscall.ENOENT
	}
	if err != nil {
		return nil, &fs.PathError{Op: "lock", Path: name, Err: err}
	}
	if r.n.locked {
		return nil, &fs.PathError{Op: "lock", Path: name, Err: ErrLocked}
	}
	n := r.n
	n.locked = true
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			n.locked = false
			m.mu.Unlock()
		})
	}, nil
}
