package wfs_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/wfs"
)

// TestMemFSModelsOS is a state machine: a random sequence of operations runs on an OSFS over a
// fresh temporary directory and on a MemFS holding a directory of the same absolute name, and
// every observable result (error text included, so operation names, paths and syscall errors
// must agree) and the whole tree after every step must be the same. MemFS is the model of the
// real OS.
//
// Documented differences the generator avoids: symbolic links whose target leaves the base
// or is absolute (OSFS refuses them, MemFS follows them), chains of more than 8 links (os.Root
// stops at 8, MemFS at 40), and permission modes that remove the owner's access (a test running
// as root ignores them, MemFS enforces them). Created files and directories use modes 0600 and
// 0700, which no usual umask changes.
func TestMemFSModelsOS(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the model follows POSIX semantics; symbolic links need privileges on Windows")
	}
	base := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp(base, "sm")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		osfs, err := wfs.NewOSFS(dir)
		if err != nil {
			rt.Fatal(err)
		}
		defer osfs.Close()
		mem := wfs.NewMemFS()
		if err := mem.MkdirAll(dir, 0o700); err != nil {
			rt.Fatal(err)
		}
		sm := &machine{dir: dir, os: osfs, mem: mem}
		defer sm.closeAll()
		rt.Repeat(map[string]func(*rapid.T){
			"":        sm.check,
			"open":    sm.open,
			"write":   sm.write,
			"sync":    sm.sync,
			"close":   sm.close,
			"rename":  sm.rename,
			"remove":  sm.remove,
			"mkdir":   sm.mkdir,
			"chmod":   sm.chmod,
			"symlink": sm.symlink,
			"observe": sm.observe,
		})
	})
}

type handle struct{ os, mem wfs.File }

type machine struct {
	dir     string
	os      *wfs.OSFS
	mem     *wfs.MemFS
	handles []handle
}

var (
	smNames   = []string{"a", "b", "d", "d/a", "d/b", "d/e", "e", "e/x", "l", "d/l"}
	smTargets = []string{"a", "b", "d", "d/a", "e", ".", "missing"}
	smFlags   = []int{
		os.O_CREATE | os.O_EXCL | os.O_WRONLY,
		os.O_CREATE | os.O_WRONLY | os.O_TRUNC,
		os.O_CREATE | os.O_WRONLY | os.O_APPEND,
		os.O_WRONLY,
		os.O_RDWR,
		os.O_RDONLY,
	}
	smData = []string{"", "x", "hello\n", "a\r\nb", "\xef\xbb\xbfbom\n"}
)

