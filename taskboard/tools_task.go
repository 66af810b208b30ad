package taskboard

import (
	"fmt"
	"regexp"
	"strings"
)

// TaskCall is one call of the delegation tool (task or subagent); Ref is the task_id of a
// resume. UntrackedRunningChild: the host shows a running child this board does not track.
type TaskCall struct {
	Agent, Description, Objective, Ref string
	Background, UntrackedRunningChild  bool
	flavor                             Flavor
}

// TaskPlan is what the before-hook decided; a resume holds the relaunch lease.
type TaskPlan struct {
	Kind       string // "spawn", "resume", or "adopt_candidate" (the host may adopt the session)
	TaskID     string // the task to resume or adopt
	DroppedRef string // an unknown reference that was dropped for a fresh spawn
	lease      *leaseGrant
	// agent, description, objective and Background are carried from the call for the
	// after-hook.
	agent, description, objective string
	background                    bool
	parentID                      string
	// baseline is the ID of the resumed session's last transcript entry when the plan was
	// made; the new run's result is looked for only after it. [Driver.Task] fills it; a
	// host calling [Board.PrepareTask] itself reads the transcript and sets it.
	baseline string

	// planned is the board's generation counter when the plan was made: a record of a
	// later generation was registered for this launch after planning.
	planned uint64
}

// LaunchObservation is what the host's task output said.
type LaunchObservation struct {
	TaskID, Agent, Description, Objective string
	Background                            bool
	TerminalState                         State  // empty while the run goes on
	TerminalSummary                       string // the result or error text of a finished run
}

// TaskLaunchResult is the after-hook's answer.
type TaskLaunchResult struct {
	TaskID, Alias string
	State         State
}

var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// normObjective trims, collapses whitespace and case-folds an objective.
func normObjective(s string) string { return strings.ToLower(collapseSpace(s)) }

// prepareTask is the before-hook of task(). Unmanaged callers get planSpawn
// unchanged. With a reference it resumes a reusable or recoverable record of the same
// agent (taking the relaunch lease), or refuses with a message saying what to do instead;
// an unknown random-UUID reference is dropped for a fresh spawn, an unknown ses_ ID on a v1
// host is an adoption candidate. New spawns are refused when the same objective already
// finished and its result was not read.
//
// Errors: ErrRefused, ErrLeaseUnavailable, ErrDuplicate (all *ToolError).
func (b *Board) prepareTask(c Caller, in TaskCall) (TaskPlan, error) {
	plan := TaskPlan{Kind: planSpawn, agent: in.Agent, description: in.Description,
		objective: in.Objective, background: in.Background, parentID: c.SessionID, planned: b.nextGen}
	if !b.isManaged(c.SessionID) {
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
		case sessionShaped(ref) && in.flavor != FlavorV2 && !b.tombstoned(ref) && !foreignRecord(b, c, ref):
			plan.Kind, plan.TaskID = planAdoptCandidate, ref
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
	case sameAgent && (r.reusable(b.opts.MaxContextLines) || r.recoverable()):
		l, ok := b.acquire(leaseRelaunch, r.TaskID, r.Generation, nil)
		if !ok {
			return plan, leaseUnavailable(b, r.TaskID, fmt.Sprintf("Task %s cannot be resumed safely: its current generation is already owned by another lifecycle operation. Do not launch a duplicate with the same task_id.", r.Alias))
		}
		b.noteDispatch(l) // the host launches the resumed run itself: treat it as in flight
		b.markUsed(r.ParentID, r.TaskID)
		plan.Kind, plan.TaskID, plan.lease = planResume, r.TaskID, &l
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

// finishTask is the after-hook of task(): it registers the launch (with the plan's
// relaunch lease when resuming), commits a terminal observation, releases the plan's lease
// and returns the result. Every launch is fenced against the state the plan was made in:
//
//   - a spawn whose record was registered after the plan (by a launch event, or by an
//     earlier finishTask of the same plan replayed) is the same run: the metadata is merged,
//     the generation stays, no second run is counted and an unread result is kept;
//   - an output for a run that is no longer current (the record was relaunched since, or
//     the resume's generation moved on) changes nothing and returns ErrStale naming the
//     generation.
//
// A resumed run's evidence is read only after TaskPlan.Baseline.
func (b *Board) finishTask(p TaskPlan, obs LaunchObservation) (TaskLaunchResult, error) {
	defer b.failTask(p)
	id := obs.TaskID
	if id == "" {
		id = p.TaskID
	}
	agent, desc, obj := firstNonEmpty(obs.Agent, p.agent), firstNonEmpty(obs.Description, p.description), firstNonEmpty(obs.Objective, p.objective)
	if p.Kind == planResume && p.lease != nil {
		if r, ok := b.Get(id); !ok || r.Generation != p.lease.Generation || !b.validate(*p.lease) {
			return TaskLaunchResult{}, toolErr(ErrStale, fmt.Sprintf("Task %s: this output is for generation %d, which is no longer current; the output was ignored.", id, p.lease.Generation))
		}
	} else if r, ok := b.records[id]; ok && r.Generation > p.planned {
		if r.TaskGeneration > 1 {
			return TaskLaunchResult{}, toolErr(ErrStale, fmt.Sprintf("Task %s: this output is for its first run, but generation %d is current; the output was ignored.", id, r.Generation))
		}
		return b.mergeLaunch(r, obs, agent, desc, obj)
	}
	r, err := b.registerLaunch(launchInput{TaskID: id, ParentID: p.parentID, Agent: agent,
		Description: desc, Objective: obj, Background: obs.Background || p.background, Lease: p.lease,
		BaselineMessageID: p.baseline})
	if err != nil {
		return TaskLaunchResult{}, err
	}
	if obs.TerminalState != "" {
		r, _ = b.commitTerminal(commitInput{TaskID: id, Generation: r.Generation, State: obs.TerminalState, Summary: obs.TerminalSummary, ObservedAt: b.now()})
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
		c, _ := b.commitTerminal(commitInput{TaskID: r.TaskID, Generation: r.Generation, State: obs.TerminalState, Summary: obs.TerminalSummary, ObservedAt: b.now()})
		b.markReconciled(r.TaskID, c.Generation, c.TerminalRevision)
	}
	out, _ := b.Get(r.TaskID)
	return TaskLaunchResult{TaskID: out.TaskID, Alias: out.Alias, State: out.EffectiveState()}, nil
}

// failTask releases the plan's relaunch lease after a host or handler error. It is
// safe to call more than once.
func (b *Board) failTask(p TaskPlan) {
	if p.lease != nil {
		b.release(*p.lease)
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
