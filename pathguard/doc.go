// Package pathguard validates and resolves the paths a model passes to tools, with the
// host's own rules.
//
// Contract: the grep/glob pre-check resolves a search path the way the host will (POSIX or
// Windows flavour, Node-style join and resolve) and refuses a path that is missing or runs
// through a non-directory, with a message that says what was resolved and what to do.
// Containment keeps every path inside an allowed root and its worktrees, segment by segment,
// both lexically and after symlinks are resolved. pathguard decides; an *os.Root enforces.
//
// The behaviour is specified in the project's pathguard specification; the package gets its
// code with the pathguard issue.
package pathguard
