package wfs_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/wfs"
)

// TestRecoverKeepsAnEditMadeAfterTheCrash: a writer is killed at each step in turn of a
// commit that writes a.txt, which has a second hard link (so it is written in place), and
// c.txt, which has one (so it is replaced); the user then edits both. Recovery never writes
// over those edits: each is kept and, where the journal would have switched the file,
// reported as a conflict; and nothing is left beside the files (no temporary, no kept copy).
func TestRecoverKeepsAnEditMadeAfterTheCrash(t *testing.T) {
	const edit = "the user's edit, made after the crash, longer than either state\n"
	tree := func() *wfs.MemFS {
		m := txTree(t, map[string]string{"a.txt": "a1\n", "c.txt": "c1\n"})
		if err := m.Link(rp("a.txt"), rp("a-link.txt")); err != nil {
			t.Fatal(err)
		}
		return m
	}
	commit := func(m *wfs.MemFS) error {
		a, c := read(t, m, "a.txt"), read(t, m, "c.txt")
		tx, err := wfs.Begin(m, memRoot())
		if err != nil {
			t.Fatal(err)
		}
		tx.Write(a, []byte("a2\n"))
		tx.Write(c, []byte("c2\n"))
		_, err = tx.Commit(ctx)
		return err
	}
	m := tree()
	var calls atomic.Int64
	m.InjectFault(func(string, string) bool { calls.Add(1); return false }, syscall.EIO)
	if err := commit(m); err != nil {
		t.Fatal(err)
	}
	conflicts := map[string]int{}
	pending := 0
	for k := int64(0); k < calls.Load(); k++ {
		m := tree()
		var n atomic.Int64
		m.InjectFault(func(string, string) bool { return n.Add(1) > k }, syscall.EIO)
		_ = commit(m)
		m.ClearFaults()
		if len(m.TreeUnder(rp(wfs.JournalDir))) == 0 {
			continue // the commit finished or undid itself before the stop: nothing to recover
		}
		pending++
		// The user edits a.txt through its other name (in place, as an editor that keeps
		// hard links does) and replaces c.txt.
		if err := m.WriteFile(rp("a-link.txt"), []byte(edit), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(rp("c.txt"), []byte(edit), 0o644); err != nil {
			t.Fatal(err)
		}
		recs, err := wfs.Recover(ctx, m, memRoot())
		if err != nil {
			t.Fatalf("stopped after call %d: Recover: %v", k, err)
		}
		got := files(m)
		for _, name := range []string{"a.txt", "a-link.txt", "c.txt"} {
			if got[name] != edit {
				t.Errorf("stopped after call %d: %s = %q; the user's edit was overwritten (recoveries %v)", k, name, got[name], recs)
			}
		}
		for name := range got {
			if wfs.IsLeftover(name) || strings.Contains(name, ".hk-") || strings.HasPrefix(name, wfs.JournalDir) {
				t.Errorf("stopped after call %d: %s left behind (recoveries %v)", k, name, recs)
			}
		}
		for _, r := range recs {
			for _, c := range r.Conflicts {
				conflicts[c]++
			}
			if r.Outcome == wfs.Refused {
				t.Errorf("stopped after call %d: own journal refused: %v", k, r)
			}
		}
	}
	if pending == 0 || conflicts[rp("a.txt")] == 0 || conflicts[rp("c.txt")] == 0 {
		t.Fatalf("%d stops left a journal; conflicts reported %v; want both files reported at some stop", pending, conflicts)
	}
	t.Logf("%d stops, %d left a journal; conflicts reported: %v", calls.Load(), pending, conflicts)
}

// TestRecoverNeverRenamesALinkIntoPlace: a kept-aside file that became a symbolic link after
// the crash is not renamed into place by an undo: the target is left as found, reported as
// a conflict, and no link appears where the journal's before state had a file.
func TestRecoverNeverRenamesALinkIntoPlace(t *testing.T) {
	m := txTree(t, beforeTree)
	var n atomic.Int64
	var stop int64 = -1
	// Find a stop where the journal is rolled back with a.txt already switched.
	var calls atomic.Int64
	m.InjectFault(func(string, string) bool { calls.Add(1); return false }, syscall.EIO)
	if _, err := threeFileCommit(t, m); err != nil {
		t.Fatal(err)
	}
	for k := int64(0); k < calls.Load() && stop < 0; k++ {
		m := txTree(t, beforeTree)
		n.Store(0)
		m.InjectFault(func(op, name string) bool { return n.Add(1) > k }, syscall.EIO)
		_, _ = threeFileCommit(t, m)
		m.ClearFaults()
		if files(m)["a.txt"] == "A2\n" && len(m.TreeUnder(rp(wfs.JournalDir))) > 0 {
			stop = k
		}
	}
	if stop < 0 {
		t.Fatal("no stop leaves a.txt switched with the journal pending")
	}
	m = txTree(t, beforeTree)
	n.Store(0)
	m.InjectFault(func(op, name string) bool { return n.Add(1) > stop }, syscall.EIO)
	_, _ = threeFileCommit(t, m)
	m.ClearFaults()
	var aside string
	for name := range files(m) {
		if strings.HasPrefix(name, ".a.txt.hk-") && strings.HasSuffix(name, ".old") {
			aside = name
		}
	}
	if aside == "" {
		t.Skipf("the commit kept no aside file of a.txt at stop %d on this FS", stop)
	}
	if err := m.Remove(rp(aside)); err != nil {
		t.Fatal(err)
	}
	if err := m.Symlink("/etc/passwd", rp(aside)); err != nil {
		t.Fatal(err)
	}
	recs, _ := wfs.Recover(ctx, m, memRoot())
	got := m.TreeUnder(memRoot())
	if e := got["a.txt"]; e.Symlink {
		t.Fatalf("a.txt became a link to %s (recoveries %v)", e.Target, recs)
	}
	refusedOrConflict := false
	for _, r := range recs {
		if r.Outcome == wfs.Refused || slices.Contains(r.Conflicts, rp("a.txt")) {
			refusedOrConflict = true
		}
	}
	if !refusedOrConflict {
		t.Errorf("the link aside was not reported: %v", recs)
	}
}

// TestRecoverReplayedJournalKeepsLaterWork: a journal of this user's own writer, with its
// temporary and kept files, copied aside at a crash and put back after recovery finished
// and the user went on editing (a backup restored over the tree, a sync tool replaying old
// files) is signed and verifies; putting it back must still never overwrite the work done
// since: every file holds the user's edit after the replayed recovery.
func TestRecoverReplayedJournalKeepsLaterWork(t *testing.T) {
	const edit = "the user's edit, made after recovery, longer than either state\n"
	tree := func() *wfs.MemFS {
		m := txTree(t, map[string]string{"a.txt": "a1\n", "c.txt": "c1\n"})
		if err := m.Link(rp("a.txt"), rp("a-link.txt")); err != nil {
			t.Fatal(err)
		}
		return m
	}
	commit := func(m *wfs.MemFS) {
		a, c := read(t, m, "a.txt"), read(t, m, "c.txt")
		tx, err := wfs.Begin(m, memRoot())
		if err != nil {
			t.Fatal(err)
		}
		tx.Write(a, []byte("a2\n"))
		tx.Write(c, []byte("c2\n"))
		_, _ = tx.Commit(ctx)
	}
	m := tree()
	var calls atomic.Int64
	m.InjectFault(func(string, string) bool { calls.Add(1); return false }, syscall.EIO)
	commit(m)
	replayed := 0
	for k := int64(0); k < calls.Load(); k++ {
		m := tree()
		var n atomic.Int64
		m.InjectFault(func(string, string) bool { return n.Add(1) > k }, syscall.EIO)
		commit(m)
		m.ClearFaults()
		if len(m.TreeUnder(rp(wfs.JournalDir))) == 0 {
			continue
		}
		// Copy aside what the crash left: the journal directory and the files beside the
		// targets that the commit made.
		saved := map[string]wfs.Entry{}
		for name, e := range m.Tree() {
			rel, _ := filepath.Rel(memRoot(), name)
			if strings.HasPrefix(rel, wfs.JournalDir) || strings.Contains(filepath.Base(rel), ".hk-") {
				saved[name] = e
			}
		}
		if _, err := wfs.Recover(ctx, m, memRoot()); err != nil {
			t.Fatalf("stopped after call %d: Recover: %v", k, err)
		}
		for _, name := range []string{"a-link.txt", "c.txt"} {
			if err := m.WriteFile(rp(name), []byte(edit), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// Put it all back, as it was at the crash.
		names := slices.Sorted(maps.Keys(saved))
		for _, name := range names {
			e := saved[name]
			switch {
			case e.Dir:
				if err := m.MkdirAll(name, e.Mode); err != nil {
					t.Fatal(err)
				}
			case e.Symlink:
				_ = m.Remove(name)
				if err := m.Symlink(e.Target, name); err != nil {
					t.Fatal(err)
				}
			default:
				if err := m.WriteFile(name, e.Data, e.Mode); err != nil {
					t.Fatal(err)
				}
			}
		}
		replayed++
		recs, err := wfs.Recover(ctx, m, memRoot())
		if err != nil {
			t.Fatalf("stopped after call %d: replayed Recover: %v", k, err)
		}
		got := files(m)
		for _, name := range []string{"a.txt", "a-link.txt", "c.txt"} {
			if got[name] != edit {
				t.Errorf("stopped after call %d: %s = %q after the replay; the user's later edit was overwritten (recoveries %v)", k, name, got[name], recs)
			}
		}
	}
	if replayed == 0 {
		t.Fatal("no stop left a journal to replay")
	}
	t.Logf("%d journals replayed over later edits", replayed)
}
