package wfstest

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/wfs"
)

// A CrashCase is a writer's commit for [CrashAtEveryStep].
type CrashCase struct {
	// Tree builds a fresh MemFS holding the state before the commit under Root.
	Tree func(t *testing.T) *wfs.MemFS
	// Root is the tree's root: the writer's journal root, and what Recover is run on.
	Root string
	// Commit runs the writer's whole edit (plan and commit) on fsys, which is the MemFS or a
	// wrapper of it; it returns the writer's error, which the check ignores once a fault
	// was injected.
	Commit func(t *testing.T, fsys wfs.FS) error
	// Between, when set, returns the trees (MemFS.TreeUnder(Root)) that are also acceptable:
	// the states between the commits of an edit made of several (patch's section-by-section
	// mode). Nil means an edit is one commit: before or after only.
	Between func(t *testing.T) []map[string]wfs.Entry
}

// CrashAtEveryStep stops c's commit after each of its calls in turn — every call that
// changes the tree, writes, syncs or closes; from the stop on every such call fails, as when
// the process dies there — and then runs wfs.Recover on the root: the tree must be exactly
// the tree before or the tree after the commit (modes included; or one of c.Between), with
// no temporary and no journal. Every recovery is itself stopped at each of its steps and run again, with the same
// requirement. It does this on the MemFS, on a MemFS whose hard links fail (a file system
// without them) and on one without the LinkFS extension, and returns the number of stop
// points it tried (commit stops plus recovery stops).
func CrashAtEveryStep(t *testing.T, c CrashCase) int {
	t.Helper()
	total := 0
	for _, v := range []struct {
		name string
		wrap func(*wfs.MemFS) wfs.FS
	}{
		{"links", func(m *wfs.MemFS) wfs.FS { return m }},
		{"links_fail", func(m *wfs.MemFS) wfs.FS { return failingLinks{m} }},
		{"no_link_extension", func(m *wfs.MemFS) wfs.FS { return noLinkExt{m} }},
	} {
		t.Run(v.name, func(t *testing.T) { total += crashAtEveryStep(t, c, v.wrap) })
	}
	return total
}

// failingLinks is a MemFS whose Link fails as on FAT or exFAT.
type failingLinks struct{ *wfs.MemFS }

func (failingLinks) Link(oldname, newname string) error {
	return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: ErrNoHardLinks}
}

// noLinkExt is a MemFS without the LinkFS extension.
type noLinkExt struct{ noLink }

type noLink interface {
	wfs.FS
	wfs.ReadDirFS
	wfs.LockFS
}

func crashAtEveryStep(t *testing.T, c CrashCase, wrap func(*wfs.MemFS) wfs.FS) int {
	ctx := context.Background()
	m := c.Tree(t)
	before := m.TreeUnder(c.Root)
	var calls atomic.Int64
	m.InjectFault(func(op, name string) bool { calls.Add(1); return false }, syscall.EIO)
	if err := c.Commit(t, wrap(m)); err != nil {
		t.Fatalf("the commit without faults: %v", err)
	}
	after := m.TreeUnder(c.Root)
	if cmp.Equal(before, after) {
		t.Fatal("the commit changes nothing")
	}
	steps := int(calls.Load())
	stops := 0
	outcome := map[string]int{}
	var between []map[string]wfs.Entry
	if c.Between != nil {
		between = c.Between(t)
	}
	state := func(m *wfs.MemFS) string {
		got := m.TreeUnder(c.Root)
		switch {
		case cmp.Equal(got, before):
			return "before"
		case cmp.Equal(got, after):
			return "after"
		}
		for _, b := range between {
			if cmp.Equal(got, b) {
				return "before"
			}
		}
		return "mixed:\n" + cmp.Diff(after, got)
	}
	crashed := func(k int) *wfs.MemFS {
		m := c.Tree(t)
		var n atomic.Int64
		m.InjectFault(func(op, name string) bool { return n.Add(1) > int64(k) }, syscall.EIO)
		_ = c.Commit(t, wrap(m))
		m.ClearFaults()
		return m
	}
	for k := 0; k < steps; k++ {
		stops++
		m := crashed(k)
		if _, err := wfs.Recover(ctx, wrap(m), c.Root); err != nil {
			t.Fatalf("stopped after call %d of %d: Recover: %v", k, steps, err)
		}
		s := state(m)
		outcome[s]++
		if s != "before" && s != "after" {
			t.Errorf("stopped after call %d of %d, recovered: %s (-after +got)", k, steps, s)
		}
		for r := 0; ; r++ {
			stops++
			m := crashed(k)
			var n atomic.Int64
			m.InjectFault(func(op, name string) bool { return n.Add(1) > int64(r) }, syscall.EIO)
			_, _ = wfs.Recover(ctx, wrap(m), c.Root)
			used := n.Load()
			m.ClearFaults()
			if _, err := wfs.Recover(ctx, wrap(m), c.Root); err != nil {
				t.Fatalf("stopped after call %d, recovery stopped after %d: Recover: %v", k, r, err)
			}
			if s := state(m); s != "before" && s != "after" {
				t.Errorf("stopped after call %d, recovery stopped after %d, recovered again: %s", k, r, s)
			}
			if used <= int64(r) {
				break // the recovery needed at most r calls: every stop of it was tried
			}
		}
	}
	if outcome["before"] == 0 || outcome["after"] == 0 {
		t.Errorf("outcomes %v: want both the before and the after state among the stops", outcome)
	}
	t.Log(fmt.Sprintf("%d commit calls, %d stop points (commit and recovery); after recovery: %d before, %d after",
		steps, stops, outcome["before"], outcome["after"]))
	return stops
}
