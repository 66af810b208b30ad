package wfs_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/wfs"
)

// vanishingJournalDir is a MemFS on which the journal directory is removed, as the last
// journal's writer removes it when it finishes, between a recovery's first look at it and
// its check of the directory's mode.
type vanishingJournalDir struct {
	*wfs.MemFS
	dir    string
	lstats int
}

func (v *vanishingJournalDir) Lstat(name string) (fs.FileInfo, error) {
	if name == v.dir {
		v.lstats++
		if v.lstats == 2 {
			if err := v.MemFS.Remove(name); err != nil {
				return nil, err
			}
		}
	}
	return v.MemFS.Lstat(name)
}

// TestRecoverJournalDirRemovedMeanwhile: a journal directory that another writer removes
// while a recovery looks at it is nothing to recover (it used to fail the recovery, and so
// the commit, with "lstat …/.hkwfs: file not found").
func TestRecoverJournalDirRemovedMeanwhile(t *testing.T) {
	m := txTree(t, map[string]string{"a.txt": "a\n"})
	dir := filepath.Join(memRoot(), wfs.JournalDir)
	if err := m.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	v := &vanishingJournalDir{MemFS: m, dir: dir}
	recs, err := wfs.Recover(context.Background(), v, memRoot())
	if err != nil || len(recs) != 0 {
		t.Fatalf("Recover = %v, %v; want nothing recovered and no error", recs, err)
	}
	if v.lstats < 2 {
		t.Fatalf("the journal directory was looked at %d times; the test needs the second look", v.lstats)
	}
}
