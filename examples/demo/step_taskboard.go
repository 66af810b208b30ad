package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

// taskboardStep runs the background-task tools through the Driver against the in-memory
// fake host: a task is launched, inspected, messaged, completed by the host and its result
// read; then it is revived with a new prompt, and a cancel meets a host whose abort fails.
// Every answer is the text the model would read.
func taskboardStep(ctx context.Context, e *env) error {
	const parent = "ses_orchestrator"
	host := taskboardtest.New(taskboard.FlavorV1, nil)
	d, err := taskboard.NewDriver(host.Host(), taskboard.Options{NoReconciliation: true, Timing: taskboard.Timing{IdleDelay: time.Millisecond}})
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Manage(parent); err != nil {
		return err
	}
	me := taskboard.Caller{SessionID: parent, Agent: "orchestrator"}
	finished := make(chan taskboard.Notice, 4)
	d.OnTerminal(func(n taskboard.Notice) error { finished <- n; return nil })
	say := func(text string, err error) {
		if err != nil {
			text = "error: " + err.Error()
		}
		for _, l := range strings.Split(text, "\n") {
			e.printf("   | %s\n", l)
		}
	}

	e.printf("1. task(): launch an explorer in the background\n")
	plan, err := d.Task(ctx, me, taskboard.TaskCall{Agent: "explorer", Description: "map the callers of Greet", Objective: "find every caller of Greet", Background: true})
	if err != nil {
		return err
	}
	host.Start("ses_child", parent, "find every caller of Greet") // the host creates the session and starts the run
	launched, err := d.FinishTask(plan, taskboard.LaunchObservation{TaskID: "ses_child", Background: true})
	say(launched.Render(), err)

	e.printf("\n2. task_status: the host reports the session busy\n")
	st, err := d.Status(ctx, me, "exp-1")
	say("state: "+st.State+"\nsource: "+string(st.Source), err)

	e.printf("\n3. task_message: queue a note without starting a turn\n")
	msg, err := d.Message(ctx, me, "exp-1", "Include the tests.")
	say(msg.Render(), err)

	e.printf("\n4. the host finishes the run: idle, and a finished answer in the transcript\n")
	d.Observe(host.Finish("ses_child", "main.go:7 and greet_test.go:12 call Greet"))
	n := <-finished
	e.printf("   notice: %s %s generation %d -> %s\n", n.Kind, n.TaskID, n.Generation, n.State)

	e.printf("\n5. task_result: read the answer\n")
	res, err := d.Result(ctx, me, "exp-1")
	say(res.Render(), err)

	e.printf("\n6. task_revive: continue the same session with a new prompt\n")
	rv, err := d.Revive(ctx, me, "exp-1", "Only the public API, please.")
	say(rv.Render(), err)

	e.printf("\n7. task_cancel: the host's abort fails, so the task keeps running\n")
	host.FailNext(taskboardtest.OpAbort, errors.New("runtime unavailable"))
	c, err := d.Cancel(ctx, me, "exp-1", "plan changed")
	say(c.Render(), err)

	e.printf("\n8. task_cancel again: abort confirmed, the session stays idle\n")
	c, err = d.Cancel(ctx, me, "exp-1", "plan changed")
	say(c.Render(), err)

	// The driver reads the host's session statuses while it waits for a run to settle; how
	// many reads that takes depends on timing, so the transcript leaves them out to stay the
	// same from run to run.
	e.printf("\nHost calls, in order (status reads left out):\n")
	for _, call := range host.Calls() {
		if call = strings.TrimSpace(call); call != "statuses" {
			e.printf("  %s\n", call)
		}
	}
	return nil
}
