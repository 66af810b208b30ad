package taskboard_test

import (
	"fmt"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
)

func ExampleBoard_RegisterLaunch() {
	clk := taskboard.NewManualClock(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC))
	b, _ := taskboard.NewBoard(clk, taskboard.Options{})

	r, _ := b.RegisterLaunch(taskboard.LaunchInput{TaskID: "ses_1", ParentID: "orch", Agent: "explorer", Description: "map the repo"})
	fmt.Println(r.Alias, r.State, r.Generation)

	// A late completion for another generation is ignored.
	_, gate := b.CommitTerminal(taskboard.Commit{TaskID: "ses_1", Generation: r.Generation + 1, State: taskboard.StateCompleted})
	fmt.Println(gate)

	r, gate = b.CommitTerminal(taskboard.Commit{TaskID: "ses_1", Generation: r.Generation, State: taskboard.StateCompleted, Summary: "3 packages"})
	fmt.Println(gate, r.State, r.TerminalUnreconciled)
	// Output:
	// exp-1 running 1
	// stale
	// committed completed true
}

func ExampleBoard_Acquire() {
	b, _ := taskboard.NewBoard(taskboard.NewManualClock(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)), taskboard.Options{})
	r, _ := b.RegisterLaunch(taskboard.LaunchInput{TaskID: "ses_1", ParentID: "orch", Agent: "fixer"})

	msg, _ := b.Acquire(taskboard.LeaseMessage, "ses_1", r.Generation, nil)
	_, ok := b.Acquire(taskboard.LeaseCancellation, "ses_1", r.Generation, nil)
	fmt.Println(msg, ok)

	// Releasing needs the exact token; a wrong one changes nothing.
	wrong := msg
	wrong.Token++
	fmt.Println(b.Release(wrong), b.Release(msg), b.Release(msg))
	// Output:
	// background-job-message-lease-1 false
	// false true false
}

func ExampleBoard_LiveLeases() {
	b, _ := taskboard.NewBoard(taskboard.NewManualClock(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)), taskboard.Options{})
	r, _ := b.RegisterLaunch(taskboard.LaunchInput{TaskID: "ses_1", ParentID: "orch", Agent: "oracle"})
	b.CommitTerminal(taskboard.Commit{TaskID: "ses_1", Generation: r.Generation, State: taskboard.StateStopped, ObservedAt: b.Now().Add(time.Millisecond)})

	// A revive sent its prompt, then the record was deleted before admission settled:
	// the relaunch lease passes to compensation and keeps the ID excluded.
	l, _ := b.Acquire(taskboard.LeaseRelaunch, "ses_1", r.Generation, nil)
	l, _ = b.HandOver(l, taskboard.OwnerAdmission)
	b.Drop("ses_1")
	b.HandOver(l, taskboard.OwnerCompensation)

	for _, info := range b.LiveLeases() {
		fmt.Println(info)
	}
	_, err := b.RegisterLaunch(taskboard.LaunchInput{TaskID: "ses_1", ParentID: "orch", Agent: "oracle"})
	fmt.Println(err)
	// Output:
	// ses_1 relaunch gen=1 owner=compensation phase=compensating record=deleted: compensating an orphaned revive: held until an abort is confirmed and the session is seen idle; if that was never confirmed it is held for the life of the board; the record is gone, the ID stays excluded until this exact token is released
	// Cannot register launch for ses_1: a relaunch lease already owns this session
}

func ExampleBoard_View() {
	clk := taskboard.NewManualClock(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC))
	b, _ := taskboard.NewBoard(clk, taskboard.Options{})
	a, _ := b.RegisterLaunch(taskboard.LaunchInput{TaskID: "ses_a", ParentID: "orch", Agent: "explorer", Description: "find the <config> loader"})
	b.RegisterLaunch(taskboard.LaunchInput{TaskID: "ses_b", ParentID: "orch", Agent: "fixer", Description: "fix the flaky test"})
	b.CommitTerminal(taskboard.Commit{TaskID: "ses_a", Generation: a.Generation, State: taskboard.StateCompleted, Summary: "config.go:12\nloads YAML"})

	v := b.View("orch")
	fmt.Print(v.Text)
	fmt.Println(len(v.Shown), b.AcknowledgeShown("orch", v.Shown))
	fmt.Print(b.View("orch").Text)
	// Output:
	// Running:
	// - fix-1 (ses_b) [fixer] running: fix the flaky test
	//
	// Needs acknowledgement:
	// - exp-1 (ses_a) [explorer] completed, unreconciled: find the &lt;config&gt; loader
	//   result: config.go:12 loads YAML
	// 1 1
	// Running:
	// - fix-1 (ses_b) [fixer] running: fix the flaky test
	//
	// Reusable:
	// - exp-1 (ses_a) [explorer] completed, reconciled: find the &lt;config&gt; loader
}
