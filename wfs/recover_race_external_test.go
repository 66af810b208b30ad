package wfs_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/wfs"
)

// vanishingJournalDir is a MemFS whose journal directory is removed, as the writer that
// finishes last removes it when empty, right before the k-th look at it (Lstat or ReadDir).
type vanishingJournalDir struct {
	*wfs.MemFS
	dir     string
	k, seen int
}

func (v *vanishingJournalDir) look(name string) {
	if name != v.dir {
		return
	}
	if v.seen++; v.seen == v.k {
		_ = v.MemFS.Remove(v.dir)
	}
}

func (v *vanishingJournalDir) Lstat(name string) (fs.FileInfo, error) {
	v.look(name)
	return v.MemFS.Lstat(name)
}

func (v *vanishingJournalDir) ReadDir(name string) ([]fs.DirEntry, error) {
	v.look(name)
	return v.MemFS.ReadDir(name)
}

// TestRecoverJournalDirRemovedMeanwhile: another writer's commit ends, and removes the empty
// journal directory, while a recovery looks at it. Nothing was pending, so the recovery
// reports nothing and no error, whichever of its looks the directory vanished before (a
// recovery that failed here refused patch, astsearch and format writes under load:
// "lstat …/.hkwfs: no such file or directory").
func TestRecoverJournalDirRemovedMeanwhile(t *testing.T) {
	for k := 1; ; k++ {
		m := txTree(t, map[string]string{"a.txt": "a\n"})
		dir := filepath.Join(memRoot(), wfs.JournalDir)
		if err := m.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		v := &vanishingJournalDir{MemFS: m, dir: dir, k: k}
		rec, err := wfs.Recover(ctx, v, memRoot())
		if err != nil || len(rec) != 0 {
			t.Errorf("journal directory removed before look %d: Recover = %v, %v; want nothing, no error", k, rec, err)
		}
		// The same race on the way into a commit, which recovers first.
		m = txTree(t, map[string]string{"a.txt": "a\n"})
		if err := m.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		v2 := &vanishingJournalDir{MemFS: m, dir: dir, k: k}
		tx, err := wfs.Begin(v2, memRoot())
		if err != nil {
			t.Fatal(err)
		}
		tx.Write(read(t, m, "a.txt"), []byte("A\n"))
		if _, err := tx.Commit(ctx); err != nil {
			t.Errorf("journal directory removed before look %d: Commit = %v", k, err)
		}
		if v.seen < k {
			t.Logf("a recovery looks at the journal directory %d times; each look checked", v.seen)
			return
		}
	}
}

// journalDirRemover is a MemFS on which, the first times a commit opens a new journal, the
// journal directory is removed right before the open: as another writer's recovery or
// finished commit removes it, empty, between this writer's Mkdir and its OpenFile.
type journalDirRemover struct {
	*wfs.MemFS
	dir   string
	times int // -1: every time
	done  int
}

func (r *journalDirRemover) OpenFile(name string, flag int, perm fs.FileMode) (wfs.File, error) {
	if filepath.Dir(name) == r.dir && strings.HasSuffix(name, ".new") && (r.times < 0 || r.done < r.times) {
		r.done++
		_ = r.MemFS.Remove(r.dir)
	}
	return r.MemFS.OpenFile(name, flag, perm)
}

// TestTxJournalDirRemovedBeforeOpen: the journal directory is removed under a writer, between
// its Mkdir and its open of the journal, again and again (six writer processes on one tree
// did this 8 times in a row to 5 of 5,004 commits, which failed with "cannot create a
// journal … no such file or directory"). The writer tries again, pausing as for a lock
// (1 ms doubling to 50 ms), within the lock wait: 30 removals in a row are outlasted, and
// removals that never stop end in ErrBusy ("being written by another writer") with the tree
// untouched.
func TestTxJournalDirRemovedBeforeOpen(t *testing.T) {
	dir := filepath.Join(memRoot(), wfs.JournalDir)
	for _, c := range []struct {
		name  string
		times int
		multi bool
	}{
		{"one_file_8_times", 8, false}, {"one_file_30_times", 30, false},
		{"two_files_8_times", 8, true}, {"two_files_30_times", 30, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := txTree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			r := &journalDirRemover{MemFS: m, dir: dir, times: c.times}
			tx, err := wfs.Begin(r, memRoot())
			if err != nil {
				t.Fatal(err)
			}
			tx.Write(read(t, m, "a.txt"), []byte("A\n"))
			if c.multi {
				tx.Write(read(t, m, "b.txt"), []byte("B\n"))
			}
			if _, err := tx.Commit(ctx); err != nil {
				t.Fatalf("Commit after %d removals: %v", r.done, err)
			}
			want := map[string]string{"a.txt": "A\n", "b.txt": "b\n"}
			if c.multi {
				want["b.txt"] = "B\n"
			}
			if diff := cmp.Diff(want, files(m)); diff != "" {
				t.Errorf("tree (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("never_stops", func(t *testing.T) {
		m := txTree(t, map[string]string{"a.txt": "a\n"})
		r := &journalDirRemover{MemFS: m, dir: dir, times: -1}
		tx, err := wfs.Begin(r, memRoot(), wfs.WithLockWait(30*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		tx.Write(read(t, m, "a.txt"), []byte("A\n"))
		_, err = tx.Commit(ctx)
		if !errors.Is(err, wfs.ErrBusy) || !strings.Contains(err.Error(), "being written by another writer") {
			t.Fatalf("Commit = %v, want ErrBusy", err)
		}
		if diff := cmp.Diff(map[string]string{"a.txt": "a\n"}, files(m)); diff != "" {
			t.Errorf("tree (-want +got):\n%s", diff)
		}
	})
	t.Run("scratch", func(t *testing.T) {
		m := txTree(t, map[string]string{"a.txt": "a\n"})
		r := &journalDirRemover{MemFS: m, dir: dir, times: 20}
		tx, err := wfs.Begin(r, memRoot())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Scratch(rp("a.txt"), ".txt", []byte("copy")); err != nil {
			t.Fatalf("Scratch after %d removals: %v", r.done, err)
		}
		if err := tx.Abort(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{"a.txt": "a\n"}, files(m)); diff != "" {
			t.Errorf("tree (-want +got):\n%s", diff)
		}
	})
}
