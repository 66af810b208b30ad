// Package loopguard stops a model that keeps making the same tool call and getting the same
// result. A host asks the guard before each call whether it may run, and hands it each
// result afterwards; the guard appends a corrective notice to the result once a streak of
// identical results reaches 3, and refuses the next identical read, grep or glob once it
// reaches 5. It follows the tool-loop guard of the OpenCode plugin oh-my-opencode-slim
// 2.2.24, with the differences listed below.
//
// Use it between a model and its tools, one [Guard] per process (or a [Core] per event
// loop), keyed by conversation. Do not use it to rate-limit tools or to detect loops that
// alternate between two calls: it only knows "this result is identical to the previous
// one".
//
// # Life cycle
//
// Per session:
//
//	{ UserMessage | Before (refused | After | Abandon) | Preview | EndTurn } EndSession
//
// [Guard.Before] returns nil or a *[RefusedError]; an admitted call with a call id is
// remembered until its [Guard.After] (or [Guard.Abandon], for hosts that skip the after
// phase of failed calls). After returns a [Verdict] with the output to give the model.
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
// [WithStreakResetOnUserMessage](false) — the loop streak; the same message id delivered
// twice does nothing.
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
//   - All per-session state lives in one record; at most 512 records are kept and the least
//     recently used is evicted (the plugin evicts by first insertion and bounds only two of
//     its five maps). Pending calls (256) and supervised tasks (64) are bounded per session.
//   - Call ids are scoped by session.
//   - A text output is hashed as tool + ":" + NUL + text rather than as its JSON string
//     literal. The two encodings tell outputs apart in exactly the same way (and a
//     structured output that is a JSON string still equals the same text), but this one
//     hashes the text without escaping it first.
//
// # Concurrency and cost
//
// [Guard] is safe for concurrent use: fingerprints are computed before its single mutex is
// taken, so hashing a large output never blocks other sessions. [Core] is the same state
// machine without the lock. Neither starts goroutines, reads a clock or does I/O.
//
// A typical Before+After pair (a 200-byte argument object, a 4 KiB text output) allocates
// nothing in steady state: canonicalisation and hashing reuse buffers (a sync.Pool in
// Guard, a field in Core), a text output is hashed in place without being copied, and
// the call id and session name are stored as given. The arguments are canonicalised and
// hashed once, at Before; After reuses the key recorded then. Arguments already in
// canonical form are mostly copied rather than re-encoded. About four fifths of the
// pair's time is the SHA-256 of the output. The allocations that remain are on other
// paths:
//
//   - a notice: one, the annotated output (Verdict.Notice is a substring of it);
//   - a refusal: the *RefusedError;
//   - a new session: the record, its pending map and the LRU entry (and the evicted
//     record's memory becomes garbage);
//   - a supervision call: the trimmed task_id copied out of the arguments, and a copy of a
//     task id seen for the first time (so no slice of a large output is ever kept);
//   - a fingerprint buffer used for the first time (Guard's pool may drop its buffers
//     at a garbage collection): its SHA-256 digest and its buffers;
//   - arguments or structured outputs over 64 KiB: fingerprint buffers that large are
//     dropped after the call so that one huge call does not pin memory.
//
// # Security Considerations
//
// The guard reads no files and makes no network calls; it sees only what the host passes
// in. A model controls arguments and outputs, so every limit is enforced on them: nesting
// deeper than 10000 is fingerprinted as raw bytes, memory per session does not depend on
// argument or output size, and the number of sessions, pending calls and tasks is bounded.
// The guard is advisory: a host that ignores a refusal runs the call anyway.
package loopguard
