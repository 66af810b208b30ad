package patch_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// TestPlanRecoversAKilledWritersJournalFirst: a writer killed in the middle of a two-file
// commit leaves a journal and a tree that may be half switched. Planning the next patch
// finishes or undoes that commit before it reads anything, so the plan rests on the tree
// before or after the first patch, never on a mix: a second patch written against the
// first one's result applies exactly when the first one was rolled forward, and is refused
// at planning (not at the commit's check) when it was rolled back.
func TestPlanRecoversAKilledWritersJournalFirst(t *testing.T) {
	root := testenv.Abs("/w")
	first := "*** Begin Patch\n*** Update File: a.txt\n@@\n-a1\n+a2\n*** Update File: b.txt\n@@\n-b1\n+b2\n*** End Patch\n"
	second := "*** Begin Patch\n*** Update File: b.txt\n@@\n-b2\n+b3\n*** End Patch\n"
	tree := func() *wfs.MemFS {
		m := wfs.NewMemFS()
		if err := m.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string]string{"a.txt": "a1\n", "b.txt": "b1\n"} {
			if err := m.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	ctx := context.Background()
	// Count the calls of a whole commit, then stop it after each in turn.
	m := tree()
	var calls atomic.Int64
	m.InjectFault(func(string, string) bool { calls.Add(1); return false }, syscall.EIO)
	a, err := patch.New(m, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Apply(ctx, first); err != nil {
		t.Fatal(err)
	}
	rolledForward, rolledBack, journaled := 0, 0, 0
	for k := int64(0); k < calls.Load(); k++ {
		m := tree()
		var n atomic.Int64
		m.InjectFault(func(string, string) bool { return n.Add(1) > k }, syscall.EIO)
		a, err := patch.New(m, root)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = a.Apply(ctx, first) // killed at call k: every call from there fails
		m.ClearFaults()
		pending := len(m.TreeUnder(filepath.Join(root, wfs.JournalDir))) > 0
		a, err = patch.New(m, root)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := a.Plan(ctx, second)
		b, _ := m.ReadFile(filepath.Join(root, "b.txt"))
		switch string(b) {
		case "b2\n":
			if err != nil {
				t.Fatalf("stopped after call %d: b.txt holds the first patch, yet planning failed: %v", k, err)
			}
			res, err := a.Commit(ctx, pl)
			if err != nil {
				t.Fatalf("stopped after call %d: commit of a plan made after recovery: %v", k, err)
			}
			if pending && len(res.Recovered) == 0 {
				t.Errorf("stopped after call %d: the recovery before planning is not reported", k)
			}
			if got, _ := m.ReadFile(filepath.Join(root, "a.txt")); string(got) != "a2\n" {
				t.Errorf("stopped after call %d: a.txt = %q with b.txt written: a mixed tree", k, got)
			}
			rolledForward++
		case "b1\n":
			var pe *patch.Error
			if !errors.As(err, &pe) || pe.Kind == patch.KindChanged {
				t.Fatalf("stopped after call %d: plan over the undone first patch = %v; want a refusal at planning", k, err)
			}
			if got, _ := m.ReadFile(filepath.Join(root, "a.txt")); string(got) != "a1\n" {
				t.Errorf("stopped after call %d: a.txt = %q with b.txt not written: a mixed tree", k, got)
			}
			rolledBack++
		default:
			t.Fatalf("stopped after call %d: b.txt = %q", k, b)
		}
		if pending {
			journaled++
		}
		if left := m.TreeUnder(filepath.Join(root, wfs.JournalDir)); len(left) != 0 {
			t.Errorf("stopped after call %d: journal left after planning: %v", k, left)
		}
	}
	if journaled == 0 || rolledForward == 0 || rolledBack == 0 {
		t.Fatalf("the stops left %d journals, %d trees rolled forward, %d back; want some of each", journaled, rolledForward, rolledBack)
	}
	t.Logf("%d stops: %d journals left by the killed writer; %d trees rolled forward, %d back", calls.Load(), journaled, rolledForward, rolledBack)
}
