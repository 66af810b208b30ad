package taskboard_test

import (
	"context"
	"fmt"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

// Example launches a background task through the driver against the in-memory fake host,
// reads its status, lets the host finish it, and reads the result.
func Example() {
	host := taskboardtest.New(taskboard.FlavorV1, nil)
	d, _ := taskboard.NewDriver(host.Host(), taskboard.Options{Timing: taskboard.Timing{IdleDelay: time.Millisecond}})
	defer d.Close()
	d.Manage("orch") // the orchestrator session whose tasks this board tracks
	ctx, me := context.Background(), taskboard.Caller{SessionID: "orch", Agent: "orchestrator"}
	done := make(chan taskboard.Notice, 1)
	d.OnTerminal(func(n taskboard.Notice) error { done <- n; return nil })

	plan, _ := d.Task(ctx, me, taskboard.TaskCall{Agent: "explorer", Description: "find the config loader", Background: true})
	host.Start("ses_1", "orch", "find the config loader") // the host launches the session
	launched, _ := d.FinishTask(plan, taskboard.LaunchObservation{TaskID: "ses_1", Background: true})
	fmt.Println(launched.Render())
	st, _ := d.Status(ctx, me, launched.Alias)
	fmt.Println("status:", st.State)
	d.Observe(host.Finish("ses_1", "config.go:12 loads YAML")) // idle + a finished answer
	<-done
	res, _ := d.Result(ctx, me, launched.Alias)
	fmt.Println(res.Render())
	// Output:
	// task_id: ses_1
	// alias: exp-1
	// state: running
	// status: busy
	// task_id: ses_1
	// state: completed
	// generation: 1
	//
	// <task_result>
	// config.go:12 loads YAML
	// </task_result>
}
