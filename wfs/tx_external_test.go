package wfs_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/wfs"
	"github.com/harnesskit/harnesskit/wfs/wfstest"
)

var ctx = context.Background()

// txTree is a MemFS holding files (relative name → content) under memRoot.
func txTree(t *testing.T, files map[string]string) *wfs.MemFS {
	t.Helper()
	m := wfs.NewMemFS()
	if err := m.MkdirAll(memRoot(), 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range files {
		if err := m.WriteFile(filepath.Join(memRoot(), filepath.FromSlash(k)), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func rp(rel string) string { return filepath.Join(memRoot(), filepath.FromSlash(rel)) }

func read(t *testing.T, fsys wfs.FS, rel string) wfs.Snapshot {
	t.Helper()
	s, err := wfs.Read(ctx, fsys, rp(rel), wfs.DefaultMaxFileSize)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// files flattens a tree to name → content ("<dir>" for a directory, "-> target" for a link).
func files(m *wfs.MemFS) map[string]string {
	out := map[string]string{}
	for k, e := range m.TreeUnder(memRoot()) {
		switch {
		case e.Dir:
			out[k] = "<dir>"
		case e.Symlink:
			out[k] = "-> " + e.Target
		default:
			out[k] = string(e.Data)
		}
	}
	return out
}

// threeFileCommit is the multi-file commit the crash tests use: an update, a new file in a
// new directory, and a delete.
func threeFileCommit(t *testing.T, m wfs.FS, opts ...wfs.Option) (*wfs.Committed, error) {
	t.Helper()
	a, c := read(t, m, "a.txt"), read(t, m, "c.txt")
	tx, err := wfs.Begin(m, memRoot(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	tx.Write(a, []byte("A2\n"))
	tx.Write(wfs.Absent(rp("new/dir/b.txt")), []byte("B\n"))
	tx.Delete(c)
	return tx.Commit(ctx)
}

var (
	beforeTree = map[string]string{"a.txt": "a\n", "c.txt": "c\n", "keep.txt": "k\n"}
	afterTree  = map[string]string{"a.txt": "A2\n", "new": "<dir>", "new/dir": "<dir>", "new/dir/b.txt": "B\n", "keep.txt": "k\n"}
)

func TestTxCommitMultiFile(t *testing.T) {
	m := txTree(t, beforeTree)
	_ = m.Chmod(rp("a.txt"), fs.ModeSetuid|0o751)
	res, err := threeFileCommit(t, m)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(afterTree, files(m)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	if fi, _ := m.Lstat(rp("a.txt")); fi.Mode()&wfs.ModeBits != fs.ModeSetuid|0o751 {
		t.Errorf("a.txt mode = %v, want the whole mode kept (setuid 0751)", fi.Mode())
	}
	if len(res.After) != 3 || res.After[0].Type != wfs.TypeFile || string(res.After[0].Data) != "A2\n" || res.After[2].Type != wfs.TypeAbsent {
		t.Errorf("After = %+v", res.After)
	}
}

// TestTxCrashAtEveryStep stops a three-file commit after each of its calls in turn, and each
// recovery after each of its calls (wfstest.CrashAtEveryStep, which also runs it without
// hard links): the tree is always the before or the after tree, with nothing left behind.
func TestTxCrashAtEveryStep(t *testing.T) {
	n := wfstest.CrashAtEveryStep(t, wfstest.CrashCase{
		Root:   memRoot(),
		Tree:   func(t *testing.T) *wfs.MemFS { return txTree(t, beforeTree) },
		Commit: func(t *testing.T, fsys wfs.FS) error { _, err := threeFileCommit(t, fsys); return err },
	})
	t.Logf("%d stop points", n)
}

// noLinks is a MemFS whose Link fails as on a file system without hard links (FAT, exFAT).
type noLinks struct{ *wfs.MemFS }

func (noLinks) Link(oldname, newname string) error {
	return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: wfstest.ErrNoHardLinks}
}

// noLinkFS is a MemFS without the LinkFS extension at all.
type noLinkFS struct{ fsOnly }

type fsOnly interface {
	wfs.FS
	wfs.ReadDirFS
	wfs.LockFS
}

func TestTxRefusals(t *testing.T) {
	t.Run("changed_since_read", func(t *testing.T) {
		m := txTree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
		a, b := read(t, m, "a.txt"), read(t, m, "b.txt")
		_ = m.WriteFile(rp("b.txt"), []byte("B\n"), 0o644) // same size, other content
		tx, _ := wfs.Begin(m, memRoot())
		tx.Write(a, []byte("x"))
		tx.Write(b, []byte("y"))
		_, err := tx.Commit(ctx)
		if !errors.Is(err, wfs.ErrChanged) {
			t.Fatalf("err = %v, want ErrChanged", err)
		}
		if diff := cmp.Diff(map[string]string{"a.txt": "a\n", "b.txt": "B\n"}, files(m)); diff != "" {
			t.Errorf("tree (-want +got):\n%s", diff)
		}
	})
	t.Run("busy", func(t *testing.T) {
		m := txTree(t, map[string]string{"a.txt": "a\n"})
		unlock, err := m.TryLock(memRoot())
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		tx, _ := wfs.Begin(m, memRoot(), wfs.WithLockWait(5*time.Millisecond))
		tx.Write(read(t, m, "a.txt"), []byte("x"))
		_, err = tx.Commit(ctx)
		if !errors.Is(err, wfs.ErrBusy) || !strings.Contains(err.Error(), "being written by another writer") {
			t.Fatalf("err = %v, want ErrBusy", err)
		}
		if got := files(m)["a.txt"]; got != "a\n" {
			t.Errorf("a.txt = %q", got)
		}
	})
	t.Run("read_only", func(t *testing.T) {
		m := txTree(t, map[string]string{"a.txt": "a\n"})
		_ = m.Chmod(rp("a.txt"), 0o444)
		tx, _ := wfs.Begin(m, memRoot())
		tx.Write(read(t, m, "a.txt"), []byte("x"))
		_, err := tx.Commit(ctx)
		if !errors.Is(err, wfs.ErrReadOnly) || !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("err = %v, want ErrReadOnly", err)
		}
	})
	t.Run("too_large", func(t *testing.T) {
		m := txTree(t, map[string]string{"a.txt": "0123456789"})
		s, err := wfs.Read(ctx, m, rp("a.txt"), 5)
		if err != nil || !s.Large || s.Data != nil {
			t.Fatalf("Read over the limit = %+v, %v; want Large, no data", s, err)
		}
		tx, _ := wfs.Begin(m, memRoot(), wfs.WithMaxFileSize(5))
		tx.Write(s, []byte("x"))
		_, err = tx.Commit(ctx)
		var we *wfs.Error
		if !errors.As(err, &we) || !errors.Is(err, wfs.ErrTooLarge) || we.Limit != 5 || we.Size != 10 {
			t.Fatalf("err = %v, want ErrTooLarge naming limit 5 and size 10", err)
		}
		tx, _ = wfs.Begin(m, memRoot(), wfs.WithMaxFileSize(5))
		tx.Delete(s)
		if _, err := tx.Commit(ctx); err != nil {
			t.Fatalf("Delete of a large file: %v", err)
		}
		if len(files(m)) != 0 {
			t.Errorf("tree = %v, want empty", files(m))
		}
	})
	t.Run("create_never_replaces", func(t *testing.T) {
		m := txTree(t, nil)
		tx, _ := wfs.Begin(m, memRoot())
		tx.Create(rp("f.bin"), []byte("mine"), 0o600)
		_ = m.WriteFile(rp("f.bin"), []byte("theirs"), 0o644)
		_, err := tx.Commit(ctx)
		if !errors.Is(err, fs.ErrExist) {
			t.Fatalf("err = %v, want fs.ErrExist", err)
		}
		if got := files(m); !cmp.Equal(got, map[string]string{"f.bin": "theirs"}) {
			t.Errorf("tree = %v", got)
		}
	})
}

// TestTxFailureAtEveryStep fails one call of the commit at a time (the process lives on):
// the commit either succeeds or reports an error, and without any recovery the tree is the
// before tree after an error (rolled back) and the after tree after a success; no
// temporaries, no journal.
func TestTxFailureAtEveryStep(t *testing.T) {
	t.Run("links", func(t *testing.T) { failureAtEveryStep(t, func(m *wfs.MemFS) wfs.FS { return m }) })
	t.Run("no_links", func(t *testing.T) { failureAtEveryStep(t, func(m *wfs.MemFS) wfs.FS { return noLinks{m} }) })
	t.Run("no_link_support", func(t *testing.T) { failureAtEveryStep(t, func(m *wfs.MemFS) wfs.FS { return noLinkFS{m} }) })
}

func failureAtEveryStep(t *testing.T, wrap func(*wfs.MemFS) wfs.FS) {
	m := txTree(t, beforeTree)
	var calls atomic.Int64
	m.InjectFault(func(op, name string) bool { calls.Add(1); return false }, syscall.EIO)
	if _, err := threeFileCommit(t, wrap(m)); err != nil {
		t.Fatal(err)
	}
	steps := int(calls.Load())
	for k := 1; k <= steps; k++ {
		m := txTree(t, beforeTree)
		var n atomic.Int64
		m.InjectFault(func(op, name string) bool { return n.Add(1) == int64(k) }, syscall.EIO)
		_, err := threeFileCommit(t, wrap(m))
		got := files(m)
		want := afterTree
		if err != nil {
			want = beforeTree
			var we *wfs.Error
			if !errors.As(err, &we) || len(we.NotRestored) > 0 {
				t.Errorf("failure at call %d: err = %v", k, err)
			}
		}
		if diff := cmp.Diff(want, visible(got)); diff != "" {
			t.Errorf("failure at call %d (err %v): tree (-want +got):\n%s", k, err, diff)
		}
		// A cleanup step that failed leaves the journal for a recovery to finish.
		if _, err := wfs.Recover(ctx, wrap(m), memRoot()); err != nil {
			t.Fatalf("failure at call %d: Recover: %v", k, err)
		}
		if diff := cmp.Diff(want, files(m)); diff != "" {
			t.Errorf("failure at call %d, recovered: tree (-want +got):\n%s", k, diff)
		}
	}
}

// visible drops the hidden names a commit uses (temporaries, asides, the journal).
func visible(tree map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tree {
		if !strings.HasPrefix(filepath.Base(k), ".") && !strings.HasPrefix(k, wfs.JournalDir) {
			out[k] = v
		}
	}
	return out
}

// TestTxCrashNonUTF8Names: names that are not UTF-8 (bytes, on most systems) survive the
// journal, so a crash at every step still recovers to before or after.
func TestTxCrashNonUTF8Names(t *testing.T) {
	bad := "b\xffad\xfe.txt"
	before := map[string]string{bad: "x\n", "dir\xc3/keep": "k\n"}
	n := wfstest.CrashAtEveryStep(t, wfstest.CrashCase{
		Root: memRoot(),
		Tree: func(t *testing.T) *wfs.MemFS { return txTree(t, before) },
		Commit: func(t *testing.T, fsys wfs.FS) error {
			s := read(t, fsys, bad)
			tx, _ := wfs.Begin(fsys, memRoot())
			tx.Write(s, []byte("y\n"))
			tx.Create(rp("dir\xc3/new\xff"), []byte("n\n"), 0o644)
			_, err := tx.Commit(ctx)
			return err
		},
	})
	t.Logf("%d stop points", n)
}
