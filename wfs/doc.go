// Package wfs is the one write layer of harnesskit: the file-system seam every writing
// package uses ([FS]), an in-memory implementation ([MemFS]), real directories reached only
// through [os.Root] ([OSFS]), and one commit protocol, the transaction [Tx], that every writer
// in every process follows. patch, astsearch, format and webfetch write through it, so one
// host value serves them all and a file they edit at the same time is never half-written,
// overwritten behind a writer's back, or stripped of its owner, mode or attributes.
//
// Use it to write files that other writers (agents, formatters, other processes) may edit at
// the same time, or that must survive a crash in a known state. Do not use it for files only
// your own process ever touches, or for append-only logs: it replaces whole files.
//
// # Life cycle
//
//	NewOSFS(bases…) or NewMemFS() → FS
//	Read(ctx, fsys, name, limit) → Snapshot                        (what you plan from)
//	Begin(fsys, root, opts…) → Tx {Write | Create | Delete | Scratch} → Commit | Abort
//	Recover(ctx, fsys, root) → []Recovery                          (on opening a tree)
//
// A writer reads each file it will change with [Read] (after [Follow] when a symbolic link
// must be written through to its target), computes the new content, and commits every
// change of one edit in one [Tx]. The Tx checks that each file still holds what the writer
// read, and writes all changes or none.
//
// # The seam
//
// [FS] has nine methods over absolute, OS-native names. Their errors are the os package's
// ([*fs.PathError], [*os.LinkError] for Rename and Link, wrapping the syscall error), so
// errors.Is with the io/fs sentinels and comparisons with syscall.ENOTDIR, EISDIR or
// ENOTEMPTY work on both implementations. Optional extensions are found by type assertion:
// [ReadDirFS] (needed to find journals), [LinkFS] (old files kept by a link, not a copy; new
// files never replace anything), [LockFS] (without it a Tx excludes nobody, and only one
// writer may use the tree), [MetaFS] (owner, group, extended attributes, ACLs; without it
// only the mode is kept), [KeyFS] (the journal key). MemFS has all but MetaFS; OSFS has all.
// [DirFS] is a read-only io/fs view for readers; package wfstest checks an implementation.
//
// # The commit
//
// [Tx.Commit] takes the same steps in every harnesskit writer (PROTOCOL.md beside this file
// sets each out, with the journal's format and the Windows details):
//
//  1. Recover dead writers' journals in root/[JournalDir], so no commit builds on a
//     half-switched tree.
//  2. Lock the directory of every target, all or none, waiting at most the lock wait
//     ([WithLockWait]), then ErrBusy. The kernel drops a dead process's locks; a live holder
//     is waited for, never overridden.
//  3. Check every target against the [Snapshot] its writer read, metadata first, then
//     content (a file over the size limit by its metadata and, except on Windows, its
//     status-change time); a difference is ErrChanged. Nothing is written yet.
//  4. Journal the targets, temporaries, kept files and before and after states, signed (see
//     Trust); synced first when the commit has more than one step.
//  5. Stage each new content in a synced temporary sibling with its final metadata, keep
//     each replaced or deleted file aside (a hard link, or a synced copy), mark the journal.
//  6. Switch in the order the operations were added: rename, link in (a new file never
//     replaces one that appeared meanwhile) or remove.
//  7. Sync the directories and clean up. A failure during the switch or the sync restores
//     every switched target, under the locks ([Error].RolledBack, [Error].NotRestored).
//
// A one-step commit does not sync its journal: after a power loss it may be empty (recovery
// sets it aside) and its temporary may remain, which [IsLeftover] recognises.
//
// # Recovery
//
// [Recover] runs on opening a tree (patch's Open and every plan, format, every Tx before it
// locks) and reports each journal it handled ([Recovery]; its String is one line for a log or
// a command's stderr). A journal whose writer is alive (it holds the journal's lock) is
// skipped. A dead writer's is read up to the first line a crash cut short, its directories are
// locked, and its commit rolled forward when the commit mark is there and no rollback mark
// follows, else rolled back. Before each step the target is compared with the journal's before
// and after states (for a file written in place, also with a prefix of the new content, which
// an interrupted write leaves): a target already in the wanted state is left alone, and a
// target in neither was changed after the crash and is left as found ([Recovery].Conflicts:
// that content is kept, the commit's dropped along with the file it kept aside). Recovery is
// idempotent and crash-safe itself: killed at any point, it is run again and reaches the same
// end; a tree is only seen in its before or its after state, with nothing left beside its
// files. When nothing is pending it costs one Lstat.
//
// A journal that holds no line at all (empty, only zero bytes, or cut before its first line
// ended: what a power loss leaves of an unsynced journal) has nothing to act on: it is renamed
// to "<name>.damaged" in the journal directory and reported once (Outcome Refused).
//
// Only the journal directory of the root a writer opened is read. A directory below it that
// carries its own .hkwfs (a vendored project, a submodule) is never looked in, and no commit
// writes into a directory named .hkwfs. A host that lets a commit write in other trees (its
// worktrees) names them with [WithTrees]; such commits are journaled in root. Writers whose
// roots are nested (one opens a tree, another a directory inside it) do not recover each
// other's commits: each is finished by the next writer of its own root, and since recovery
// never overwrites a later change, what the other wrote meanwhile is kept (and listed in
// Conflicts).
//
// # Trust
//
// The threat: a tree's files come from anyone (a downloaded archive, a clone, a copy, a
// container layer, a shared volume), with whatever modes, owners and names their author chose,
// .hkwfs directories and journals included, and an agent is routinely asked to work in such a
// tree. A journal found there must not make a writer rename, delete or rewrite anything.
//
// The rule: recovery acts only on journals that a writer holding this user's secret key wrote
// for this very directory, which is decided by construction, not by looking at permission bits.
// Every line of a journal carries a MAC (HMAC-SHA-256 cut to 128 bits, chained from the line
// before, so lines cannot be changed, reordered or taken from another journal); the header
// names the journal's id, the root and the root's identity (device and inode), which must
// match where it is found. The key lives outside every tree: 32 random bytes in
// harnesskit/wfs-journal.key under the user's configuration directory ([os.UserConfigDir]),
// created with mode 0600 in a 0700 directory on first use, and refused (ErrKey) when it is a
// link, another user's, readable by others or of the wrong size. [OSFS.SetJournalKey] sets a
// host's own key instead (at least [MinKeySize] bytes; every writer of a tree must use the same
// one for its crashes to be recovered); each [MemFS] has its own. With neither a configuration
// directory nor a key set, a commit that needs a journal fails with ErrKey, saying what to set.
//
// Even a journal that verifies is refused as a whole when it names what no commit writes: a
// target, kept file or created directory outside root and the trees its header lists, inside
// .git, .hg, .svn or .hkwfs (in any letter case), or reached through a symbolic link; a
// temporary or kept file not named after its target ([TempName]), or one that is not a regular
// file (only the old symbolic link a commit moved aside whole may be a link). Each step checks
// again as it acts: a temporary is rolled forward only while it is a regular file of exactly
// the journal's new content, and a kept file is renamed back only while it holds the journal's
// before state, so recovery never leaves a symbolic link where the before state had none.
//
// So an attacker who controls the tree's content gets nothing done through a journal. A planted
// journal is never acted on: recovery reports it (Outcome Refused, with the reason; the
// harnesskit command prints it on stderr), leaves it where it is, and the write that ran the
// recovery goes on and succeeds. A .hkwfs that is not a directory (a file, a link) makes every
// commit that needs a journal fail with an error naming it, having changed nothing. What the
// tree's own files do when they are later run or read (a Makefile, a build script) is outside
// what wfs can see: it writes only what its caller asked.
//
// # Files
//
//   - Metadata. A replaced regular file keeps its whole mode (setuid, setgid, sticky too), its
//     owner and group where the process may set them, and its extended attributes and POSIX
//     ACLs (Linux, macOS; one the process may not set is skipped). A new file gets
//     [DefaultFileMode] or the given mode under the umask; see [NewMode] and [MetaFrom].
//   - Hard links. A file with more than one link is written in place under the lock, a copy
//     of its old content kept aside first, so every name sees the new content (readers may
//     see it partly written during the switch; a one-link file is replaced atomically).
//   - Symbolic links. A Tx never follows a final symbolic link for writing: a Write whose
//     Snapshot is a link is refused unless [ReplaceLink]; call [Follow] to write the target.
//   - Read-only files. A write needs write permission on the target, as the kernel decides;
//     a file with no write bit at all (0444) is refused to a superuser too (ErrReadOnly).
//     MemFS judges as the file's unprivileged owner. A delete needs only a writable directory.
//   - Special files. A FIFO, socket or device is never opened: Read describes it
//     (TypeSpecial), a Tx refuses it (ErrSpecial). Every open for reading is non-blocking and
//     re-checks the type on the handle.
//   - Size. Read does not read a file over its limit (Snapshot.Large: it can be deleted, not
//     written); a Tx refuses to write one, or data over the limit (ErrTooLarge).
//
// # Names and errors
//
// Temporaries, kept files and scratch copies are named by [TempName] (hidden, at most 253
// bytes) and recognised by [IsLeftover]. Journals live in root/[JournalDir], which exists only
// while a commit runs or a journal waits for recovery or removal.
//
// Every failure of Read, Tx.Commit and Recover is an [*Error] that unwraps to a sentinel of
// this package or to the file system's error; a context that ends before the switch returns
// ctx.Err(). The FS methods return the os package's errors, with [ErrOutside] (also
// fs.ErrPermission) for a name outside an OSFS's bases and [ErrNotAbs] for a relative name.
// On Windows an OSFS returns Windows' own errors: errors.Is with the io/fs sentinels holds,
// comparisons with POSIX errnos do not.
//
// # Differences between MemFS and OSFS
//
// A rapid state machine requires identical results, error texts included, from both, except
// where they differ on purpose: MemFS has no bases, so it follows links that leave one and
// absolute targets (OSFS refuses them); it follows [MaxSymlinks] links (os.Root 8); it
// enforces permissions as for an unprivileged owner; it reports the zero modification time
// and size 0 for directories, ignores trailing separators, follows POSIX rules on every
// platform, and keeps no owner or extended attributes.
//
// # Security Considerations
//
// OSFS reaches real directories only through one os.Root per allowed base: content access and
// changes cannot leave the bases, even if a directory on the way is swapped for a symbolic
// link; names outside every base and names with ".." are refused (ErrOutside). A Tx never
// writes through a final symbolic link, never opens a special file, never replaces a name
// that must be new, and never reads more than its size limit. Temporaries are created
// exclusively with mode 0600 until they get their final mode. Locks are advisory: they
// exclude every harnesskit writer (in any process, on the same machine, through the same
// kernel; not across NFS clients), not programs that take no lock — against those the check
// narrows the window to the time between the check and the rename, and a Create never
// replaces. Without [LockFS] (a custom FS) a Tx excludes nobody and recovery takes every
// journal for a dead writer's; such an FS must have one writer at a time. Journals are
// acted on only when signed with this user's key for this root (see Trust).
package wfs
