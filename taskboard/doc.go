// Package taskboard is the job board an orchestrating agent uses to run background
// sub-agent tasks: launch and resume, status, results, messages to a running task,
// cancellation, revival of a finished session, and "wait for the user".
//
// Use it when a host lets one agent session start other sessions in the background and
// must answer, under late, duplicated or lost host replies, "which run of this task is
// current, who may act on it, and what may the model be told". It is not a scheduler or a
// queue: it never starts work by itself.
//
// # Using it from a host
//
// A host wires its runtime into a [Host], builds a [Driver] with [NewDriver], calls the
// driver's tool methods from its tool handlers and reports every host event to
// [Driver.Observe]. A launch, as a call order:
//
//	Driver.Task (before the host launches) → host launches → Driver.FinishTask
//	  → Driver.Observe(EventIdle) … completed → Driver.Result
//
// A task is complete when the host reports its session idle and the newest assistant
// entry of the current run is finished (its text is the result; an error entry makes it
// fail). Entries up to the last one before a resume never count for the resumed run, so a
// host must give every transcript entry a stable, non-empty ID: a resume of a session
// whose transcript has an entry without an ID is refused, and when the entry a resumed
// run started after is no longer in a read, that read is no evidence. The package
// taskboard/taskboardtest is an in-memory host and store for tests.
//
// # Layers
//
// [Board] is pure (no I/O, no goroutines, time only from [Options].Clock, memory bounded by
// the retention caps); unexported sans-IO step machines run each tool's protocol on it, and
// hosts reach it only inside [Driver.Do]. The [Driver] runs each host call in its own
// goroutine, with a context cancelled at [Timing].HostCallDeadline, by its protocol or by
// Close, and delivers replies and timers under one lock; a tool method returns when its
// protocol has an answer, and the protocol runs on until it has settled its leases.
// Subscribers, the logger and host calls run outside the lock and must not call Close.
// After [Driver.Close] every call, even one in progress, returns [ErrClosed] and changes
// nothing (FinishTask and FailTask still release the plan's lease; Observe ignores the
// event). [NewSharedDriver] shares the board among host processes through a
// taskboard/store.
//
// # Life cycle
//
//	launch → running {live busy | status uncertain | stop candidate}
//	  → completed | error | cancelled | stopped → reconciled (acknowledged)
//	  → [relaunch with a relaunch lease → running …]
//	  | Drop | ClearParent | host deletion | retention eviction → tombstone
//
//	lease: acquire → [caller → admission → compensation] → release (exact token)
//
// # Generations, leases and fencing
//
// Every launch draws the next generation. Every mutation names the generation (and, for
// acknowledgements and notifications, the terminal revision) it was computed for; a
// mismatch is a no-op, so a late reply from an old run never touches a newer one, and a
// tombstoned task is never brought back by a late completion, status or busy event. A
// [TaskPlan] remembers the board it was made on: a replayed after-hook merges into the
// run it reported instead of relaunching it.
//
// At most one lease is live per task ID, whatever its kind; tokens are never reused and
// never leave the package. A lease ends when the host call it protects settles (returns,
// with any error). There is no TTL, and deleting a record never retires its lease. A call
// that ignores its cancelled context keeps its lease; [Board.LiveLeases] says why each
// lease is held, and [Board.ForceRelease] is the one audited way for an operator to break
// one (the old holder's late settlement is then stale; the risk is that the abandoned call
// still acts on the session).
//
// Refusals are *[ToolError] values: Kind is a sentinel for errors.Is, Message the exact
// model-facing text.
//
// Choices where no rule applies: a cancelled commit ("cancelled[: reason]") keeps
// StatusUncertain, so it is revivable only once acknowledged; a relaunch clears
// FallbackRecovering; [Board.Drop] of an ID without a record tombstones nothing; every new
// run (not a metadata merge) emits a Launched notice; the view always prints the result
// line, lists up to 8 context files of a reusable record, and shows a reconciled record
// that timed out under Retained/Recovery.
//
// # Security Considerations
//
// The board touches no files, network or processes. Descriptions, results and agent names
// come from models and hosts and are escaped (&lt; &gt; &amp;) in [Driver.View], so a task
// cannot close the prompt section it is shown in.
package taskboard
