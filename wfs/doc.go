// Package wfs is the one write layer of harnesskit: the file-system seam every writing
// package uses ([FS]), an in-memory implementation for tests and hosts without a disk
// ([MemFS]), real directories reached only through [os.Root] ([OSFS]), and one commit
// protocol, the transaction [Tx], that every writer in every process follows. patch,
// astsearch, format and webfetch write through it, so one host value serves them all and a
// file they edit at the same time is never half-written, overwritten behind a writer's back,
// or stripped of its owner, mode or attributes.
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
// [FS] has nine methods over absolute, OS-native names (Stat, Lstat, Readlink, ReadFile,
// OpenFile, Rename, Remove, Mkdir, Chmod); errors are the os package's: an [*fs.PathError]
// (an [*os.LinkError] for Rename and Link) wrapping the syscall error, so errors.Is with
// fs.ErrNotExist, fs.ErrExist and fs.ErrPermission, and comparisons with syscall.ENOTDIR,
// EISDIR or ENOTEMPTY, work on both implementations. Optional extensions are found by type
// assertion: [ReadDirFS] (list a directory: needed to find journals), [LinkFS] (hard links:
// old files are kept by a link instead of a copy, and new files never replace anything),
// [LockFS] (locks other writers respect: without it a Tx excludes nobody, and only one
// writer may use the tree), [MetaFS] (owner, group, extended attributes and ACLs: without it
// only the mode is kept). MemFS has all but MetaFS; OSFS has all four. [DirFS] is a
// read-only io/fs view for readers. Package wfstest checks an implementation, as
// testing/fstest does for io/fs.
//
// # The commit protocol
//
// [Tx.Commit] takes these steps in this order; every harnesskit writer takes the same ones.
//
//  1. Recovery. The journals of dead writers in root/[JournalDir] are finished or undone
//     first (see Recovery below), so no commit builds on a half-switched tree.
//  2. Locks. The directory of every target is locked, all of them or none: the lock of one
//     held, the others are released, and the commit tries again after 1 ms, doubling to at
//     most 50 ms, until the lock wait ([WithLockWait], default [DefaultLockWait] = 10 s) is
//     used up or the context ends; then it refuses with ErrBusy ("being written by another
//     writer") and has written nothing. On Linux, macOS and the BSDs a lock is flock(2)'s
//     exclusive lock on the directory itself, opened read-only (no lock file is made); on
//     Windows it is LockFileEx on the directory's file ".hkwfs.lock" (empty, created by the
//     writer that takes the lock and removed by it before it lets go; a lock counts only
//     while that name still leads to the locked file). Either way the kernel drops the locks of a process that dies, so a dead holder
//     never blocks anyone; a live one is waited for, never overridden. The locks are held
//     from the check below until the directories are synced after the switch.
//  3. Check. Every target is compared with the [Snapshot] its writer read: its type first;
//     for a regular file its size, permission bits, modification time and identity (inode
//     and device, or MemFS node), any difference being a change found without reading; then
//     its content, read at most to the size it has, in chunks, honouring the context. A
//     difference refuses the commit with ErrChanged. A target the process may not write is
//     refused with ErrReadOnly (see Files below); a FIFO, socket or device with ErrSpecial,
//     without being opened; a target or new content over the size limit
//     ([WithMaxFileSize], default [DefaultMaxFileSize] = 64 MiB) with ErrTooLarge, whose
//     [Error] names the limit. Nothing has been written yet.
//  4. Journal. A journal file naming every target, its temporary, the old file kept aside
//     and the before and after states (size and CRC-32C checksum, or a link's target) is written to
//     root/.hkwfs/<16 hex>.journal. It is written under a ".new" name, locked by its writer
//     for as long as the commit runs, and renamed into place, so that a journal found by a
//     recovery always belongs to a writer that locked it. A commit of more than one step
//     (several targets, or a file written in place) syncs the journal and its directory (and
//     root when .hkwfs was just made) before it stages anything. Writers remove .hkwfs when
//     they find it empty, so it may vanish between a writer's Mkdir and its journal's
//     creation: the writer then tries again, eight times at once, then paced as for a lock
//     within the lock wait, and refuses with ErrBusy when that is used up.
//  5. Stage. Missing parent directories of new files are created ([WithDirMode]). Each new
//     content goes to a temporary sibling of its target: created exclusively with mode 0600
//     (or the new file's mode under the umask), written, given the owner and group of the
//     file it replaces where the process may set them and its extended attributes and ACLs
//     ([MetaFS]), given its exact mode (setuid, setgid and sticky included; after the owner,
//     whose change clears setuid), synced and closed. Every file that is replaced or deleted
//     is kept aside under another temporary name, by a hard link (its inode, so its
//     metadata, stays whole), or by a synced copy when the FS has no links. The directories
//     holding all of these are synced; then a commit mark is appended to the journal and
//     synced. Every step so far is undone on failure: the temporaries go, the target is
//     untouched.
//  6. Switch. In the order the operations were added, each temporary is renamed over its
//     target (a file created where nothing was is hard-linked in instead, which fails rather
//     than replace a file that appeared, and the temporary name is then removed), and each
//     delete removes its name (the kept link still holds the file). An operation added with
//     CheckAtTurn is checked right before its own switch.
//  7. Sync and clean up. The directory of every target, and the parent of every directory
//     created, is synced; then the kept-aside files, the journal and, when empty, .hkwfs are
//     removed. A failure during the switch or the sync appends a rollback mark to the journal
//     and restores every switched target from what was kept aside, still under the locks;
//     on Windows a restore refused because another process has the file open is tried
//     again within the lock wait ([Error].RolledBack; names that could not be restored are
//     in [Error].NotRestored, and the journal stays for a recovery to finish). A failure of the clean-up after a complete switch does not undo
//     the commit: the journal stays and the next recovery removes what is left.
//
// The order of the durability steps is: sync the temporary, rename, sync the directory (and
// the parents of new directories). A commit of one step (one target) does not sync its
// journal: its one rename is atomic by itself, and the journal only lets a recovery remove a
// temporary a killed process left. After a power loss such a temporary may remain;
// [IsLeftover] recognises it.
//
// # Recovery
//
// [Recover] runs on opening a tree (patch.Open, and every Tx before it locks) and reports
// each interrupted commit it handled ([Recovery], whose String is one line for a log or a
// command's stderr). For every journal in root/.hkwfs it first tries the journal's lock: a
// live writer holds it, and its journal is skipped. A dead writer's journal is parsed up to
// the first line a crash cut short, the locks of its directories are taken, and the commit is
// rolled forward when the commit mark is there (every temporary was staged and synced) and
// no rollback mark follows, else rolled back. Each step first compares the target with the
// journal's before and after states: a target already in the wanted state is left alone, and
// a target in neither state was changed by another writer after the crash and is left as
// found ([Recovery].Conflicts: the other writer's content is kept, the commit's dropped).
// Recovery is therefore idempotent and itself crash-safe: killed at any point, it is run
// again and reaches the same end. A tree is only ever seen in its before or its after state,
// with no temporary left. The journal goes last. When nothing is pending, recovery costs one
// Lstat. Recovery acts only on journals a writer of this user made: the journal directory a
// directory of mode 0700 and each journal a regular file of mode 0600, both the user's (on
// Windows, whose volumes keep no permission bits, only the types are checked), naming only
// temporaries, kept files and scratch copies named after their targets; a .hkwfs copied in
// from a checkout or an archive is refused, not acted on.
//
// Trees nested in one another: every commit also recovers the journals in <d>/.hkwfs for
// each directory d between its root and its targets, so a writer of an outer tree finishes or
// undoes an inner tree's interrupted commit before it touches the inner files. A writer whose
// root lies inside another writer's tree cannot read that tree's journals (they lie outside
// its bases): an interrupted commit of the outer tree is finished by the outer writer's next
// open or commit, and since recovery never overwrites a later change, what the inner writer
// wrote meanwhile is kept (that file is listed in Conflicts).
//
// The journal is JSON lines: a header {"wfs":1,"id","pid","root"}, then records {"scratch"}
// (a [Tx.Scratch] copy), {"mkdir":[…]} (directories the commit creates), {"op":{…}} (one per
// target: kind "write" or "delete", name, temp, aside, how the old file is kept ("link",
// "copy" or "move"), whether it is written in place or linked into place, and the "old" and
// "new" states), {"mark":"commit"} and {"mark":"rollback"}. A state is {"type":"absent"},
// {"type":"file","size","crc32c"} (no checksum for a file over the size limit, compared by size)
// or {"type":"symlink","target"}. The format is versioned by the header's "wfs" field.
//
// # Files
//
//   - Metadata. A replaced regular file keeps its whole mode (permissions, setuid, setgid,
//     sticky), its owner and group where the process may set them (a change of owner needs
//     privilege; a change of group, membership of it), and its extended attributes, POSIX
//     ACLs included (Linux and macOS; an attribute the process may not set, such as
//     security.* without privilege, is skipped). A new file gets [DefaultFileMode] or the
//     given mode under the umask; NewMode makes a replacing write take nothing from the old
//     file, and MetaFrom takes everything from another file (the source of a move).
//   - Hard links. A file with more than one hard link is written in place, under the lock:
//     its content is staged and a copy of its old content kept aside first, so a crash is
//     rolled forward from the staged copy and a failure rolled back from the kept one.
//     Every name of the file sees the new content; none is split off. (Readers may see such a
//     file partly written during its switch; a file with one link is replaced atomically.)
//     On Windows, where a FileInfo has no link count, an OSFS reads it from the file by
//     name at the check.
//   - Symbolic links. A Tx writes names as given and never follows a final symbolic link
//     for writing: a Write whose Snapshot is a link is refused unless ReplaceLink says the
//     link itself is to be replaced. To write through a link to its target, call [Follow]
//     first; on an OSFS the target must lie inside a base (os.Root refuses others).
//   - Read-only files. A write needs write permission on the target for the process's class
//     (owner, group, others), as the kernel decides for an open for writing; and a file with
//     no write bit at all (0444) is refused to a superuser too, whom the kernel would let
//     write it: such a file is read-only on purpose. MemFS judges as the file's unprivileged
//     owner. Deleting a read-only file needs only its directory to be writable, as on disk.
//   - Special files. A FIFO, socket or device is recognised from Lstat and never opened:
//     [Read] describes it (TypeSpecial) and a Tx refuses it (ErrSpecial). Every open for
//     reading is non-blocking and re-checks the type on the open handle, so a name swapped for
//     a FIFO between the two calls does not block either.
//   - Size. [Read] does not read a file over its limit (the Snapshot has Large set: such a
//     file can be deleted, not written), and a Tx refuses to write one, or to write data over
//     the limit, with ErrTooLarge.
//
// # Names
//
// Every temporary, kept-aside file and scratch copy is named by [TempName]: "." + the
// target's name cut to 200 bytes on a UTF-8 boundary + ".hk-" + 16 random hex digits + a
// suffix (".tmp" for new content, ".old" for a kept file, the caller's for a scratch copy,
// such as ".rb"), at most 253 bytes: a valid name of 255 bytes has a valid temporary. The
// names are hidden (a leading dot), so builds and globs skip them. [IsLeftover] recognises
// them, and the temporaries of earlier patch and format releases. Journals live in
// root/[JournalDir] (".hkwfs"), which exists only while a commit runs or a journal waits
// for recovery.
//
// # Errors
//
// Every failure of Read, Tx.Commit and Recover is an [*Error] (Op, Name, and the details of
// the failure) that unwraps to one of the sentinels ErrChanged (a Create onto a name that
// exists also matches fs.ErrExist), ErrBusy, ErrTooLarge, ErrReadOnly (also fs.ErrPermission),
// ErrSpecial, ErrInUse (Windows: another program holds a target open without sharing it), or
// to the file system's error; a context that ends before the switch returns
// ctx.Err(). Errors of the FS methods themselves are the os package's, with ErrOutside (also
// fs.ErrPermission) for a name outside an OSFS's bases and ErrNotAbs for a relative name. On
// Windows an OSFS returns Windows' own errors: errors.Is with the io/fs sentinels holds, but
// comparisons with POSIX errnos such as syscall.ENOTEMPTY do not (the package never renames
// directories, where they would differ).
//
// # Differences between MemFS and OSFS
//
// A rapid state machine runs random operation sequences on both and requires identical
// results, error texts included; it avoids, on purpose: symbolic links that leave a base and
// absolute link targets (OSFS refuses them, MemFS, which has no bases, follows them); chains
// of more than 8 links (os.Root stops at 8, MemFS at [MaxSymlinks], 40); permission modes
// that deny the owner (MemFS enforces them as for an unprivileged owner, a process running as
// root bypasses them on disk). MemFS reports the zero modification time and size 0 for
// directories, ignores trailing separators, follows POSIX rules on every platform, and keeps
// no owner or extended attributes.
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
// journal for a dead writer's; such an FS must have one writer at a time.
package wfs
