package taskboardtest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

var t0 = time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)

func TestHostBehaviour(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	tests := []struct {
		name string
		run  func(t *testing.T, h *taskboardtest.Host)
	}{
		{"start_finish_transcript_and_idle", func(t *testing.T, h *taskboardtest.Host) {
			h.Start("ses_1", "orch", "go")
			if !h.Busy("ses_1") {
				t.Fatal("started session not busy")
			}
			ev := h.Finish("ses_1", "done")
			if ev.Kind != taskboard.EventIdle || ev.SessionID != "ses_1" || h.Busy("ses_1") {
				t.Fatalf("event %+v busy %t", ev, h.Busy("ses_1"))
			}
			es, err := h.Messages(ctx, "ses_1", 0)
			if err != nil || len(es) != 2 || es[0].Text != "go" || !es[1].Finished || es[1].Text != "done" || es[1].Role != "assistant" || es[1].ID == es[0].ID {
				t.Fatalf("transcript %+v %v", es, err)
			}
			info, err := h.Session(ctx, "ses_1")
			if err != nil || info.ParentID != "orch" || !info.IdleAt.Equal(t0) {
				t.Fatalf("info %+v %v", info, err)
			}
		}},
		{"fail_writes_error_entry", func(t *testing.T, h *taskboardtest.Host) {
			h.Start("ses_1", "orch", "go")
			h.Fail("ses_1", "quota")
			if es := h.Transcript("ses_1"); len(es) != 2 || es[1].Error != "quota" {
				t.Fatalf("transcript %+v", es)
			}
		}},
		{"abort_idles_and_counts", func(t *testing.T, h *taskboardtest.Host) {
			h.Start("ses_1", "orch", "go")
			ok, err := h.Abort(ctx, "ses_1")
			if !ok || err != nil || h.Busy("ses_1") || h.Aborts("ses_1") != 1 {
				t.Fatalf("abort %t %v busy %t", ok, err, h.Busy("ses_1"))
			}
			if _, err := h.Abort(ctx, "ses_x"); !errors.Is(err, taskboardtest.ErrUnknownSession) {
				t.Fatalf("unknown session: %v", err)
			}
		}},
		{"prompt_starts_turn_enqueue_does_not", func(t *testing.T, h *taskboardtest.Host) {
			h.Start("ses_1", "orch", "go")
			h.SetBusy("ses_1", false)
			if err := h.Enqueue(ctx, "ses_1", taskboard.Message{Text: "note"}); err != nil || h.Busy("ses_1") {
				t.Fatalf("enqueue %v busy %t", err, h.Busy("ses_1"))
			}
			if err := h.PromptAsync(ctx, "ses_1", taskboard.Message{Text: "go on"}); err != nil || !h.Busy("ses_1") {
				t.Fatalf("prompt %v busy %t", err, h.Busy("ses_1"))
			}
			if ps := h.Prompts("ses_1"); len(ps) != 1 || ps[0].Text != "go on" || len(h.Transcript("ses_1")) != 3 {
				t.Fatalf("prompts %+v transcript %+v", ps, h.Transcript("ses_1"))
			}
			snap, _ := h.Statuses(ctx)
			if snap["ses_1"] != taskboard.LiveBusy {
				t.Fatalf("status %+v", snap)
			}
		}},
		{"injected_failures_queue", func(t *testing.T, h *taskboardtest.Host) {
			h.Start("ses_1", "orch", "go")
			h.FailNext(taskboardtest.OpMessages, boom)
			h.FailNext(taskboardtest.OpMessages, boom)
			for i := range 3 {
				_, err := h.Messages(ctx, "ses_1", 10)
				if (i < 2) != errors.Is(err, boom) {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			if got := h.Calls(); len(got) != 3 || got[0] != "messages ses_1" {
				t.Fatalf("calls %v", got)
			}
		}},
		{"delay_honours_context", func(t *testing.T, h *taskboardtest.Host) {
			h.Start("ses_1", "orch", "go")
			h.Delay(taskboardtest.OpEnqueue, time.Hour)
			cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
			defer cancel()
			if err := h.Enqueue(cctx, "ses_1", taskboard.Message{Text: "x"}); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("delayed enqueue: %v", err)
			}
			if len(h.Transcript("ses_1")) != 1 {
				t.Fatal("a cancelled write changed the transcript")
			}
		}},
		{"wait_idle_returns_on_idle", func(t *testing.T, h *taskboardtest.Host) {
			h.Start("ses_1", "orch", "go")
			done := make(chan error, 1)
			go func() { done <- h.WaitIdle(ctx, "ses_1") }()
			h.Finish("ses_1", "ok")
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}},
		{"delete_forgets", func(t *testing.T, h *taskboardtest.Host) {
			h.Start("ses_1", "orch", "go")
			if ev := h.Delete("ses_1"); ev.Kind != taskboard.EventDeleted {
				t.Fatalf("event %+v", ev)
			}
			if _, err := h.Session(ctx, "ses_1"); !errors.Is(err, taskboardtest.ErrUnknownSession) {
				t.Fatalf("deleted session: %v", err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, taskboardtest.New(taskboard.FlavorV1, taskboardtest.NewClock(t0)))
		})
	}
}

func TestHostCapabilitiesFollowFlavour(t *testing.T) {
	v1 := taskboardtest.New(taskboard.FlavorV1, nil).Host()
	v2 := taskboardtest.New(taskboard.FlavorV2, nil).Host()
	if v1.Status == nil || v1.Idle != nil || v2.Status != nil || v2.Idle == nil {
		t.Fatalf("v1 %+v, v2 %+v", v1, v2)
	}
}

func Example() {
	clock := taskboardtest.NewClock(time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC))
	h := taskboardtest.New(taskboard.FlavorV2, clock)
	h.Start("ses_1", "orch", "go")
	ev := h.Finish("ses_1", "the answer")
	es, _ := h.Messages(context.Background(), "ses_1", 10)
	last := es[len(es)-1]
	fmt.Println(ev.Kind, ev.SessionID, last.Role, last.Text, h.Busy("ses_1"))
	// Output: idle ses_1 assistant the answer false
}
