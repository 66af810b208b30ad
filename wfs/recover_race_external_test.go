package wfs_test

import (
	"io/fs"
	"path/filepath"
	"testing"

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
