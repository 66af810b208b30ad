package taskboard

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/<name>.golden, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./taskboard -update to create it)", err)
	}
	if string(want) != got {
		t.Fatalf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestRenderGolden(t *testing.T) {
	at := time.Date(2026, 9, 1, 9, 30, 15, 250_000_000, time.UTC)
	tests := []struct {
		name string
		text string
	}{
		{name: "task_launch", text: TaskLaunchResult{TaskID: "ses_x", Alias: "exp-1", State: StateRunning}.Render()},
		{name: "status_live", text: StatusResult{TaskID: "ses_x", Alias: "exp-1", Agent: "explorer", State: "busy", Source: sourceLive,
			LastActivityAt: at, IdleForSeconds: 130, PossiblyStuck: true}.Render()},
		{name: "status_unconfirmed", text: StatusResult{TaskID: "ses_x", Alias: "exp-1", Agent: "explorer", State: "running (unconfirmed)",
			Source: sourceBoard, LastActivityAt: at, IdleForSeconds: 4, StatusUncertain: true, LastStatusError: "no live status entry for session"}.Render()},
		{name: "result_running", text: ResultOutput{TaskID: "ses_x", State: StateRunning, Running: true, Live: LiveRetry}.Render()},
		{name: "result_completed", text: ResultOutput{TaskID: "ses_x", State: StateCompleted, Generation: 3, Text: "Found 3 call sites."}.Render()},
		{name: "message_queued", text: MessageResult{TaskID: "ses_x", Alias: "exp-1", Status: messageQueued}.Render()},
		{name: "cancel_cancelled", text: CancelResult{TaskID: "ses_x", State: string(StateCancelled), Reason: "obsolete"}.Render()},
		{name: "cancel_unknown", text: CancelResult{TaskID: "ses_y", State: cancelUnknown, Message: "unknown or unowned background task"}.Render()},
		{name: "cancel_failed", text: CancelResult{TaskID: "ses_x", State: string(StateRunning),
			Message: "Session abort returned but task did not stay stopped: ses_x (busy)"}.Render()},
		{name: "revive_started", text: ReviveResult{TaskID: "ses_x", Generation: 4, State: StateRunning, Status: reviveStarted}.Render()},
		{name: "revive_completed", text: ReviveResult{TaskID: "ses_x", Generation: 4, State: StateCompleted,
			Status: string(StateCompleted), Summary: "Done: 2 files changed."}.Render()},
		{name: "revive_uncertain_error", text: ReviveResult{TaskID: "ses_x", Generation: 4, State: StateError,
			Status: string(StateError), StatusUncertain: true, Observation: "Task termination is unconfirmed.", Summary: "model overloaded", Failed: true}.Render()},
		{name: "revive_admission_unknown", text: ReviveResult{TaskID: "ses_x", Generation: 2, State: StateCompleted, Status: reviveAdmissionUnknown}.Render()},
		{name: "wait_armed", text: WaitResult{State: waitStateWaiting, Protocol: DefaultWaitProtocol, Reason: "need the deploy key"}.Render()},
		{name: "wait_skipped", text: WaitResult{State: waitStateSkipped, Reason: "need the deploy key", Skipped: true}.Render()},
		{name: "notify_text", text: notifyText("exp-1", "ses_x", StateCompleted)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, "render/"+tc.name, tc.text+"\n") })
	}
}
