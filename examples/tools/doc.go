// Package tools is the one tool adapter of the harnesskit examples: each tool a model can
// call, as a value with a name, a description written for the model, a JSON Schema for its
// arguments, and a Call method. The MCP server (examples/mcpserver) serves these values;
// a host on another agent framework wraps them in a few lines (see the examples).
//
// Use it to give a model guarded file tools over one workspace. Do not use it as a
// sandbox: the guards keep honest mistakes inside the workspace, they are not a security
// boundary against a hostile process on the same machine.
//
// Life cycle:
//
//	New(root, opts…) → Toolbox {Tools → Tool.Call | Tool.Invoke} → Close
//
// # Tools
//
//   - apply_patch: edits files with a "*** Begin Patch" text (harnesskit/patch): tolerant
//     but never guessing, every change written or none. With WithFormatter it formats each
//     file it writes before the commit (gofmt, or the project's formatter through
//     harnesskit/format) and says what the formatter changed; a formatter that fails
//     leaves the file as the patch made it and never fails the patch.
//   - edit and multi_edit: string replacements in one file (harnesskit/patch's Edit), with
//     Claude Code's argument names (file_path, old_string, new_string, replace_all, edits):
//     old_string found as written, else as whole lines with the patch's tolerance and its
//     unique-match rule, never guessed; several edits in order, all written or none, then the
//     formatter as for apply_patch.
//   - read: a text file's lines with line numbers, paged by offset and limit.
//   - grep: a Go regular expression over the workspace's files, honouring .gitignore,
//     searched by DefaultSearchWorkers goroutines, sorted by file and line.
//   - glob: files by doublestar pattern, honouring .gitignore.
//   - webfetch: one web page as Markdown, text or HTML under a metadata block
//     (harnesskit/webfetch), paged by offset, cached. It refuses loopback, private and
//     metadata addresses unless WithWebFetch passes a policy that allows them, and reports
//     download progress. Its secondary model is the host's: ChainSummarizers,
//     NewSessionSummarizer and the ModelRef helpers build one from the host's models.
//   - ast_grep_search: code by syntax-tree shape with an ast-grep pattern
//     (harnesskit/astsearch), over paths that all lie in the root or all in one worktree.
//   - ast_grep_replace: the same search, each match rewritten from a template; a dry run
//     (the diff, nothing written) unless dryRun is false, then every file written or none.
//     Both are registered only where astsearch has a backend (see AstGrepAvailable). They
//     share one syntax-tree cache (WithTreeCache), so a search that repeats parses only the
//     files changed since; the tools that write drop the trees of the files they wrote.
//     This package links no grammar, so that a host pays the cgo build of none it does not
//     use: the host imports the astsearch/lang packages of the languages it offers (or
//     astsearch/lang/all), and the tools' lang argument lists those, or all 25 when the
//     ast-grep executable is found.
//
// Each tool is one file (its argument struct, description and builder) plus one line in
// the registry.
//
// # Arguments
//
// A tool ignores arguments it does not know, and its schema does not forbid them: hosts add
// their own to every tool and send them (Gemini CLI adds wait_for_previous, which models
// set on a call that depends on the previous one). The one exception is an unknown name
// that is a known one spelt another way (another case, with or without underscores or
// dashes, with or without a final "s": filePath for file_path, path for paths): the call
// is refused with ErrInvalidArgs naming the right argument, since it would otherwise run
// with that argument missing.
//
// Glob patterns (glob's pattern, grep's glob) use slashes. On Windows a backslash is a
// separator too (src\**\*.go is src/**/*.go), so a meta character is matched literally
// with a class ([*]); elsewhere a backslash escapes the character after it, since a file
// name may contain one.
//
// # Guards
//
// Every call goes through one loop guard (harnesskit/loopguard) shared by the whole
// Toolbox: the third identical result in a row of a session gets a notice appended, and
// the sixth identical read, grep or glob is refused. A failure the model can act on counts
// as a result, so repeating the same failing call is a loop too. Tool.Call uses
// DefaultSession; hosts with conversations use Tool.Invoke with their session and call ids.
//
// Every path goes through harnesskit/pathguard: grep and glob first run the search-path
// pre-check (a missing path, or one through a file, is refused with a message saying what
// was resolved), then every path of every tool must lie inside the root or a worktree with
// symlinks resolved. File I/O goes through an os.Root opened on the real base directory.
//
// The root and worktrees are resolved at the start of every call, the same way for every
// tool, so a directory replaced at the root's path is seen by the next call of any tool. A
// host whose client works in narrower directories (MCP roots) passes them in
// Invocation.Roots: the call then touches only what lies in both, and relative paths
// resolve against the first; the Toolbox's root and worktrees are the ceiling.
//
// # Errors
//
// Tool.Invoke returns errors in two channels. A *Error is a tool error: the call was
// understood and failed for a reason the model can act on (arguments that do not fit the
// schema, ErrInvalidArgs; a directory or binary file given to read, ErrNotText; a refused
// path, pathguard.ErrOutside and friends; a patch that does not apply, patch.ErrNotFound
// and friends; a loop refusal, loopguard.ErrRefused; a missing file, fs.ErrNotExist; a URL
// that is invalid, refused, unreachable or answered with an error status,
// webfetch.ErrInvalidURL, webfetch.ErrBlocked, webfetch.ErrTransport, webfetch.ErrStatus
// and friends; an ast-grep pattern that does not parse, astsearch.ErrBadPattern; a file
// changed while ast_grep_replace wrote, astsearch.ErrConflict; a write the write layer
// refused: a file changed meanwhile, held by another writer or program, over the size
// limit, read-only or not a regular file, wfs.ErrChanged and friends, patch.ErrTooLarge
// among them). Show its message to the model. Any other error is a host fault (a cancelled context, an I/O failure,
// patch.ErrIO, no astsearch backend): another call would not help. Limits are not
// errors: a result cut at its limit says so in its text. Every result and tool error is at
// most MaxOutputBytes long, whatever limit the call asks for, and what a tool keeps in
// memory while it works is bounded by what it can show (grep reads each file whole, up to
// WithMaxSearchFileSize).
//
// The result texts and descriptions are prose for models, pinned by golden files but not
// promised; the tool names, argument names and error channels are the contract.
//
// # Security Considerations
//
// The guards decide, os.Root enforces: reads and writes happen on the real paths the
// containment check returned, through an os.Root on the base, so a component swapped for
// a symlink after the check cannot lead outside. grep and glob do not follow symbolic
// links. The patch tool refuses a whole patch when any path is outside. Regular
// expressions are RE2 (linear time), so a pattern cannot stall the search.
//
// WithFormatter runs programs: with harnesskit/format, files in the project (a biome.json,
// a package.json dependency) choose which formatter runs after each write. Configure it only
// for checkouts the host trusts.
package tools
