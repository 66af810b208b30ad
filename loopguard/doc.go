// Package loopguard stops a model that keeps making the same tool call and getting the same
// result. A host asks the guard before each call whether it may run, and hands it each
// result afterwards; the guard appends a corrective notice to the result once a streak of
// identical results reaches 3, and refuses the next identical read, grep or glob once it
// reaches 5. It follows the tool-loop guard of the OpenCode plugin oh-my-opencode-slim
// 2.2.24, with the differences listed below.
//
// Use one [Guard] per process between a model and its tools, keyed by conversation. Do not
// use it to rate-limit tools or to detect loops that alternate between two calls: it only
// knows "this result is identical to the previous one".
//
// # Life cycle
//
// Per session:
//
//	{ UserMessage | Before (refused | After | Abandon) | Preview | EndTurn } EndSession
//
// Every [Call] names its session (the conversation) and its call id (the host's id for
// the call, the same at Before and After). Both are required: [Guard.Before],
// [Guard.Preview] and [Guard.After] return an error wrapping [ErrInvalidCall] for a call
// without them and record nothing, because such a call could never be counted and a guard
// fed only such calls would never fire.
//
// [Guard.Before] returns nil or a *[RefusedError]; an admitted call is remembered until
// its [Guard.After] (or [Guard.Abandon], for hosts that skip the after phase of failed
// calls). After returns a [Verdict] with the output to give the model. An After whose
// call Before never admitted (unknown, refused, abandoned, evicted, or of an ended
// session) changes nothing and returns the output unchanged.
//
// # What counts
//
// Identity is computed after the result is known: a call repeats the previous one when the
// lower-cased tool name, the arguments in [Canonical] form (object key order, spacing and
// number spelling ignored) and the output are all the same. A different result restarts
// the streak at 1, so re-reading a file after changing it is never blocked, and parallel
// calls count only as their results arrive: a call admitted by Before always completes.
// Only SHA-256 hashes of arguments and outputs are kept.
//
// Tools fall into four classes (first match wins, all configurable with options):
//
//   - wait tools (wait_for_user, wait_for_background_tasks): one counter per turn; the 2nd
//     completed wait gets a notice and the next wait is refused until a distinct user
//     message or [Guard.EndTurn];
//   - exempt tools (task, task_cancel, task_message, task_revive): ignored;
//   - supervision tools (task_status, task_result): a polling stream per task id, fed by
//     the task id and lifecycle state read from the output; the 3rd identical state gets a
//     notice; never refused;
//   - everything else: the loop streak (one per session). Only block tools (read, grep,
//     glob) are refused; the others are warn-only.
//
// Every call outside the supervision class ends the session's polling streams. A distinct
// external user message resets the wait counter, the polling streams and — unless
// [WithStreakResetOnUserMessage](false) — the loop streak. A message whose id is among the
// session's last 256 distinct ids ([WithMaxMessageIDs]) is a re-delivery and does nothing, so
// a host that sends the conversation's messages again does not re-admit a refused loop.
//
// # Reading task outputs
//
// A supervision output is read for a task id and a state within its first 64 KiB only,
// in one pass: the rest of a larger output is never looked at, and the work is linear in
// the bytes read whatever they hold. The task id is the text after "task_id:" (or inside
// the parentheses of a line such as "Task explorer (bg_1)"); when the output has none, the
// "task_id" string of the arguments is used. The state is the word after "state:" at the
// start of a line, lower-cased, with "busy" read as "running" and ":uncertain" added when
// the output says "(unconfirmed)" on the state line or has a line "status_uncertain: true".
// Task ids and states longer than 256 bytes are cut to their first 256 bytes, so two ids
// that share those are one task to the guard.
//
// # Contract and prose
//
// The markers "[REPEATED TOOL CALLS - STOP]" and "[REPEATED WAIT TOOL - END TURN]", the
// layout of a notice ("\n\n" + marker + "\n\n" + body + "\n") and the refusal messages of
// [RefusedError.Error] are a contract: models and hosts match on them. The notice bodies
// are prose and may be reworded ([WithNotices]).
//
// # Differences from the reference plugin
//
//   - A distinct external user message also resets the loop streak (the plugin keeps it;
//     [WithStreakResetOnUserMessage](false) restores that).
//   - Notices state the real count, not the threshold.
//   - A call without a session or call id is an error (the plugin silently skips it).
//   - All per-session state lives in one record; at most 512 records are kept and the least
//     recently used is evicted (the plugin evicts by first insertion and bounds only two of
//     its five maps). Pending calls (256) and supervised tasks (64) are bounded per session.
//   - Call ids are scoped by session.
//   - A user message id is compared with the session's last 256 distinct ids, not only
//     with the last one: m1, m2, m1 is two messages here and three to the plugin.
//   - Task outputs are read within their first 64 KiB; task ids and states are cut to 256
//     bytes.
//   - A text output is hashed as tool + ":" + NUL + text rather than as its JSON string
//     literal. The two encodings tell outputs apart in exactly the same way (and a
//     structured output that is a JSON string still equals the same text), but this one
//     hashes the text without escaping it first.
//
// # Concurrency and cost
//
// [Guard] is safe for concurrent use: arguments are canonicalised and hashed, and outputs
// hashed and parsed, before its single mutex is taken, so a large output never blocks
// other sessions. It starts no goroutines, reads no clock and does no I/O.
//
// Arguments are canonicalised by decoding them with encoding/json, and encoding them again
// with sorted keys; they are canonicalised and hashed once, at Before, and After reuses
// the key recorded then. A typical Before+After pair (a 200-byte argument object, a 4 KiB
// text output) costs a few microseconds, most of it decoding the arguments and hashing the
// output: small next to any tool call.
//
// # Memory
//
// Nothing the guard keeps shares memory with, or grows with, a tool's arguments or
// output: it keeps 32-byte hashes, copies of the session and call ids and tool names, and
// task ids and states of at most 256 bytes, and 16-byte hashes of user message ids. Memory
// per session is bounded by the pending calls (256), supervised tasks (64) and message ids
// (256) it may hold, whatever the size of the arguments, outputs and ids.
//
// # Security Considerations
//
// The guard reads no files and makes no network calls; it sees only what the host passes
// in. A model controls arguments and outputs, so every limit is enforced on them: nesting
// deeper than 10000 is fingerprinted as raw bytes, task outputs are read within 64 KiB,
// memory per session does not depend on argument or output size, and the number of
// sessions, pending calls and tasks is bounded. The guard is advisory: a host that ignores
// a refusal runs the call anyway.
package loopguard