func (sm *machine) name(t *rapid.T, label string) string {
	return filepath.Join(sm.dir, filepath.FromSlash(rapid.SampledFrom(smNames).Draw(t, label)))
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func (sm *machine) same(t *rapid.T, what string, osErr, memErr error) {
	if errText(osErr) != errText(memErr) {
		t.Fatalf("%s: OSFS error %q, MemFS error %q", what, errText(osErr), errText(memErr))
	}
}

func (sm *machine) closeAll() {
	for _, h := range sm.handles {
		h.os.Close()
	}
}

func (sm *machine) check(t *rapid.T) {
	got, err := wfs.ReadTree(sm.dir)
	if err != nil {
		t.Fatalf("ReadTree: %v", err)
	}
	if diff := cmp.Diff(got, sm.mem.TreeUnder(sm.dir)); diff != "" {
		t.Fatalf("trees differ (-OSFS +MemFS):\n%s", diff)
	}
}

func (sm *machine) open(t *rapid.T) {
	if len(sm.handles) >= 4 {
		t.Skip("enough open files")
	}
	name := sm.name(t, "name")
	flag := rapid.SampledFrom(smFlags).Draw(t, "flag")
	fo, errO := sm.os.OpenFile(name, flag, 0o600)
	fm, errM := sm.mem.OpenFile(name, flag, 0o600)
	sm.same(t, fmt.Sprintf("OpenFile(%s, %#x)", name, flag), errO, errM)
	if errO == nil {
		sm.handles = append(sm.handles, handle{fo, fm})
	}
}

func (sm *machine) pick(t *rapid.T) (int, handle) {
	if len(sm.handles) == 0 {
		t.Skip("no open file")
	}
	i := rapid.IntRange(0, len(sm.handles)-1).Draw(t, "handle")
	return i, sm.handles[i]
}

func (sm *machine) write(t *rapid.T) {
	_, h := sm.pick(t)
	data := []byte(rapid.SampledFrom(smData).Draw(t, "data"))
	nO, errO := h.os.Write(data)
	nM, errM := h.mem.Write(data)
	sm.same(t, "Write", errO, errM)
	if nO != nM {
		t.Fatalf("Write: OSFS wrote %d bytes, MemFS %d", nO, nM)
	}
}

func (sm *machine) sync(t *rapid.T) {
	_, h := sm.pick(t)
	sm.same(t, "Sync", h.os.Sync(), h.mem.Sync())
}

func (sm *machine) close(t *rapid.T) {
	i, h := sm.pick(t)
	sm.same(t, "Close", h.os.Close(), h.mem.Close())
	sm.handles = append(sm.handles[:i], sm.handles[i+1:]...)
}

func (sm *machine) rename(t *rapid.T) {
	from, to := sm.name(t, "from"), sm.name(t, "to")
	sm.same(t, "Rename", sm.os.Rename(from, to), sm.mem.Rename(from, to))
}

func (sm *machine) remove(t *rapid.T) {
	name := sm.name(t, "name")
	sm.same(t, "Remove", sm.os.Remove(name), sm.mem.Remove(name))
}

func (sm *machine) mkdir(t *rapid.T) {
	name := sm.name(t, "name")
	sm.same(t, "Mkdir", sm.os.Mkdir(name, 0o700), sm.mem.Mkdir(name, 0o700))
}

func (sm *machine) chmod(t *rapid.T) {
	name := sm.name(t, "name")
	mode := rapid.SampledFrom([]fs.FileMode{0o600, 0o640, 0o644, 0o700, 0o750, 0o755}).Draw(t, "mode")
	if fi, err := sm.mem.Stat(name); err == nil && fi.IsDir() {
		mode |= 0o700 // keep the owner's access (see the test's doc comment)
	}
	sm.same(t, "Chmod", sm.os.Chmod(name, mode), sm.mem.Chmod(name, mode))
}

func (sm *machine) symlink(t *rapid.T) {
	name := sm.name(t, "name")
	target := rapid.SampledFrom(smTargets).Draw(t, "target")
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("os.Symlink: %v", err) // setup only: the FS interface has no Symlink
	}
	if err := sm.mem.Symlink(target, name); err != nil {
		t.Fatalf("MemFS.Symlink(%s, %s) failed where os.Symlink succeeded: %v", target, name, err)
	}
}

// info renders what the checks compare of a FileInfo (a directory's size is OS-specific).
func info(fi fs.FileInfo) string {
	if fi == nil {
		return "<nil>"
	}
	if fi.IsDir() {
		return fmt.Sprintf("%s %v", fi.Name(), fi.Mode())
	}
	return fmt.Sprintf("%s %v %d", fi.Name(), fi.Mode(), fi.Size())
}

func (sm *machine) observe(t *rapid.T) {
	name := sm.name(t, "name")
	fo, errO := sm.os.Stat(name)
	fm, errM := sm.mem.Stat(name)
	sm.same(t, "Stat", errO, errM)
	if info(fo) != info(fm) {
		t.Fatalf("Stat(%s): OSFS %s, MemFS %s", name, info(fo), info(fm))
	}
	fo, errO = sm.os.Lstat(name)
	fm, errM = sm.mem.Lstat(name)
	sm.same(t, "Lstat", errO, errM)
	if info(fo) != info(fm) {
		t.Fatalf("Lstat(%s): OSFS %s, MemFS %s", name, info(fo), info(fm))
	}
	bo, errO := sm.os.ReadFile(name)
	bm, errM := sm.mem.ReadFile(name)
	sm.same(t, "ReadFile", errO, errM)
	if string(bo) != string(bm) {
		t.Fatalf("ReadFile(%s): OSFS %q, MemFS %q", name, bo, bm)
	}
	lo, errO := sm.os.Readlink(name)
	lm, errM := sm.mem.Readlink(name)
	sm.same(t, "Readlink", errO, errM)
	if lo != lm {
		t.Fatalf("Readlink(%s): OSFS %q, MemFS %q", name, lo, lm)
	}
}
