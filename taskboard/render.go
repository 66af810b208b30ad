package taskboard

import (
	"fmt"
	"strings"
)

// The Render methods give the exact model-facing text of each tool result. The text
// is prose pinned by golden files (testdata/render/*.golden); the result structs and the
// error kinds are the contract.

// timeLayout is RFC 3339 in UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// Render gives task()'s output.
func (r TaskLaunchResult) Render() string {
	return fmt.Sprintf("task_id: %s\nalias: %s\nstate: %s", r.TaskID, r.Alias, r.State)
}

// Render gives task_status's text.
func (r StatusResult) Render() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Task %s (%s)\n", r.Alias, r.TaskID)
	fmt.Fprintf(&sb, "state: %s\n", r.State)
	fmt.Fprintf(&sb, "source: %s\n", r.Source)
	fmt.Fprintf(&sb, "agent: %s\n", r.Agent)
	fmt.Fprintf(&sb, "last_activity_at: %s\n", r.LastActivityAt.UTC().Format(timeLayout))
	fmt.Fprintf(&sb, "idle_for_seconds: %d\n", r.IdleForSeconds)
	fmt.Fprintf(&sb, "possibly_stuck: %t", r.PossiblyStuck)
	if r.StatusUncertain {
		fmt.Fprintf(&sb, "\nstatus_uncertain: true\nlast_status_error: %s", r.LastStatusError)
	}
	return sb.String()
}

// Render gives task_result's text.
func (r ResultOutput) Render() string {
	if r.Running {
		live := r.Live
		if live != LiveRetry {
			live = LiveStatus(StateRunning)
		}
		return fmt.Sprintf("task_id: %s\nstate: %s\nTask is still running. Wait for its terminal result.\nNext: use task_status to check progress, or task_cancel if it is obsolete.", r.TaskID, live)
	}
	return fmt.Sprintf("task_id: %s\nstate: %s\ngeneration: %d\n\n<task_result>\n%s\n</task_result>", r.TaskID, r.State, r.Generation, r.Text)
}

// Render gives task_message's text ("queued": nothing proves it was read).
func (r MessageResult) Render() string {
	return fmt.Sprintf("Message queued for %s (%s) without launching or resuming it.", r.Alias, r.TaskID)
}

// Render gives task_cancel's text.
func (r CancelResult) Render() string {
	switch {
	case r.State == string(StateCancelled) && r.Message == "":
		block := "cancelled"
		if r.Reason != "" {
			block += ": " + r.Reason
		}
		return fmt.Sprintf("task_id: %s\nstate: cancelled\n<task_error>%s</task_error>", r.TaskID, block)
	case r.State == cancelUnknown:
		return fmt.Sprintf("task_id: %s\nstate: unknown\n%s", r.TaskID, r.Message)
	}
	return fmt.Sprintf("task_id: %s\nstate: %s\nerror: %s", r.TaskID, r.State, r.Message)
}

// admissionUnknownText is the note of a revive whose admission is still pending.
const admissionUnknownText = "The host may have accepted the prompt. Admission is still pending; do not retry task_revive. Use task_status to inspect the session."

// Render gives task_revive's text.
func (r ReviveResult) Render() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "task_id: %s\ngeneration: %d\nstate: %s\nstatus: %s", r.TaskID, r.Generation, r.State, r.Status)
	if r.Status == reviveAdmissionUnknown {
		sb.WriteString("\n" + admissionUnknownText)
		return sb.String()
	}
	if r.StatusUncertain {
		fmt.Fprintf(&sb, "\nstatus_uncertain: true\nobservation: %s", r.Observation)
	}
	if r.Summary != "" {
		tag := "task_result"
		if r.Failed {
			tag = "task_error"
		}
		fmt.Fprintf(&sb, "\n<%s>\n%s\n</%s>", tag, r.Summary, tag)
	}
	return sb.String()
}

// Render gives wait_for_user's text.
func (r WaitResult) Render() string {
	if r.Skipped {
		return fmt.Sprintf("state: %s\nreason: %s\n\nBackground tasks are still outstanding for this session. Do not block on manual input; end this turn now. The system resumes automatically when the background tasks complete.", r.State, r.Reason)
	}
	return fmt.Sprintf("state: %s\nprotocol: %s\nreason: %s\n\nEnd this turn now. Do not call more tools until the user responds.", r.State, r.Protocol, r.Reason)
}

// renderLeases renders the live-lease inspection, one line per lease ("no live leases"
// when there is none), for logs and demos.
func renderLeases(b *Board) string {
	infos := b.LiveLeases()
	if len(infos) == 0 {
		return "no live leases"
	}
	lines := make([]string, len(infos))
	for i, in := range infos {
		lines[i] = in.String()
	}
	return strings.Join(lines, "\n")
}
