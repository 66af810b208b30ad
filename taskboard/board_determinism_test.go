package taskboard

import (
	"fmt"
	"pgregory.net/rapid"
	"slices"
	"testing"
	"time"
)

// detOp is one board operation, applied identically to several boards. It returns a
// description of its result.
type detOp func(b *Board, clk *manualClock, issued *[]leaseGrant) string

func genDetOp(t *rapid.T, i int) detOp {
	ids := []string{"ses_a", "ses_b", "ses_c"}
	id := rapid.SampledFrom(ids).Draw(t, fmt.Sprintf("id%d", i))
	parent := rapid.SampledFrom([]string{"par-A", "par-B"}).Draw(t, fmt.Sprintf("parent%d", i))
	genDelta := rapid.IntRange(-1, 1).Draw(t, fmt.Sprintf("genDelta%d", i))
	gen := func(b *Board) uint64 {
		r, _ := b.Get(id)
		return uint64(int64(r.Generation) + int64(genDelta))
	}
	pick := rapid.IntRange(0, 1000).Draw(t, fmt.Sprintf("pick%d", i))
	lease := func(issued []leaseGrant) *leaseGrant {
		if len(issued) == 0 {
			return nil
		}
		l := issued[pick%len(issued)]
		return &l
	}
	switch rapid.IntRange(0, 12).Draw(t, fmt.Sprintf("op%d", i)) {
	case 0:
		agent := rapid.SampledFrom([]string{"explorer", "oracle"}).Draw(t, fmt.Sprintf("agent%d", i))
		preserve := rapid.Bool().Draw(t, fmt.Sprintf("preserve%d", i))
		withLease := rapid.Bool().Draw(t, fmt.Sprintf("withLease%d", i))
		return func(b *Board, _ *manualClock, issued *[]leaseGrant) string {
			in := launchInput{TaskID: id, ParentID: parent, Agent: agent, PreserveRun: preserve}
			if withLease {
				in.Lease = lease(*issued)
			}
			r, err := b.registerLaunch(in)
			return fmt.Sprint(r.Generation, err)
		}
	case 1:
		kind := rapid.SampledFrom(leaseKinds[:]).Draw(t, fmt.Sprintf("kind%d", i))
		return func(b *Board, _ *manualClock, issued *[]leaseGrant) string {
			l, ok := b.acquire(kind, id, gen(b), nil)
			if ok {
				*issued = append(*issued, l)
			}
			return fmt.Sprint(l, ok)
		}
	case 2:
		return func(b *Board, _ *manualClock, issued *[]leaseGrant) string {
			if l := lease(*issued); l != nil {
				return fmt.Sprint(b.release(*l))
			}
			return ""
		}
	case 3:
		owner := rapid.SampledFrom([]leaseOwner{ownerAdmission, ownerCompensation}).Draw(t, fmt.Sprintf("owner%d", i))
		return func(b *Board, _ *manualClock, issued *[]leaseGrant) string {
			if l := lease(*issued); l != nil {
				h, ok := b.handOver(*l, owner)
				return fmt.Sprint(h, ok)
			}
			return ""
		}
	case 4:
		st := rapid.SampledFrom([]State{StateCompleted, StateError, StateCancelled, StateStopped}).Draw(t, fmt.Sprintf("state%d", i))
		return func(b *Board, _ *manualClock, issued *[]leaseGrant) string {
			r, g := b.commitTerminal(commitInput{TaskID: id, Generation: gen(b), State: st, Summary: "s", Lease: lease(*issued), ObservedAt: b.now()})
			return fmt.Sprint(r.State, g)
		}
	case 5:
		back := time.Duration(rapid.IntRange(0, 2000).Draw(t, fmt.Sprintf("back%d", i))) * time.Millisecond
		return func(b *Board, _ *manualClock, _ *[]leaseGrant) string {
			r, ok := b.markRunningFromLive(id, gen(b), b.now().Add(-back))
			return fmt.Sprint(r.State, ok)
		}
	case 6:
		return func(b *Board, _ *manualClock, _ *[]leaseGrant) string {
			r, g := b.stopCandidate(id, gen(b), b.now(), msgIdleUnconfirmed)
			return fmt.Sprint(r.State, g)
		}
	case 7:
		return func(b *Board, _ *manualClock, _ *[]leaseGrant) string {
			return fmt.Sprint(b.acknowledgeShown(parent, b.view(parent).shown))
		}
	case 8:
		return func(b *Board, _ *manualClock, _ *[]leaseGrant) string {
			b.Drop(id)
			return ""
		}
	case 9:
		return func(b *Board, _ *manualClock, _ *[]leaseGrant) string {
			g := gen(b)
			return fmt.Sprint(b.hostDeleted(deletionEvent{SessionID: id, Generation: &g}))
		}
	case 10:
		return func(b *Board, _ *manualClock, _ *[]leaseGrant) string {
			r, err := b.adopt(adoptInput{TaskID: id, ParentID: parent, Agent: "explorer", State: StateCompleted})
			return fmt.Sprint(r.Generation, err)
		}
	case 11:
		return func(b *Board, _ *manualClock, _ *[]leaseGrant) string {
			b.ClearParent(parent)
			return ""
		}
	}
	d := time.Duration(rapid.IntRange(1, 6000).Draw(t, fmt.Sprintf("tick%d", i))) * time.Millisecond
	return func(_ *Board, clk *manualClock, _ *[]leaseGrant) string {
		clk.Advance(d)
		return ""
	}
}

func dumpBoard(b *Board) string {
	s := fmt.Sprintf("%+v\n%+v\n%+v\n", b.allRecords(), b.LeasesForTest(), b.drain())
	for _, id := range []string{"ses_a", "ses_b", "ses_c"} {
		e, ok := b.deletionEpoch(id)
		s += fmt.Sprint(id, b.tombstoned(id), e, ok, " ")
	}
	return s + b.view("par-A").Text + b.view("par-B").Text
}

// TestDeterminism is invariant 40 for the board: the same operations with the same clock
// readings on two fresh boards give identical results, records, leases, tokens, notices,
// tombstones and views after every step.
func TestDeterminism(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := make([]detOp, rapid.IntRange(1, 80).Draw(t, "n"))
		for i := range ops {
			ops[i] = genDetOp(t, i)
		}
		type sys struct {
			b      *Board
			clk    *manualClock
			issued []leaseGrant
		}
		var twins [2]*sys
		for i := range twins {
			clk := newManualClock(t0)
			b, err := NewBoard(Options{Clock: clk, MaxReusablePerAgent: 1})
			if err != nil {
				t.Fatal(err)
			}
			twins[i] = &sys{b: b, clk: clk}
		}
		for i, op := range ops {
			var outs, dumps [2]string
			for j, s := range twins {
				outs[j] = op(s.b, s.clk, &s.issued)
				dumps[j] = dumpBoard(s.b)
			}
			if outs[0] != outs[1] || dumps[0] != dumps[1] || !slices.Equal(twins[0].issued, twins[1].issued) {
				t.Fatalf("step %d diverged:\n%s\n%s\n---\n%s\n---\n%s", i, outs[0], outs[1], dumps[0], dumps[1])
			}
		}
	})
}
