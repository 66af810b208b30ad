package taskboard_test

import (
	"fmt"
	"time"

	tb "github.com/harnesskit/harnesskit/taskboard"
)

// A machine is driven by hand: Start returns host calls, the caller performs them (or
// not) and feeds the replies back with Step. Guarded calls wait for a Dispatch.
func ExampleNewCancel() {
	clk := tb.NewManualClock(time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC))
	b, _ := tb.NewBoard(clk, tb.Options{})
	b.Manage("parent-1")
	b.RegisterLaunch(tb.LaunchInput{TaskID: "ses_a", ParentID: "parent-1", Agent: "explorer"})

	m := tb.NewCancel(tb.Caller{SessionID: "parent-1"}, tb.CancelArgs{Ref: "exp-1", Reason: "obsolete"},
		tb.Caps{Flavor: tb.FlavorV2, IdleWaiter: true})
	show := func(cmds []tb.Command) {
		for _, c := range cmds {
			fmt.Printf("  %T%+v\n", c, c)
		}
	}
	fmt.Println("start:")
	show(m.Start(b))
	fmt.Println("dispatch of the abort:")
	show(m.Step(b, tb.Dispatch{Call: 1}))
	fmt.Println("abort confirmed:")
	show(m.Step(b, tb.AbortReply{Call: 1, Confirmed: true}))
	fmt.Println("idle:")
	show(m.Step(b, tb.IdleReply{Call: 2}))
	res, err := m.Outcome()
	fmt.Println(res.Render())
	fmt.Println("error:", err, "done:", m.Done())
	// Output:
	// start:
	//   taskboard.Abort{Call:1 SessionID:ses_a}
	//   taskboard.StartTimer{Timer:1 After:10s}
	// dispatch of the abort:
	//   taskboard.Proceed{Call:1}
	// abort confirmed:
	//   taskboard.StopTimer{Timer:1}
	//   taskboard.StartTimer{Timer:2 After:1.5s}
	//   taskboard.WaitIdle{Call:2 SessionID:ses_a}
	// idle:
	//   taskboard.StopTimer{Timer:2}
	// task_id: ses_a
	// state: cancelled
	// <task_error>cancelled: obsolete</task_error>
	// error: <nil> done: true
}
