// Package pathguard decides whether the paths a model passes to tools are usable and
// allowed, resolving them with the host's own rules.
//
// It has two independent parts:
//
//   - [SearchGuard], the grep/glob pre-check. Before a host runs ripgrep for a "grep" or
//     "glob" call, [SearchGuard.Check] resolves the call's "path" argument exactly as the
//     host will (OpenCode v1 joins it for grep and resolves it for glob; v2 resolves it for
//     both) and refuses a path that does not exist, or that runs through a regular file,
//     with a message saying what was resolved, from what, and what to do. Every other
//     tool, an empty path and an unknown project directory pass; so does any stat error
//     other than not-exist and not-a-directory: the check never blocks on the
//     environment. [Rescuer] is the optional companion that repairs an absolute path
//     copied from another checkout.
//   - [Containment], the write-side check used by patch and astsearch. It decides whether
//     each target lies inside the workspace root or one of its worktrees, segment by
//     segment ("..cache" is inside, "/w/rootx" is not inside "/w/root"), both lexically
//     and after resolving every symlink like `realpath -m`. It fails closed.
//
// The two guards are separate values because they answer different questions with
// different inputs (a tool call and a project directory; a target path and the workspace
// bases), and a host often needs only one: [SearchGuard] (options [WithHost], [WithFlavor],
// [WithStat], [WithObserver]) and [Containment] (options [WithWorktrees], [WithResolver],
// [WithCaseFold], [WithPathFlavor]). Both are built with functional options, are immutable
// once built, and share the [Flavor] and [Error] types.
//
// Life cycles:
//
//	NewSearchGuard(opts…) → Check(tool, args, projectDir) {repeat}
//	NewContainment(root, opts…) → Check(target) | CheckAll(targets…) {repeat}
//
// # Path flavours
//
// A host written in JavaScript resolves paths with Node's path.posix or path.win32, whose
// rules differ from Go's path/filepath: Node keeps a trailing separator in join (which
// changes whether "f.txt/" is an error), treats "\src" as absolute on Windows, and gives
// drive-relative paths ("C:src") their own per-drive directory. [POSIX] and [Windows]
// reimplement Node's rules in pure Go, with the working directories injected, so both are
// tested on every OS; [Native] picks the running system's. Reserved device names with a
// colon ("COM1:") and the ".\" prefix newer Node versions add to colon-bearing relative
// results are out of scope.
//
// # Errors
//
// Every refusal is an *[Error] with a [Kind]; errors.Is matches [ErrMissing],
// [ErrNotDirectory], [ErrOutside] and [ErrResolve], and the stat or resolver cause when
// there is one. The search-check messages are a contract (hosts show them to models
// verbatim); the containment messages are prose.
//
// # Security Considerations
//
// pathguard decides; an *os.Root enforces. The search check is advisory: it does not
// confine the search ("../" and "/usr" pass because they exist) and a path created or
// removed after the check is the host's business. Containment resolves symlinks as they
// are at check time; a writer must do its I/O on the returned [Target.Real] path, ideally
// through an os.Root opened on [Target.RealBase], so that a component swapped for a
// symlink afterwards cannot escape. Containment accepts absolute in-repository symlinks,
// which os.Root alone would refuse. Any resolver error other than not-exist or
// not-a-directory refuses the path, as does a chain of more than [MaxSymlinks] links.
// Paths containing a NUL byte are refused by Containment and passed by the search check
// (stat fails with EINVAL, so ripgrep will fail too).
//
// Containment judges a target where the kernel would open it: "link/../x" is resolved
// through "link" first, as `cd -P` does. Case folding only ever makes a decision stricter:
// real paths are compared byte for byte, using on-disk spellings where a name differs from
// a base's only in case, so a directory "SRC" next to the root "src" on a case-sensitive
// volume stays outside. Targets longer than [MaxPathBytes] or with more than
// [MaxPathComponents] components are refused before any file-system call, and a walk costs
// time linear in the target plus the link targets it follows. A base that is missing or
// unresolvable is tried again by the next check, and fails only the targets that need it.
//
// What containment cannot see: hard links (a file inside the root may be the same file as
// one outside it), bind mounts and other mounts that graft one directory onto another
// (they are not symlinks, so their targets look inside), and, on Windows, names the kernel
// rewrites. The Windows flavour therefore refuses a target with a component that ends in a
// dot or a space (stripped by Windows), that names a DOS device (CON, PRN, AUX, NUL,
// COM0–COM9, LPT0–LPT9, also with an extension such as "nul.txt"), that contains ':' (an
// alternate data stream, "name:stream"), or that is drive-relative ("C:x").
package pathguard
