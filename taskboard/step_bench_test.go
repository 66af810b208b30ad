package taskboard_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	tb "github.com/harnesskit/harnesskit/taskboard"
)

// BenchmarkCancelMachine runs a whole v2 cancel (lease, guarded abort, idle wait, commit)
// by hand on a fresh record per iteration.
func BenchmarkCancelMachine(b *testing.B) {
	clk := tb.NewManualClock(pStart)
	board, _ := tb.NewBoard(clk, tb.Options{})
	board.Manage(parent1)
	caps := tb.Caps{Flavor: tb.FlavorV2, IdleWaiter: true}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := fmt.Sprintf("ses_%d", i)
		board.RegisterLaunch(tb.LaunchInput{TaskID: id, ParentID: parent1, Agent: "explorer"})
		m := tb.NewCancel(orch, tb.CancelArgs{Ref: id}, caps)
		m.Start(board)
		m.Step(board, tb.Dispatch{Call: 1})
		m.Step(board, tb.AbortReply{Call: 1, Confirmed: true})
		m.Step(board, tb.IdleReply{Call: 2})
		if !m.Done() {
			b.Fatal("not done")
		}
		board.Drop(id) // keep the board small: the benchmark measures the machine
		board.Drain()
		clk.Advance(time.Millisecond)
	}
}

// BenchmarkDriverMessage runs task_message through the driver against an immediate host.
func BenchmarkDriverMessage(b *testing.B) {
	board, _ := tb.NewBoard(tb.SystemClock{}, tb.Options{})
	board.Manage(parent1)
	h := &exampleHost{}
	d, _ := tb.NewDriver(board, tb.Host{Aborter: h, Prompter: h, Sessions: h, Idle: h, Flavor: tb.FlavorV2})
	defer d.Close()
	d.Do(func(b *tb.Board) {
		b.RegisterLaunch(tb.LaunchInput{TaskID: "ses_m", ParentID: parent1, Agent: "explorer"})
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h.log = h.log[:0]
		if _, err := d.Message(ctx, orch, tb.MessageArgs{Ref: "ses_m", Text: "note"}); err != nil {
			b.Fatal(err)
		}
	}
}
