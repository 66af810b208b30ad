package taskboard

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkCancelMachine runs a whole v2 cancel (lease, guarded abort, idle wait, commit)
// by hand on a fresh record per iteration.
func BenchmarkCancelMachine(b *testing.B) {
	clk := newManualClock(pStart)
	board, _ := NewBoard(Options{Clock: clk})
	board.manage(parent1)
	caps := caps{Flavor: FlavorV2, IdleWaiter: true}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := fmt.Sprintf("ses_%d", i)
		board.registerLaunch(launchInput{TaskID: id, ParentID: parent1, Agent: "explorer"})
		m := newCancel(orch, cancelArgs{Ref: id}, caps)
		m.Start(board)
		m.Step(board, dispatch{Call: 1})
		m.Step(board, abortReply{Call: 1, Confirmed: true})
		m.Step(board, idleReply{Call: 2})
		if !m.Done() {
			b.Fatal("not done")
		}
		board.Drop(id) // keep the board small: the benchmark measures the machine
		board.drain()
		clk.Advance(time.Millisecond)
	}
}

// BenchmarkDriverMessage runs task_message through the driver against an immediate host.
func BenchmarkDriverMessage(b *testing.B) {
	board, _ := NewBoard(Options{Clock: systemClock{}})
	board.manage(parent1)
	h := &fakeHost{}
	d, _ := newDriverOn(board, Host{Aborter: h, Prompter: h, Sessions: h, Idle: h, Flavor: FlavorV2})
	defer d.Close()
	d.Do("", func(b *Board) {
		b.registerLaunch(launchInput{TaskID: "ses_m", ParentID: parent1, Agent: "explorer"})
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h.mu.Lock()
		h.calls = h.calls[:0]
		h.mu.Unlock()
		if _, err := d.Message(ctx, orch, "ses_m", "note"); err != nil {
			b.Fatal(err)
		}
	}
}
