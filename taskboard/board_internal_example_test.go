package taskboard

// These examples drive the board's internal transitions directly; a host reaches them
// through the Driver (see the package Example).

import (
	"fmt"
	"time"
)

func ExampleBoard_generationFencing() {
	clk := newManualClock(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC))
	b, _ := NewBoard(Options{Clock: clk})

	r, _ := b.registerLaunch(launchInput{TaskID: "ses_1", ParentID: "orch", Agent: "explorer", Description: "map the repo"})
	fmt.Println(r.Alias, r.State, r.Generation)

	// A late completion for another generation is ignored.
	_, gate := b.commitTerminal(commitInput{TaskID: "ses_1", Generation: r.Generation + 1, State: StateCompleted})
	fmt.Println(gate)

	r, gate = b.commitTerminal(commitInput{TaskID: "ses_1", Generation: r.Generation, State: StateCompleted, Summary: "3 packages"})
	fmt.Println(gate, r.State, r.TerminalUnreconciled)
	// Output:
	// exp-1 running 1
	// stale
	// committed completed true
}

func ExampleBoard_leaseTokens() {
	b, _ := NewBoard(Options{Clock: newManualClock(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC))})
	r, _ := b.registerLaunch(launchInput{TaskID: "ses_1", ParentID: "orch", Agent: "fixer"})

	msg, _ := b.acquire(leaseMessage, "ses_1", r.Generation, nil)
	_, ok := b.acquire(leaseCancellation, "ses_1", r.Generation, nil)
	fmt.Println(msg, ok)

	// Releasing needs the exact token; a wrong one changes nothing.
	wrong := msg
	wrong.Token++
	fmt.Println(b.release(wrong), b.release(msg), b.release(msg))
	// Output:
	// background-job-message-lease-1 false
	// false true false
}

func ExampleBoard_LiveLeases() {
	b, _ := NewBoard(Options{Clock: newManualClock(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC))})
	r, _ := b.registerLaunch(launchInput{TaskID: "ses_1", ParentID: "orch", Agent: "oracle"})

	// A message write is pending at the host when the record is deleted: the lease stays
	// live and keeps the ID excluded until the write settles, or an operator breaks it.
	b.acquire(leaseMessage, "ses_1", r.Generation, nil)
	b.Drop("ses_1")
	for _, info := range b.LiveLeases() {
		fmt.Println(info)
	}
	_, err := b.registerLaunch(launchInput{TaskID: "ses_1", ParentID: "orch", Agent: "oracle"})
	fmt.Println(err)
	released, _ := b.ForceRelease("ses_1", "the host lost the write; ticket 42")
	fmt.Println(released.Kind, len(b.LiveLeases()), len(b.ForcedReleases()))
	// Output:
	// ses_1 message gen=1 owner=caller record=deleted: task_message in progress, or its write is still pending at the host; the record is gone, the ID stays excluded until this exact token is released
	// Cannot register launch for ses_1: a message lease already owns this session
	// message 0 1
}

func ExampleDriver_View_board() {
	clk := newManualClock(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC))
	b, _ := NewBoard(Options{Clock: clk})
	a, _ := b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: "orch", Agent: "explorer", Description: "find the <config> loader"})
	b.registerLaunch(launchInput{TaskID: "ses_b", ParentID: "orch", Agent: "fixer", Description: "fix the flaky test"})
	b.commitTerminal(commitInput{TaskID: "ses_a", Generation: a.Generation, State: StateCompleted, Summary: "config.go:12\nloads YAML"})

	v := b.view("orch")
	fmt.Print(v.Text)
	fmt.Println(len(v.shown), b.acknowledgeShown("orch", v.shown))
	fmt.Print(b.view("orch").Text)
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
