package taskboard_test

import (
	"context"
	"fmt"
	"time"

	tb "github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

// exampleHost answers every call at once: a v2 host with an idle waiter.
type exampleHost struct{ log []string }

func (h *exampleHost) Abort(_ context.Context, id string) (bool, error) {
	h.log = append(h.log, "abort "+id)
	return true, nil
}
func (h *exampleHost) Enqueue(_ context.Context, id string, m tb.Message) error {
	h.log = append(h.log, "enqueue "+id+": "+m.Text)
	return nil
}
func (h *exampleHost) PromptAsync(_ context.Context, id string, p tb.Message) error {
	h.log = append(h.log, "prompt "+id+": "+p.Text)
	return nil
}
func (h *exampleHost) Session(context.Context, string) (tb.SessionInfo, error) {
	return tb.SessionInfo{ParentID: "parent-1"}, nil
}
func (h *exampleHost) Messages(context.Context, string, int) ([]tb.TranscriptEntry, error) {
	return nil, nil
}
func (h *exampleHost) WaitIdle(context.Context, string) error { return nil }

func ExampleDriver() {
	clk := taskboardtest.NewClock(time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC))
	h := &exampleHost{}
	d, _ := tb.NewDriver(tb.Host{Aborter: h, Prompter: h, Sessions: h, Idle: h, Flavor: tb.FlavorV2}, tb.Options{Clock: clk})
	defer d.Close()
	d.Manage("parent-1")
	ctx := context.Background()
	me := tb.Caller{SessionID: "parent-1", Agent: "orchestrator"}

	plan, _ := d.Task(ctx, me, tb.TaskCall{Agent: "explorer", Description: "map the callers"})
	launched, _ := d.FinishTask(plan, tb.LaunchObservation{TaskID: "ses_a"})
	fmt.Println(launched.Render())

	msg, _ := d.Message(ctx, me, "exp-1", "include tests")
	fmt.Println(msg.Render())

	c, _ := d.Cancel(ctx, me, "exp-1", "obsolete")
	fmt.Println(c.Render())

	r, _ := d.Revive(ctx, me, "exp-1", "only the public API")
	fmt.Println(r.Render())
	for _, l := range h.log {
		fmt.Println("host:", l)
	}
	// Output:
	// task_id: ses_a
	// alias: exp-1
	// state: running
	// Message queued for exp-1 (ses_a) without launching or resuming it.
	// task_id: ses_a
	// state: cancelled
	// <task_error>cancelled: obsolete</task_error>
	// task_id: ses_a
	// generation: 2
	// state: running
	// status: started
	// host: enqueue ses_a: include tests
	// host: abort ses_a
	// host: prompt ses_a: only the public API
}
