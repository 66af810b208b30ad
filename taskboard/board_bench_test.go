package taskboard

import (
	"fmt"
	"testing"
	"time"
)

// benchBoard returns a board with n tasks under one parent, half of them acknowledged.
func benchBoard(b *testing.B, n int) (*Board, *manualClock) {
	b.Helper()
	clk := newManualClock(t0)
	bd, err := NewBoard(Options{Clock: clk, MaxReusablePerAgent: n})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("ses_%04d", i)
		r, err := bd.registerLaunch(launchInput{TaskID: id, ParentID: "orch", Agent: "explorer", Description: "task " + id})
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			r, _ = bd.commitTerminal(commitInput{TaskID: id, Generation: r.Generation, State: StateCompleted, Summary: "ok"})
			bd.markReconciled(id, r.Generation, r.TerminalRevision)
		}
		clk.Advance(time.Millisecond)
	}
	bd.drain()
	return bd, clk
}

// BenchmarkRelaunchCycle measures one resume of a reusable task on a board of n tasks:
// acquire the relaunch lease, register, release, complete, acknowledge.
func BenchmarkRelaunchCycle(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			bd, clk := benchBoard(b, n)
			b.ReportAllocs()
			for b.Loop() {
				r, _ := bd.Get("ses_0000")
				l, ok := bd.acquire(leaseRelaunch, "ses_0000", r.Generation, nil)
				if !ok {
					b.Fatal("acquire")
				}
				r, err := bd.registerLaunch(launchInput{TaskID: "ses_0000", ParentID: "orch", Agent: "explorer", Lease: &l})
				if err != nil {
					b.Fatal(err)
				}
				bd.release(l)
				clk.Advance(time.Millisecond)
				r, _ = bd.commitTerminal(commitInput{TaskID: "ses_0000", Generation: r.Generation, State: StateCompleted, Summary: "ok"})
				bd.markReconciled("ses_0000", r.Generation, r.TerminalRevision)
				bd.drain()
			}
		})
	}
}

// BenchmarkView measures rendering the prompt view of a parent with n tasks.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			bd, _ := benchBoard(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if v := bd.view("orch"); v.Text == "" {
					b.Fatal("empty view")
				}
			}
		})
	}
}

// BenchmarkResolveAlias measures resolving an alias on a board of n tasks.
func BenchmarkResolveAlias(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			bd, _ := benchBoard(b, n)
			alias := fmt.Sprintf("exp-%d", n)
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := bd.Resolve("orch", alias); !ok {
					b.Fatal("not found")
				}
			}
		})
	}
}
