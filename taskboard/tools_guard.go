package taskboard

import (
	"regexp"
	"slices"
	"strings"
)

// Caller identifies who calls a tool: the caller's session (the parent of the tasks it
// launches) and its agent name ("" when the host does not say).
type Caller struct{ SessionID, Agent string }

// Tool names as the model sees them.
const (
	toolTask        = "task"
	toolStatus      = "task_status"
	toolResult      = "task_result"
	toolMessage     = "task_message"
	toolCancel      = "task_cancel"
	toolRevive      = "task_revive"
	toolWaitForUser = "wait_for_user"
)

// guardCaller applies the caller's session and orchestrator checks. Orchestrator-only tools also
// need the caller's agent to be an orchestrator agent (or unset) and the session managed.
func guardCaller(b *Board, tool string, c Caller, orchestratorOnly bool) *ToolError {
	if c.SessionID == "" {
		return toolErr(ErrInvalidArgs, tool+" requires sessionID")
	}
	if !orchestratorOnly {
		return nil
	}
	if c.Agent != "" && !slices.Contains(b.options().OrchestratorAgents, c.Agent) {
		return toolErr(ErrNotOrchestrator, tool+" can only be used by orchestrator")
	}
	if !b.isManaged(c.SessionID) {
		return toolErr(ErrUnmanaged, tool+" can only be used in orchestrator sessions")
	}
	return nil
}

// guardRef applies the reference check.
func guardRef(tool, ref string) *ToolError {
	if strings.TrimSpace(ref) == "" {
		return toolErr(ErrInvalidArgs, tool+" requires task_id")
	}
	return nil
}

// TaskRef merges a tool's task_id and its alias sessionID: "" when both are empty, an
// ErrInvalidArgs refusal when they differ.
func TaskRef(tool, taskID, sessionID string) (string, error) {
	taskID, sessionID = strings.TrimSpace(taskID), strings.TrimSpace(sessionID)
	switch {
	case taskID == "":
		return sessionID, nil
	case sessionID == "" || sessionID == taskID:
		return taskID, nil
	}
	return "", toolErr(ErrInvalidArgs, tool+": task_id and sessionID disagree")
}

var aliasShape = regexp.MustCompile(`^[a-z0-9]{1,3}-[0-9]+$`)

// sessionShaped reports a reference that names a host session rather than an alias.
func sessionShaped(ref string) bool { return strings.HasPrefix(ref, "ses_") }

// foreignRecord reports whether ref is the exact task ID of a record under another parent.
func foreignRecord(b *Board, c Caller, ref string) bool {
	r, ok := b.Get(ref)
	return ok && r.ParentID != c.SessionID
}
