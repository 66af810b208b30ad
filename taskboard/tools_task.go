package taskboard

import (
	"fmt"
	"regexp"
	"strings"
)

// TaskCall is one call of the delegation tool (task / subagent) as the before-hook sees it.
// Ref is the optional task_id (resume). UntrackedRunningChild tells the hook that the host
// shows a running child this board does not track.
type TaskCall struct {
	Agent, Description, Objective, Ref string
	Background, UntrackedRunningChild  bool
	Flavor                             string
}

// TaskPlan is what the before-hook decided. A resume carries the relaunch lease, which
// [Board.FinishTask] or [Board.FailTask] releases.
type TaskPlan struct {
	Kind       string
	TaskID     string // the task to resume or adopt
	DroppedRef string // an unknown reference that was dropped for a fresh spawn
	Lease      *Lease
	// Agent, Description, Objective and Background are carried from the call for the
	// after-hook.
	Agent, Description, Objective string
	Background                    bool
	ParentID                      string
	// Baseline is the ID of the resumed session's last transcript entry when the plan was
	// made; the new run's result is looked for only after it. [Driver.Task] fills it; a
	// host calling [Board.PrepareTask] itself reads the transcript and sets it.
	Baseline string

	// planned is the board's generation counter when the plan was made: a record of a
	// later generation was registered for this launch after planning.
	planned uint64
}

// LaunchObservation is what the host's task output said: the task ID and whether the run
// is still going (TerminalState empty) or already finished (TerminalState completed,
// error, cancelled or stopped, with TerminalSummary as its result or error text).
type LaunchObservation struct {
	TaskID, Agent, Description, Objective string
	Background                            bool
	TerminalState                         State
	TerminalSummary                       string
}

// TaskLaunchResult is the after-hook's answer: "task_id: <id>" / "alias: <alias>" /
// "state: <state>".
type TaskLaunchResult struct {
	TaskID, Alias string
	State         State
}

var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// normObjective trims, collapses whitespace and case-folds an objective.
func normObjective(s string) string { return strings.ToLower(collapseSpace(s)) }

// PrepareTask is the before-hook of task(). Unmanaged callers get PlanSpawn
// unchanged. With a reference it resumes a reusable or recoverable record of the same
// agent (taking the relaunch lease), or refuses with a message saying what to do instead;
// an unknown random-UUID reference is dropped for a fresh spawn, an unknown ses_ ID on a v1
// host is an adoption candidate. New spawns are refused when the same objective already
// finished and its result was not read.
//
// Errors: ErrRefused, ErrLeaseUnavailable, ErrDuplicate (all *ToolError).
func (b *Board) PrepareTask(c Caller, in TaskCall) (TaskPlan, error) {
	plan := TaskPlan{Kind: PlanSpawn, Agent: in.Agent, Description: in.Description,
		Objective: in.Objective, Background: in.Background, ParentID: c.SessionID, planned: b.nextGen}
	if !b.Managed(c.SessionID) {
		return plan, nil
	}
	ref := strings.TrimSpace(in.Ref)
	if ref != "" {
		if in.Agent == "" {
			return plan, toolErr(ErrRefused, fmt.Sprintf("Task %s: task() requires a valid subagent_type with an explicit task_id. The task_id was not dropped; no new session was created.", ref))
		}
		if r, ok := b.Resolve(c.SessionID, ref); ok {
			return b.prepareKnown(plan, r, in)
		}
		switch {
		case uuidShape.MatchString(ref):
			plan.DroppedRef = ref
		case sessionShaped(ref) && in.Flavor != FlavorV2 && !b.Tombstoned(ref) && !foreignRecord(b, c, ref):
			plan.Kind, plan.TaskID = PlanAdoptCandidate, ref
			return plan, nil
		case in.UntrackedRunningChild:
			return plan, toolErr(ErrRefused, fmt.Sprintf("Unknown task ID or alias: %s. The board may have lost its mapping for a running child; task() will not silently spawn a duplicate. Use task_status or task_revive with the session ID.", ref))
		default:
			plan.DroppedRef = ref
		}
	}
	// A new spawn: refuse a duplicate of a finished, unread objective.
	want := normObjective(in.Objective)
	if want != "" {
		for _, r := range b.Records(c.SessionID) {
			if r.TerminalUnreconciled && r.Agent == in.Agent && normObjective(r.Objective) == want &&
				!r.LastUsedAt.After(r.CompletedAt) {
				return plan, toolErr(ErrDuplicate, fmt.Sprintf("A background task with the same objective already finished (%s / %s, %s). Call task_result with task_id: %q before launching it again.", r.Alias, r.TaskID, r.State, r.TaskID))
			}
		}
	}
	return plan, nil
}

