package taskboard

import "time"

// messageQueued is the only success status of task_message: the write was queued in the
// transcript; it proves nothing about the task having read it.
const messageQueued string = "queued"

// Tool arguments, as the step machines receive them from the Driver methods.
type (
	statusArgs  struct{ Ref string }
	resultArgs  struct{ Ref string }
	messageArgs struct{ Ref, Text string }
	cancelArgs  struct{ Ref, Reason string }
	reviveArgs  struct{ Ref, Prompt string }
)

// StatusResult is task_status's answer.
type StatusResult struct {
	TaskID, Alias, Agent           string
	State                          string // live value, or "<board state> (unconfirmed)"
	Source                         string // "live" (read from the host) or "board"
	LastActivityAt                 time.Time
	IdleForSeconds                 int64
	PossiblyStuck, StatusUncertain bool
	LastStatusError                string
}

// ResultOutput is task_result's answer: the final text, or Running with the live status.
type ResultOutput struct {
	TaskID, Text string
	State        State
	Running      bool
	Live         LiveStatus
	Generation   uint64
}

// MessageResult is task_message's answer.
type MessageResult struct {
	TaskID, Alias, Status string
	LeaseRetained         bool // a transport timeout: the lease stays until the write settles
}

// CancelResult is task_cancel's answer.
type CancelResult struct {
	TaskID, Reason string
	State          string // "unknown", or the task's state after the call
	Message        string // the note of an unknown outcome, the error text of a failed one
}

// ReviveResult is task_revive's answer.
type ReviveResult struct {
	TaskID               string
	Generation           uint64
	State                State
	Status               string // "started", "admission_unknown", or the state a fast run reached
	StatusUncertain      bool
	Observation, Summary string
	Failed               bool // Summary is an error block
}
