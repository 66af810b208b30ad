package pathguard_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/pathguard"
)

// fakeNode is one entry of a fakeFS: a directory, a regular file, a symlink (link != ""),
// or a component whose Lstat fails with err. The reparse-point seam: a Windows junction
// (junction != "") is reported as Go 1.23+ reports one, ModeIrregular without ModeDir,
// with Readlink returning its target; a reparse point of another kind (reparse, a
// cloud-file placeholder directory, say) is ModeIrregular|ModeDir and Readlink fails with
// ENOENT, as os.Readlink does for it; readlinkErr makes Readlink of a reparse point fail.
type fakeNode struct {
	dir         bool
	link        string
	err         error
	junction    string
	reparse     bool
	readlinkErr error
}

// fakeFS is an in-memory Resolver and stat function keyed by exact path strings in one
// flavour, so Windows-flavour cases run on any OS.
type fakeFS struct {
	flavor pathguard.Flavor
	fold   bool
	nodes  map[string]fakeNode
	spell  map[string]string // key -> the path as created (its on-disk spelling)
}

var _ pathguard.SpellingResolver = (*fakeFS)(nil)

func (f *fakeFS) key(name string) string {
	if f.fold {
		return strings.ToLower(name)
	}
	return name
}

func newFakeFS(fl pathguard.Flavor, fold bool, nodes map[string]fakeNode) *fakeFS {
	m := make(map[string]fakeNode, len(nodes))
	f := &fakeFS{flavor: fl, fold: fold, nodes: m, spell: map[string]string{}}
	for k, v := range nodes {
		m[f.key(k)] = v
		f.spell[f.key(k)] = k
	}
	return f
}

func (f *fakeFS) Lstat(name string) (fs.FileInfo, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: syscall.EINVAL}
	}
	if n, ok := f.nodes[f.key(name)]; ok {
		if n.err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: n.err}
		}
		return fakeInfo{name: name, node: n}, nil
	}
	// Under a regular file: ENOTDIR, like Unix.
	sep := string(f.flavor.Sep())
	for p := name; ; {
		i := strings.LastIndex(p, sep)
		if i <= 0 || i == len(p)-1 {
			break
		}
		p = p[:i]
		if n, ok := f.nodes[f.key(p)]; ok && !n.dir && n.link == "" && n.err == nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: syscall.ENOTDIR}
		}
	}
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
}

func (f *fakeFS) Readlink(name string) (string, error) {
	n, ok := f.nodes[f.key(name)]
	switch {
	case ok && n.readlinkErr != nil:
		return "", &fs.PathError{Op: "readlink", Path: name, Err: n.readlinkErr}
	case ok && n.junction != "":
		return n.junction, nil
	case ok && n.reparse:
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.ENOENT}
	}
	if !ok || n.link == "" {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	return n.link, nil
}

// Spelling reports the name an entry was created with (a folding fake matches any case).
func (f *fakeFS) Spelling(dir, name string) (string, error) {
	p := dir + name
	if sep := string(f.flavor.Sep()); !strings.HasSuffix(dir, sep) {
		p = dir + sep + name
	}
	orig, ok := f.spell[f.key(p)]
	if !ok {
		return "", &fs.PathError{Op: "spelling", Path: p, Err: fs.ErrNotExist}
	}
	return orig[strings.LastIndexAny(orig, `/\`)+1:], nil
}

type fakeInfo struct {
	name string
	node fakeNode
}

func (i fakeInfo) Name() string { return i.name }
func (i fakeInfo) Size() int64  { return 0 }
func (i fakeInfo) Mode() fs.FileMode {
	switch {
	case i.node.link != "":
		return fs.ModeSymlink | 0o777
	case i.node.junction != "" || i.node.readlinkErr != nil:
		return fs.ModeIrregular | 0o777
	case i.node.reparse:
		return fs.ModeIrregular | fs.ModeDir | 0o777
	case i.node.dir:
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.node.dir }
func (i fakeInfo) Sys() any           { return nil }

// realTempDir returns a temp directory with every symlink in its path resolved, so tests
// compare real paths on systems where /tmp is itself a link (and, on Windows, with long
// names for 8.3 ones).
func realTempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(testenv.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// posixOnDisk skips t on Windows: it runs the POSIX flavour over the real file system,
// which only means something on Unix-like systems. The Windows flavour runs the same kinds
// of cases against fake resolvers (TestContainmentAttackHeldWindows, TestContainmentFoldFake,
// TestContainmentJunction) and over NTFS in TestContainmentOSWindows.
func posixOnDisk(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("skipped on windows: the POSIX flavour over the real file system only means something on Unix-like systems; the Windows flavour has its own cases")
	}
}

// mkTree creates files ("f"), directories (ending in "/") and symlinks ("name -> target")
// under root.
func mkTree(t testing.TB, root string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		var err error
		switch {
		case strings.Contains(e, " -> "):
			testenv.Symlinks(t)
			name, target, _ := strings.Cut(e, " -> ")
			p := filepath.Join(root, name)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.Symlink(target, p)
			}
		case strings.HasSuffix(e, "/"):
			err = os.MkdirAll(filepath.Join(root, e), 0o755)
		default:
			p := filepath.Join(root, e)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.WriteFile(p, []byte("x\n"), 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// kindOf returns the Kind of err, or 0 for nil; it fails the test for a foreign error.
func kindOf(t testing.TB, err error) pathguard.Kind {
	t.Helper()
	if err == nil {
		return 0
	}
	var pe *pathguard.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *pathguard.Error", err, err)
	}
	return pe.Kind
}

var errNotExist = &fs.PathError{Op: "stat", Path: "x", Err: fs.ErrNotExist}