func (b *Board) prepareKnown(plan TaskPlan, r Record, in TaskCall) (TaskPlan, error) {
	sameAgent := r.Agent == in.Agent
	switch {
	case sameAgent && (r.Reusable(b.opts.MaxContextLines) || r.Recoverable()):
		l, ok := b.acquire(LeaseRelaunch, r.TaskID, r.Generation, nil)
		if !ok {
			return plan, leaseUnavailable(b, r.TaskID, fmt.Sprintf("Task %s cannot be resumed safely: its current generation is already owned by another lifecycle operation. Do not launch a duplicate with the same task_id.", r.Alias))
		}
		b.markUsed(r.ParentID, r.TaskID)
		plan.Kind, plan.TaskID, plan.Lease = PlanResume, r.TaskID, &l
		return plan, nil
	case r.State == StateRunning:
		return plan, toolErr(ErrRefused, fmt.Sprintf("Task %s is still running and cannot be resumed or amended with task(). Use task_message to add information, task_status to inspect it, or task_cancel if it is obsolete. No new session was created.", r.Alias))
	case !sameAgent:
		return plan, toolErr(ErrRefused, fmt.Sprintf("Task %s / %s: agent is %s, not %s. No new session was created.", r.Alias, r.TaskID, r.Agent, in.Agent))
	case r.State == StateStopped:
		ack := "acknowledged"
		if r.TerminalUnreconciled {
			ack = "unreconciled"
		}
		return plan, toolErr(ErrRefused, fmt.Sprintf("Task %s / %s: stopped, %s; task() cannot resume this session. Use task_revive with task_id: %q. No new session was created.", r.Alias, r.TaskID, ack, r.TaskID))
	case r.TerminalUnreconciled:
		return plan, toolErr(ErrRefused, fmt.Sprintf("Task %s / %s: %s, cannot resume until acknowledgement. Use task_revive now, or wait for acknowledgement and call task() again. No new session was created.", r.Alias, r.TaskID, r.State))
	}
	return plan, toolErr(ErrRefused, fmt.Sprintf("Task %s / %s: %s. Use task_revive with a new prompt. No new session was created.", r.Alias, r.TaskID, label(r)))
}

// FinishTask is the after-hook of task(): it registers the launch (with the plan's
// relaunch lease when resuming), commits a terminal observation, releases the plan's lease
// and returns the result. Every launch is fenced against the state the plan was made in:
//
//   - a spawn whose record was registered after the plan (by a launch event, or by an
//     earlier FinishTask of the same plan replayed) is the same run: the metadata is merged,
//     the generation stays, no second run is counted and an unread result is kept;
//   - an output for a run that is no longer current (the record was relaunched since, or
//     the resume's generation moved on) changes nothing and returns ErrStale naming the
//     generation.
//
// A resumed run's evidence is read only after TaskPlan.Baseline.
func (b *Board) FinishTask(p TaskPlan, obs LaunchObservation) (TaskLaunchResult, error) {
	defer b.FailTask(p)
	id := obs.TaskID
	if id == "" {
		id = p.TaskID
	}
	agent, desc, obj := firstNonEmpty(obs.Agent, p.Agent), firstNonEmpty(obs.Description, p.Description), firstNonEmpty(obs.Objective, p.Objective)
	if p.Kind == PlanResume && p.Lease != nil {
		if r, ok := b.Get(id); !ok || r.Generation != p.Lease.Generation || !b.validate(*p.Lease) {
			return TaskLaunchResult{}, toolErr(ErrStale, fmt.Sprintf("Task %s: this output is for generation %d, which is no longer current; the output was ignored.", id, p.Lease.Generation))
		}
	} else if r, ok := b.records[id]; ok && r.Generation > p.planned {
		if r.TaskGeneration > 1 {
			return TaskLaunchResult{}, toolErr(ErrStale, fmt.Sprintf("Task %s: this output is for its first run, but generation %d is current; the output was ignored.", id, r.Generation))
		}
		return b.mergeLaunch(r, obs, agent, desc, obj)
	}
	r, err := b.registerLaunch(launchInput{TaskID: id, ParentID: p.ParentID, Agent: agent,
		Description: desc, Objective: obj, Background: obs.Background || p.Background, Lease: p.Lease,
		BaselineMessageID: p.Baseline})
	if err != nil {
		return TaskLaunchResult{}, err
	}
	if obs.TerminalState != "" {
		r, _ = b.commitTerminal(commitInput{TaskID: id, Generation: r.Generation, State: obs.TerminalState, Summary: obs.TerminalSummary, ObservedAt: b.Now()})
		b.markReconciled(id, r.Generation, r.TerminalRevision)
		r, _ = b.Get(id)
	}
	return TaskLaunchResult{TaskID: r.TaskID, Alias: r.Alias, State: r.EffectiveState()}, nil
}

// mergeLaunch folds a second report of the run r into it: metadata only, and a terminal
// output commits only while the run is still running.
func (b *Board) mergeLaunch(r *Record, obs LaunchObservation, agent, desc, obj string) (TaskLaunchResult, error) {
	if agent != "" && r.Agent == "" {
		r.Agent = agent
	}
	if r.Description == "" || r.Description == "background "+r.Agent+" task" {
		r.Description = firstNonEmpty(desc, r.Description)
	}
	if r.Objective == "" {
		r.Objective = obj
	}
	if obs.Background {
		r.Background = true
	}
	if obs.TerminalState != "" && r.State == StateRunning {
		c, _ := b.commitTerminal(commitInput{TaskID: r.TaskID, Generation: r.Generation, State: obs.TerminalState, Summary: obs.TerminalSummary, ObservedAt: b.Now()})
		b.markReconciled(r.TaskID, c.Generation, c.TerminalRevision)
	}
	out, _ := b.Get(r.TaskID)
	return TaskLaunchResult{TaskID: out.TaskID, Alias: out.Alias, State: out.EffectiveState()}, nil
}

// FailTask releases the plan's relaunch lease after a host or handler error. It is
// safe to call more than once.
func (b *Board) FailTask(p TaskPlan) {
	if p.Lease != nil {
		b.release(*p.Lease)
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
