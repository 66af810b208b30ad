package taskboard_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

// idMangler wraps a host's transcript reads: blank gives every entry an empty ID; renumber
// gives the entries new IDs on every read (a host that derives IDs from positions or
// regenerates them).
type idMangler struct {
	taskboard.SessionReader
	mode  string
	mu    sync.Mutex
	reads int
}

func (m *idMangler) Messages(ctx context.Context, id string, limit int) ([]taskboard.TranscriptEntry, error) {
	es, err := m.SessionReader.Messages(ctx, id, limit)
	m.mu.Lock()
	m.reads++
	n := m.reads
	m.mu.Unlock()
	for i := range es {
		switch m.mode {
		case "blank":
			es[i].ID = ""
		case "renumber":
			es[i].ID = "read" + strconv.Itoa(n) + "-" + strconv.Itoa(i)
		}
	}
	return es, err
}

// TestResumedRunNeverTakesThePreviousAnswer: a task finishes with "old answer", is
// acknowledged and resumed with task(); the host reports the resumed session idle before
// the new run wrote any answer. Whatever the host's transcript IDs look like, the previous
// run's answer is never committed as the resumed run's result: a host whose entries have
// no IDs is refused at the boundary (the resume changes nothing and says why), and a host
// whose IDs change between reads leaves the run running (its answer cannot be attributed).
func TestResumedRunNeverTakesThePreviousAnswer(t *testing.T) {
	tests := []struct {
		name       string
		mode       string
		wantResume string // "" resumes; otherwise the refusal's text
	}{
		{name: "stable_ids", mode: ""},
		{name: "empty_ids_refused", mode: "blank", wantResume: "has no ID"},
		{name: "ids_change_between_reads", mode: "renumber"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				host := taskboardtest.New(taskboard.FlavorV1, nil)
				h := host.Host()
				h.Sessions = &idMangler{SessionReader: h.Sessions, mode: tc.mode}
				d, err := taskboard.NewDriver(h, taskboard.Options{NoReconciliation: true})
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				ctx, me := context.Background(), taskboard.Caller{SessionID: "orch", Agent: "orchestrator"}
				d.Manage("orch")

				plan, _ := d.Task(ctx, me, taskboard.TaskCall{Agent: "explorer", Description: "find it", Background: true})
				host.Start("ses_1", "orch", "find it")
				if _, err := d.FinishTask(plan, taskboard.LaunchObservation{TaskID: "ses_1", Background: true}); err != nil {
					t.Fatal(err)
				}
				d.Observe(host.Finish("ses_1", "old answer"))
				time.Sleep(time.Minute)
				synctest.Wait()
				rec := record(t, d, "ses_1")
				if rec.State != taskboard.StateCompleted || rec.ResultSummary != "old answer" {
					t.Fatalf("first run: %s %q", rec.State, rec.LastStatusError)
				}
				gen1 := rec.Generation
				// Acknowledge the result so that task() may resume the task.
				if _, err := d.View("orch"); err != nil {
					t.Fatal(err)
				}
				d.Observe(taskboard.HostEvent{Kind: taskboard.EventParentIdle, SessionID: "orch"})
				time.Sleep(time.Minute)
				synctest.Wait()

				plan, err = d.Task(ctx, me, taskboard.TaskCall{Agent: "explorer", Ref: "ses_1"})
				if tc.wantResume != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantResume) || !errors.Is(err, taskboard.ErrHost) {
						t.Fatalf("resume: err %v, want ErrHost naming %q", err, tc.wantResume)
					}
					// task_revive refuses the same way, before sending anything.
					_, err = d.Revive(ctx, me, "ses_1", "and the tests")
					if err == nil || !strings.Contains(err.Error(), tc.wantResume) || len(host.Prompts("ses_1")) != 0 {
						t.Fatalf("revive: err %v, prompts %v", err, host.Prompts("ses_1"))
					}
					if rec := record(t, d, "ses_1"); rec.Generation != gen1 || rec.EffectiveState() != taskboard.StateCompleted {
						t.Fatalf("a refused resume changed the record: %+v", rec)
					}
					return
				}
				if err != nil || plan.Kind != "resume" {
					t.Fatalf("resume: %+v %v", plan, err)
				}
				host.Start("ses_1", "orch", "and the tests")
				res, err := d.FinishTask(plan, taskboard.LaunchObservation{TaskID: "ses_1", Background: true})
				if err != nil || res.State != taskboard.StateRunning {
					t.Fatalf("resumed: %+v %v", res, err)
				}
				gen := record(t, d, "ses_1").Generation
				host.SetBusy("ses_1", false) // idle, but the new run wrote no answer yet
				d.Observe(taskboard.HostEvent{Kind: taskboard.EventIdle, SessionID: "ses_1", Generation: &gen})
				time.Sleep(time.Minute)
				synctest.Wait()
				rec = record(t, d, "ses_1")
				if rec.State == taskboard.StateCompleted || rec.ResultSummary == "old answer" {
					t.Fatalf("the resumed run took the previous answer: %s %q", rec.State, rec.ResultSummary)
				}
			})
		})
	}
}

func record(t *testing.T, d *taskboard.Driver, id string) taskboard.Record {
	t.Helper()
	var r taskboard.Record
	var ok bool
	d.Do("orch", func(b *taskboard.Board) { r, ok = b.Get(id) })
	if !ok {
		t.Fatalf("no record %s", id)
	}
	return r
}
