// Package pathguard decides whether the paths a model passes to tools are usable and
// allowed, resolving them with the host's own rules.
//
// It has two independent parts, plus an optional helper:
//
//   - [SearchGuard], the grep/glob pre-check. Before a host runs ripgrep for a "grep" or
//     "glob" call, [SearchGuard.Check] resolves the call's "path" argument exactly as the
//     host will (OpenCode v1 joins it to the project directory for grep, keeping a
//     trailing separator, and resolves it for glob; v2 resolves it for both) and refuses a
//     path that does not exist ([KindMissing]), or that runs through a regular file
//     ([KindNotDirectory]), with a message saying what was resolved, from what, and what
//     to do. Every other tool, an argument that is absent, not a string or "", and an
//     empty project directory pass; so does any stat error other than not-exist and
//     not-a-directory (permissions, loops, I/O): the check never blocks on the
//     environment. It never rewrites the argument and never confines the search ("../"
//     passes when it exists): confinement is the host's permission system. The tool
//     names and the argument key are options ([WithToolNames], [WithPathKey]; defaults
//     "grep", "glob", "path"), matched exactly.
//   - [Rescuer], the optional companion: it repairs an absolute path copied from another
//     checkout ("/home/someone/ws/src/a.ts" for the workspace "/home/me/ws") when that path
//     does not exist, the workspace's trailing directory names occur in it exactly once,
//     and the repaired path exists. A host that wants it calls [Rescuer.Rescue] and then
//     [SearchGuard.Check] on the result.
//   - [Containment], the write-side check used by patch and astsearch. It decides whether
//     each target lies inside the workspace root or one of its worktrees, segment by
//     segment ("..cache" is inside, "/w/rootx" is not inside "/w/root"), both lexically
//     and where the kernel would open it, and fails closed.
//
// The parts are separate values because they answer different questions with different
// inputs (a tool call and a project directory; a target path and the workspace bases),
// and a host often needs only one. All are built with functional options, do no I/O and
// start no goroutines when built, are immutable afterwards and safe for concurrent use:
//
//	NewSearchGuard(opts…) → Check(tool, args, projectDir) {repeat}
//	NewRescuer(opts…) → Rescue(tool, args, workspace) {repeat}
//	NewContainment(root, opts…) → Check(target) | CheckAll(targets…) {repeat}
//
// [SearchGuard] takes [WithHost], [WithObserver], [WithToolNames] and [WithPathKey];
// [WithFlavor] and [WithStat] configure both it and [Rescuer]. [Containment] takes
// [WithWorktrees], [WithResolver], [WithCaseFold] and [WithPathFlavor].
//
// # Path flavours
//
// A host written in JavaScript resolves paths with Node's path.posix or path.win32, whose
// rules differ from Go's path/filepath: Node keeps a trailing separator in join (which
// changes whether "f.txt/" is an error), treats "\src" as absolute on Windows, and gives
// drive-relative paths ("C:src") their own per-drive directory. [POSIX] and [Windows]
// reimplement Node's rules in pure Go, with the working directories injected, so both are
// tested on every OS; [Native] picks the running system's. [Flavor] is sealed: these are
// its only implementations. Reserved device names with a colon ("COM1:") and the ".\"
// prefix newer Node versions add to colon-bearing relative results are out of scope.
//
// # Containment
//
// A relative target is taken against the root. Target.Abs is the lexically normalised
// path; Target.Real is where the kernel opens the target: components are taken left to
// right, each symlink is followed where it is met (relative link targets from the link's
// directory, absolute ones as they are, in-repository absolute links included), and a
// ".." removes the last component of the resolved prefix — "link/../x" is judged through
// "link", as `cd -P` does. A missing component, or one under a regular file, and
// everything after it are appended literally, so a dangling symlink that points outside
// is outside. A target is allowed only when Abs lies within some base and Real within
// some base's real path. Target.Rel is Abs relative to the root with '/' separators ("."
// for the root itself, "../shared.txt" for a file of a worktree that contains the root).
//
// Case folding ([WithCaseFold]; on by default on darwin and windows, always on in the
// Windows flavour) only ever makes a decision stricter. Names fold by simple upper-casing,
// as NTFS does, so the Kelvin sign (U+212A) is not "k" and the long s (U+017F) is not "s".
// Real paths compare byte for byte; a component that differs from a base's only in case
// is replaced by its on-disk spelling, read through a [SpellingResolver] ([OSResolver] is
// one), and a missing component keeps the spelling given. The lexical half (Abs, and
// Rel) is held to the same rule: a name of Abs that differs from a base's only in case
// matches it only when the resolver reports both as one entry (the same on-disk
// spelling). So a directory "SRC" next to the root "src" on a case-sensitive volume stays
// outside, even when it is a symlink back into a base, while the root spelled in other
// case on a case-insensitive volume is inside, with Real in the on-disk spelling.
//
// On Windows, a junction (a mount-point reparse point, which Go reports as
// [io/fs.ModeIrregular] and which filepath.EvalSymlinks no longer follows) is followed like
// a symbolic link, through the resolver's Readlink; a reparse point of another kind (a
// cloud-file placeholder, an app-exec link), for which Readlink reports not-exist or
// EINVAL, opens in place and is taken as it is; any other Readlink failure refuses the
// target. Paths in the Win32 device namespaces that name a drive or a share, `\\?\C:\x`,
// `\\.\C:\x` and `\\?\UNC\srv\share\x`, are judged as `C:\x` and `\\srv\share\x`; since
// Windows does not apply "." and ".." under `\\?\`, a `\\?\` path with such a component is
// refused. Names are compared as spelled: the 8.3 short name of a directory ("PROGRA~1")
// and its long name are different paths, so a target spelled one way under a root spelled
// the other is refused as outside (the safe answer), and the refusal says so.
//
// Limits: a target longer than [MaxPathBytes] bytes or with more than
// [MaxPathComponents] components is refused with [KindResolve] ("path too long") before
// any file-system call, and a walk costs time linear in the target plus the link targets
// it follows, plus one copy of the resolved prefix each time a link or a ".." turns it
// (the name the next lookup needs; the kernel is handed that prefix anyway); more than
// [MaxSymlinks] links is a loop. The real path of a base is computed
// when a check first needs it and kept once it succeeds; a base that is missing or cannot
// be resolved is tried again by the next check and fails only the targets lexically
// inside it, with an error naming it. A base that is a symlink to a file-system root
// counts as unresolvable: like a worktree "/", which is ignored, it would contain every
// path. Any resolver error other than not-exist or not-a-directory refuses the target.
//
// # Errors
//
// Every refusal is an *[Error] with a [Kind]; errors.Is matches [ErrMissing],
// [ErrNotDirectory], [ErrOutside] and [ErrResolve], and the stat or resolver cause when
// there is one. The search-check messages are a contract (hosts show them to models
// verbatim); the containment messages are prose that names the path and what to do.
// [Containment.CheckAll] checks every target and reports all offenders in one error,
// unresolvable ones before escapes.
//
// # Security Considerations
//
// pathguard decides; an *os.Root enforces. The search check is advisory, and a path
// created or removed after it is the host's business. Containment resolves symlinks as
// they are at check time; a writer must do its I/O on the returned [Target.Real] path,
// ideally through an os.Root opened on [Target.RealBase], so that a component swapped
// for a symlink afterwards cannot escape. Containment accepts absolute in-repository
// symlinks, which os.Root alone would refuse. Paths containing a NUL byte are refused by
// Containment and passed by the search check (stat fails with EINVAL, so ripgrep will
// fail too).
//
// What containment cannot see: hard links (a file inside the root may be the same file as
// one outside it), bind mounts and other mounts that graft one directory onto another
// (they are not symlinks, so what they show looks inside), and, on Windows, names the
// kernel rewrites. The Windows flavour therefore refuses, with [KindResolve] and a message
// naming the rule, a target with a component that ends in a dot or a space (Windows
// strips them), that names a DOS device (CON, PRN, AUX, NUL, COM0–COM9, LPT0–LPT9, also
// with an extension such as "nul.txt"), or that contains ':' (an alternate data stream,
// "name:stream"), and a drive-relative target ("C:x", which depends on that drive's
// current directory).
package pathguard
