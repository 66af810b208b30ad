package taskboard

import (
	"slices"
	"unicode/utf8"
)

// Wait states.
const (
	waitStateWaiting string = "waiting_for_user"
	waitStateSkipped string = "waiting_for_user_skipped"
)

// WaitResult is wait_for_user's answer.
type WaitResult struct {
	State            string
	Protocol, Reason string
	Skipped          bool
}

// waitForUser is the wait_for_user tool: orchestrator only (an unmanaged session
// whose agent is an orchestrator agent is managed first); the reason is collapsed to single
// spaces and must be 1–500 characters. With Options.WaitGuard and outstanding children it
// answers waiting_for_user_skipped without arming; otherwise it arms the session's latch,
// which only a new real user message (a user-message event reported to [Driver.Observe])
// or a genuine deletion clears.
//
// Errors: ErrInvalidArgs, ErrNotOrchestrator, ErrUnmanaged (all *ToolError).
func (b *Board) waitForUser(c Caller, reason string) (WaitResult, error) {
	if c.SessionID != "" && !b.isManaged(c.SessionID) && slices.Contains(b.opts.OrchestratorAgents, c.Agent) {
		b.manage(c.SessionID)
	}
	if err := guardCaller(b, toolWaitForUser, c, true); err != nil {
		return WaitResult{}, err
	}
	r := collapseSpace(reason)
	if r == "" {
		return WaitResult{}, toolErr(ErrInvalidArgs, "wait_for_user requires a non-empty reason")
	}
	if utf8.RuneCountInString(r) > MaxWaitReasonChars {
		return WaitResult{}, toolErr(ErrInvalidArgs, "wait_for_user reason must be at most 500 characters")
	}
	if b.opts.WaitGuard && (b.hasRunning(c.SessionID) || b.hasTerminalUnreconciled(c.SessionID)) {
		return WaitResult{State: waitStateSkipped, Reason: r, Skipped: true}, nil
	}
	b.armWait(c.SessionID)
	return WaitResult{State: waitStateWaiting, Protocol: b.opts.WaitProtocol, Reason: r}, nil
}
