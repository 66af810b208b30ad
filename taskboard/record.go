package taskboard

import (
	"strings"
	"time"
)

// Record is a copy of one task's job record.
type Record struct {
	TaskID, ParentID, Agent, Alias, Description, Objective         string
	Background                                                     bool
	Origin                                                         string // "launched" or "adopted"
	Generation, TaskGeneration, TerminalRevision, ActivityRevision uint64
	State, TerminalState                                           State
	TerminalUnreconciled, StatusUncertain                          bool
	CancellationRequested, TimedOut                                bool
	RecoverableAfterLiveBusy, Provisional                          bool
	RecoveredWithoutPrompt, PluginLaunched                         bool
	QueuedContinuation, FallbackRecovering, Quarantined            bool
	DeferredError, ResultSummary, LastStatusError                  string
	BaselineMessageID                                              string // last transcript entry before this run; evidence reads look past it
	ForcedRelease                                                  string // audit line of the last Board.ForceRelease on this task
	TotalErrors, TimeoutCount                                      int
	contextFiles                                                   []contextFile
	LaunchedAt, LastLaunchedAt, RunStartedAt, UpdatedAt            time.Time
	LastLiveBusyAt, LastActivityAt                                 time.Time
	StatusUncertainSince, StopConfirmationStartedAt                time.Time
	CompletedAt, LastUsedAt, DeadlineExceededAt, LastErrorAt       time.Time
}

// contextFile is one file a task read, for the context budget.
type contextFile struct {
	Path       string
	Lines      int
	LastReadAt time.Time
}

// Context-file limits.
const (
	minContextFileLines  = 10 // files with fewer lines are ignored
	maxContextFilesKept  = 9
	maxContextFilesShown = 8
)

// Convergence thresholds of Record.Converging.
const convergeAfter = 3

func (r *Record) clone() Record {
	c := *r
	c.contextFiles = append([]contextFile(nil), r.contextFiles...)
	return c
}

// EffectiveState is the terminal state of a reconciled record, else State.
func (r Record) EffectiveState() State {
	if r.State == StateReconciled {
		return r.TerminalState
	}
	return r.State
}

// contextLines is the sum of the kept context files' line counts.
func (r Record) contextLines() int {
	n := 0
	for _, f := range r.contextFiles {
		n += f.Lines
	}
	return n
}

// reusable reports whether task() may resume the record (canonical terminal, acknowledged, certain, within maxContextLines).
func (r Record) reusable(maxContextLines int) bool {
	return r.reusableIgnoringBudget() && r.contextLines() <= maxContextLines
}

func (r Record) reusableIgnoringBudget() bool {
	return r.EffectiveState().canonical() && !r.TerminalUnreconciled && !r.StatusUncertain &&
		(r.State == StateReconciled || r.State.canonical())
}

// recoverable reports a running record that timed out and was later seen busy, with no
// deadline claim.
func (r Record) recoverable() bool {
	return r.State == StateRunning && r.RecoverableAfterLiveBusy && r.DeadlineExceededAt.IsZero()
}

// retainedStopped reports an acknowledged, certain stopped record.
func (r Record) retainedStopped() bool {
	return r.State == StateStopped && !r.TerminalUnreconciled && !r.StatusUncertain
}

// Revivable reports whether task_revive may continue the session: certain, and the
// effective state terminal (acknowledged or not).
func (r Record) Revivable() bool {
	return !r.StatusUncertain && r.EffectiveState().terminal()
}

// converging reports a task that has failed or timed out often enough (3) that relaunching
// it again is unlikely to help.
func (r Record) converging() bool {
	return r.TotalErrors >= convergeAfter || r.TimeoutCount >= convergeAfter
}

// deadlineClaimed reports whether the wall-clock supervisor claimed the run.
func (r *Record) deadlineClaimed() bool { return !r.DeadlineExceededAt.IsZero() }

var aliasPrefixes = map[string]string{
	"council": "cou", "designer": "des", "explorer": "exp", "fixer": "fix",
	"librarian": "lib", "observer": "obs", "oracle": "ora",
}

// aliasPrefix returns the alias prefix of an agent.
func aliasPrefix(agent string) string {
	a := strings.ToLower(strings.TrimSpace(agent))
	if p, ok := aliasPrefixes[a]; ok {
		return p
	}
	if a == "" {
		return "job"
	}
	rs := []rune(a)
	if len(rs) > 3 {
		rs = rs[:3]
	}
	return string(rs)
}

// collapseSpace trims s and replaces every whitespace run by one space.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
