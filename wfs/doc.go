// Package wfs is the one write layer of harnesskit: a file-system seam ([FS]) in memory
// ([MemFS]) or over [os.Root] ([OSFS]), and the commit protocol ([Tx]) that every writer in
// every process follows, so a file that patch, astsearch, format and webfetch edit at once is
// never half-written, overwritten behind a writer's back, or stripped of its owner, mode or
// attributes. Use it for files others may edit at the same time or that must survive a crash
// in a known state; not for files only your process touches, or append-only logs.
//
// # Life cycle
//
//	NewOSFS(bases…) or NewMemFS() → FS
//	Read(ctx, fsys, name, limit) → Snapshot          (Follow first to write through a link)
//	Begin(fsys, root, opts…) → Tx {Write | Create | Delete | Scratch} → Commit | Abort
//	Recover(ctx, fsys, root) → []Recovery            (on opening a tree)
//
// # The seam
//
// [FS] has nine methods over absolute, OS-native names and the os package's errors.
// Extensions are found by type assertion: [ReadDirFS], [LinkFS], [LockFS] (without it a Tx
// excludes nobody), [MetaFS], [KeyFS]; MemFS has all but MetaFS, OSFS all. [DirFS] is an
// io/fs view for readers; package wfstest checks an implementation.
//
// # The commit
//
// [Tx.Commit] writes every operation of a Tx or none, in the same steps in every harnesskit
// writer (PROTOCOL.md beside this file sets them out, with the journal's format and the
// Windows details). It recovers dead writers' journals (see Recovery); locks the directory
// of every target, all or none, within the lock wait, else ErrBusy (the kernel drops a dead
// process's locks; a live holder is never overridden); checks every target against its
// [Snapshot], metadata then content (a file over the size limit by its metadata and, except
// on Windows, its status-change time), else ErrChanged, having written nothing; journals its
// intent, signed (see Trust); stages each new content in a synced temporary with its final
// metadata and keeps each replaced or deleted file aside (a link or a synced copy); switches
// in order (a new file is linked in, never replacing one that appeared); and syncs the
// directories. A failure in the switch or the sync restores every switched target under the
// locks ([Error].RolledBack, [Error].NotRestored). A one-step commit does not sync its
// journal: a power loss may leave it empty (recovery sets it aside) and leave its temporary,
// which [IsLeftover] recognises.
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
// So a planted journal is never acted on: recovery reports it (Outcome Refused, with the
// reason; the harnesskit command prints it on stderr), leaves it, and the write goes on. A
// .hkwfs that is not a directory makes every commit that needs a journal fail, naming it. A
// journal carries no date: one of this user's own, copied at a crash and put back later with
// its files, is recovered again, but only over files still in its before state (a later edit
// is kept), so the most it can do is write what this user's writer once meant to write.
// What the tree's files do when run (a Makefile) is outside what wfs can see.
//
// # Files
//
//   - A replaced file keeps its whole mode, its owner and group where the process may set
//     them, and its extended attributes and POSIX ACLs. A file with several hard links is
//     written in place, its old content kept aside first, so every name sees the new
//     content (readers may see it half-written; a one-link file is replaced atomically).
//   - A Tx never writes through a final symbolic link: [Follow] it (on an OSFS, to a target
//     inside a base) or replace it ([ReplaceLink]).
//   - A write needs write permission, as the kernel decides; a file with no write bit at all
//     (0444) is refused to a superuser too (ErrReadOnly). A delete needs a writable directory.
//   - A FIFO, socket or device is never opened; every open for reading is non-blocking and
//     re-checks the type on the handle. A file over the size limit is never read.
//
// # Security Considerations
//
// OSFS reaches real directories only through one os.Root per base: content access and
// changes cannot leave the bases, even if a directory on the way is swapped for a symbolic
// link. Temporaries are created exclusively with mode 0600 until they get their final mode.
// Locks are advisory: they exclude every harnesskit writer on the same kernel (not across NFS
// clients), not programs that take no lock; against those the check narrows the window to
// the time between the check and the rename, and a Create never replaces. Without [LockFS] (a
// custom FS) recovery takes every journal for a dead writer's: such an FS must have one writer
// at a time.
package wfs
