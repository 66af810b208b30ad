// Package taskboard is the job board an orchestrating agent uses to run background
// sub-agent tasks: launch and resume, status, results, messages to a running task,
// cancellation, revival of a finished session, and "wait for the user".
//
// Use it when a host lets one agent session start other sessions in the background and
// must answer, at any moment and under late, duplicated or lost host replies, "which run
// of this task is current, who may act on it, and what may the model be told". Do not use
// it as a scheduler or a queue: it never starts work by itself, keeps no timers in its
// core, and persists nothing.
//
// # Using it from a host
//
// A host wires its runtime into a [Host] (abort, prompt and transcript reads, plus the
// status map of a v1 host or the idle waiter of a v2 host), builds a [Board] and a
// [Driver], and calls the driver from its tool handlers. A launch, as a call order:
//
//	Driver.Task (before the host launches) → host launches → Driver.FinishTask
//	  → Driver.Observe(EventIdle) … completed → Driver.Result
//
// A task is complete when the host reports its session idle and the newest assistant
// entry of the current run is finished (its text is the result; an error entry makes the
// task fail). Entries from before a resume never count for the resumed run. The package
// taskboard/taskboardtest is an in-memory host for tests; the package Example uses it.
//
// # Layers
//
// The package has three layers (pure core, sans-IO protocols, thin driver):
//
//   - [Board]: a pure, deterministic value. It holds job records ([Record]), aliases,
//     parent/child links, generations, live leases ([Lease]), tombstones and deletion
//     epochs, and the wait-for-user latches. It performs no I/O, starts no goroutines and
//     reads time only from an injected [Clock]. It is not safe for concurrent use. Its
//     memory is bounded by the retention caps ([Options].MaxReusablePerAgent,
//     MaxTombstones), not by the history of the process.
//   - Step machines (internal to the package): sans-IO protocols for the tools (task_cancel,
//     task_message, task_revive with its compensation, notifications, task_status,
//     task_result, reconciliation). They read the board, return host calls as commands and
//     consume host replies and timer firings as events.
//   - [Driver]: a thin runner that performs the machines' host calls against the host
//     interfaces, each with a context cancelled at Timing.HostCallDeadline, under one
//     mutex around the board. Subscribers receive notices in emission order, one at a
//     time, and never after [Driver.Close] returns; after Close every method returns
//     [ErrClosed] and changes nothing.
//
// # Life cycle
//
// A task's life on the board, as a grammar:
//
//	launch registration → running {live busy | status uncertain | stop candidate}
//	  → terminal commit (completed | error | cancelled | stopped)
//	  → reconciled (acknowledged) → [launch registration with a relaunch lease → running …]
//	  | Drop | ClearParent | host deletion | retention eviction → tombstone
//
// and a lease's:
//
//	acquire → [hand-over caller → admission → compensation] → release (exact token)
//
// # Generations and fencing
//
// Every launch registration draws the next value of one board-wide generation counter.
// Every mutation names the generation (and, for acknowledgements and notifications, the
// terminal revision) it was computed for; a mismatch is a no-op that emits nothing
// (the board reports it as stale). A late reply from an old run can therefore never touch a newer run.
// Only a launch registration (the driver's FinishTask, or an adoption) creates a record; a
// tombstoned task is never brought back by a late completion, status or busy event.
//
// # Leases
//
// At most one lease is live per task ID, whatever its kind ([LeaseCancellation],
// [LeaseMessage], [LeaseRelaunch], [LeaseNotification]); tokens are never reused. A lease
// ends when its holder releases it with the exact token, which happens
// when the host call it protects settles (returns, with any error). There is no TTL, and
// deleting a record never retires its lease. The driver cancels each host call's context at
// Timing.HostCallDeadline; a call that then returns settles as usual, but one that ignores
// cancellation keeps its lease and its task ID stays excluded. [Board.LiveLease] and
// [Board.LiveLeases] describe every live lease (without its token), its owner and why it
// is held; the "lease unavailable" refusals say the same. [Board.ForceRelease] is the one
// audited way for an operator to break such a lease: it records who and why, and the old
// holder's later settlement is rejected as stale (the risk: the abandoned call may still
// act on the session). Compensation is not a kind: it is a relaunch lease handed to
// [OwnerCompensation].
//
// # Fencing launches
//
// A [TaskPlan] remembers the board state it was made in. [Board.FinishTask] for a spawn
// whose record was registered after the plan (a launch event, or a replayed after-hook) is
// the same run: metadata is merged, the generation and the run count stay, an unread
// result is kept. An output for a run that is no longer current is refused with [ErrStale]
// and changes nothing.
//
// # Records, views and notices
//
// Records are returned as value copies. [Board.View] renders the orchestrator's prompt
// section (Running, Needs acknowledgement, Reusable, Retained/Recovery) and lists the
// entries a later parent idle acknowledges. Terminal transitions, launches and lease
// releases are queued as [Notice] values; the driver hands them to its subscribers
// outside its lock.
//
// # Errors
//
// Refusals are *[ToolError] values: Kind is a sentinel usable with errors.Is
// ([ErrLeaseHeld], [ErrStaleLease], [ErrTombstoned], [ErrExists] for the board
// primitives; [ErrUnknownTask], [ErrNotRunning], [ErrTimeout] … for the tools) and Message
// is the exact model-facing text.
//
// # Choices where the specification is silent
//
//   - A cancelled terminal commit takes its summary as the reason:
//     "" gives "cancelled", "x" gives "cancelled: x", a text already starting with
//     "cancelled" is kept (whitespace collapsed).
//   - A relaunch clears FallbackRecovering (it describes the previous run); the host sets
//     it again if the new run falls back.
//   - [Board.Drop] of an ID without a record does not tombstone it.
//   - A launch registration emits a Launched notice for every new run (a new record or a
//     relaunch), not for a PreserveRun observation; a PreserveRun merge that changes the
//     agent runs the retention trim for the record's new pool.
//   - Adopting a terminal session records it unacknowledged (terminal revision 1)
//     without a Terminal notice.
//   - Under "Needs acknowledgement" the result line is always printed (possibly empty).
//   - A reusable record that read context files gets a line "  context: <path> (<n>
//     lines), …" with at most 8 files, most recently read first; a reconciled record
//     that timed out is listed under Retained/Recovery, not Reusable, as its label says.
//   - A cancelled commit keeps StatusUncertain, as the terminal-publication rules list no
//     change to it: a task whose first abort timed out and whose second cancel was verified
//     reads "cancelled, status uncertain" and cannot be revived until the parent
//     acknowledges the result (the acknowledgement clears the uncertainty). A revive of a
//     running, uncertain task therefore cancels it and then refuses; the caller revives after
//     the acknowledgement.
//
// # Security Considerations
//
// The board touches no files, network or processes. Descriptions, results and agent names
// come from models and hosts and are escaped (&lt; &gt; &amp;) in [Board.View], so a task
// cannot close the prompt section it is shown in.
package taskboard
