// Package patch applies patches in the Codex apply_patch format ("*** Begin Patch" …
// "*** End Patch") the way an agent host needs: it finds every change despite the small drift
// models produce, refuses to guess when a location is not unique, and writes all files or
// none.
//
// Use it when a host exposes an apply_patch tool and applies the patches itself ([Applier.Apply]),
// or when the host keeps its own Codex-like applier and only wants the model's patch repaired
// first ([Applier.Rewrite]). Do not use it for unified diffs (git diff output): the format is
// Codex's, with "@@ <context line>" anchors instead of line ranges ([Parse] names a unified
// diff it is given; a unified-diff chunk header inside a patch is tolerated, see below).
//
// # Life cycle
//
//	Parse → Patch {Format}                                  (text ↔ model, pure)
//	ApplyEdits(path, data, edits)                           (string-replacement edits, pure)
//	Open(root, opts…) or New(fsys, root, opts…) → Applier {In} → Plan → Commit
//	                                     (Apply = Plan + Commit) └→ Rewrite (text, nothing written)
//
// [Parse] reads the text strictly inside a lenient envelope (CRLF, padded markers, a heredoc
// wrapper, stacked "@@" lines) and reports errors with the patch line. [Open] builds an
// [Applier] over a real directory (a [wfs.OSFS] over the root and worktrees; Close it when
// done) and first recovers the tree: a commit a crash interrupted is finished or undone
// ([Applier.Recovered] says which). [New] takes any [wfs.FS] ([wfs.NewMemFS] for tests and
// hosts without a disk) and checks that the root exists. [Applier.Plan] checks every path for
// containment before anything is read, then recovers the root again (so a plan never rests
// on a tree a killed writer left half switched; the recoveries are in Result.Recovered, a
// journal that is not this user's own is reported and left alone, see package wfs), then
// plans every section in memory over an overlay of the tree, so later sections see the
// results of earlier ones; Rewrite plans through the same planner and never reads a file
// itself; every section it renders is checked against a model of Codex's applier and, when
// the model would not reach the planned lines, rendered as a plain line difference instead.
// [Applier.Commit] writes all files or none through one [wfs.Tx]: it locks the directories
// against every other harnesskit writer (in any process), re-checks each file against the
// plan, journals, stages, switches, syncs, and rolls back everything if a step fails.
//
// # Locating a chunk
//
// Each chunk's old lines (context and removed lines) are sought from a cursor with a tolerance
// ladder: exact, trim-end, unicode (typographic dashes, quotes and spaces mapped),
// unicode-trim-end, trim, unicode-trim. A match must be unique: at every loose level always,
// and at exact level too when the chunk has no "@@ <anchor>" line (counted over the whole
// file, apart from windows other chunks took); with an anchor the first exact match after it
// wins, as in Codex, unless the anchor is on several lines and the chunk's lines follow them
// at different places (taking the first would be a guess: refused as ambiguous). One exact
// tie is not a guess: chunks without an anchor that have the same lines (context, removed and
// added) and whose old lines are, as written, at exactly as many places in the whole file as
// there are such chunks, the places apart from one another and from other chunks' windows,
// none above where the previous chunk left the search, and the new lines nowhere in the file
// yet. Every place then gets the same change whichever chunk goes where; the chunks take
// the places in the patch's order, and each is reported with a note naming the others. With
// one place more or less, or with chunks that add different lines, the tie stays refused.
// An ambiguity is an error ([KindAmbiguous]) that lists up to six
// candidate lines and never falls through to a looser level. A chunk matched only at a loose
// level is also refused as ambiguous when one of its drifted lines could be read as another
// file line: a context line beside added lines, or a removed line, that equals its file line
// only loosely while a file line near the place (within the chunk's length) is that line as
// written or at a stricter level. After a file was re-indented, closing brackets and repeated
// statements are such lines, and the added lines could go next to either. The rescues below
// refuse such a placement too. Stacked anchors narrow the
// search in turn; a chunk with "*** End of File" is tried only at the end. An anchor is a
// hint, not a requirement: when an anchor is nowhere in the file (the other edit renamed or
// rewrote the function it named), a chunk with old lines is placed by those lines alone, under
// every rule of a chunk without an anchor (unique in the whole file at exact level too, the
// rescues below), and the report says the anchor was not found, naming the nearest line above
// the chunk that resembles it as the anchor renamed; when the lines do not place it, the
// anchor's error says why. A pure insertion has no lines of its own and still needs its anchor. Two mistakes models
// make are located safely: a chunk given above the previous one is sought in the whole file
// (it must be unique there; the report notes "out of order"), and a unified-diff header
// "@@ -a,b +c,d @@ text" is not searched for: its numbers are ignored and the text after it,
// if any, is the anchor. A blank context line that ends a chunk which matches nowhere is
// dropped and the chunk sought again, as Codex does, but taken only where the rest of the chunk
// then ends the file (the blank was the file's final newline; anywhere else the rest could
// match where the patch did not mean it); a removed blank line, or a blank context line
// followed by added lines, is never dropped.
//
// When no level matches, three bounded rescues may place a chunk whose context drifted:
// prefix/suffix (context edges around a middle of the same length, whose removed lines equal
// the file and whose context lines may differ a little), LCS (a window of about the chunk's
// length that keeps most of its lines, applied through the alignment, with a margin over the
// runner-up, and no other window as few line edits away), and stale edges (below). Whatever the strategy, a file line is removed only when it is paired
// with a removed line of the patch that it equals at a ladder level; file lines the patch does
// not name are kept. Added lines keep their place among the context: a drifted context line
// next to them is paired with the file line it resembles, and when they would have to go on a
// guessed side of a file line the patch left out (or of one of several equal lines), the
// rescue refuses — among others when that drifted line equals the file line beside it. Only
// lines that match as written, or loosely but uniquely, prove a place on their own; a rescue
// takes the place that fits best. So chunks land in the reverse of the patch's order (a later
// chunk above an earlier one) only when neither was placed by a rescue (the ladder, or the
// read-tool line numbers below, placed both): when a rescued chunk
// would land out of the patch's order with any other, the other edit has moved or swapped the
// blocks the patch names, which chunk goes where is a guess, and the section is refused as
// ambiguous, naming both chunks. A removed line that changed since the model read the file is never
// "rescued": the error names the line and both versions. Every placement is reported in a
// [ChunkReport]: strategy, window, the pairing of old lines with file lines, notes. Locating,
// rescuing and the not-found diagnostic each stop at a deterministic work limit
// ([RescueOptions].WorkLimit).
//
// The stale-edges rescue is for context that another edit changed after the model read the
// file: a line near the change rewritten, added or removed. It leaves out up to three context
// lines at each end of the chunk, never the one next to a change, and places the chunk by the
// rest only when that rest (every removed line as written included) matches exactly one place
// in the file, no other place holds a block that resembles it line by line, no other place
// holds as many of the chunk's lines in order, and every best alignment of the chunk with the
// lines around that place puts the change between the same file lines. A place that resembles
// the block (a near copy) is ruled out only by the patch's order: when a chunk whose place is
// certain (lines that match as written or loosely and are unique in the file, or another
// stale-edges placement, whose own near copies are checked the same way) lies between the
// two — a later chunk below the place and above the copy's end, or an earlier one above the
// place and below the copy's start — the copy would put the chunks out of the patch's order;
// any near copy not ruled out so refuses the section as ambiguous, naming both places. The
// patch's order is taken as evidence here: a patch whose chunks are not in the file's order,
// on a file whose intended place was edited to resemble another, defeats it. The lines left out are
// kept as the file has them. It is a fuzz (as GNU patch's) that takes no guess: where
// fuzz writes the first place that fits, this refuses whenever a second reading exists.
//
// Every rescue also follows one rule for a change next to lines that the file has changed
// (where a 3-way merge would report a conflict). Lines a change replaces must still be there
// as written and next to each other, and a context line beside them that drifted is kept as
// the file has it; added lines that replace nothing go between the two file lines that the
// context lines on either side of them are paired with, which must be adjacent. A context line
// the file no longer has there, or a line the file has among or beside the changed lines that
// the patch does not show, would make the place of the added lines a guess: refused.
//
// A change that is already in the file — a patch sent twice, or added lines already at their
// place — is refused with [KindAlreadyApplied] and nothing is written (adding a blank line
// twice is allowed). A patch only part of which is in the file (a model re-sends a whole
// patch after a partial write) has the rest applied when the part is proven: each chunk found
// applied removes a line with a letter or digit, no run of its removed lines is left in the
// file as written, and its new lines are in the file exactly once — or, for a chunk that only
// adds lines, those lines have a letter or digit, stand between context lines on both sides,
// and the context lines are nowhere in the file next to each other without them (the chunk
// could not be applied anywhere as written; the addition is there); a chunk found applied is
// not applied whole when, read with one of its changes not made (a closing bracket it removes
// beside an equal one, say), it also matches the file over or beside where its new lines are;
// every other chunk is
// placed with its lines as written (a ladder level, no rescue), adds no two lines in a row
// that the file already has, does not have its new side already over or beside its
// window, and does not match there too when read with one of its changes made (it may be
// partly applied itself); and all the chunks, applied and placed, lie in the patch's order without
// overlapping. The applied chunks are reported ([StrategyAlreadyApplied], with where their
// new lines are) and left as they are. Otherwise the whole patch is refused as before, with
// the message naming each chunk as applied, partly applied, not applied yet, or failing.
//
// A chunk can be partly applied itself: of its changes (the runs of removed and added lines
// between its context lines), some are in the file and the others not. When such a chunk
// matches nowhere as written (before any rescue is tried), it is read with each change either
// made or not; it is applied
// for the changes not made when exactly one such reading matches the file exactly, in one
// place only in the whole file, and that reading has at least one change made and one not;
// each change taken as made adds a line with a letter or digit, has context lines on both
// sides, and no run of its removed lines with a letter or digit is left in the file as
// written; and the chunk, with the rest of the patch, meets the rules for a patch partly
// applied (above). Then
// the lines around the missing changes are the ones the patch names, in its order, and the
// made changes are its own, not a second copy it means to add. The chunk is reported with
// the strategy of an exact match and a note naming the changes left as they are. A chunk with
// "*** End of File", one that starts with a change, or a reading above the chunk's anchor is
// not read this way, nor is any chunk in Codex mode.
//
// A chunk whose added lines right above or below the lines it matched (next to a kept line,
// with a letter or digit among them) are already the file's lines there is refused as well:
// the change looks partly applied, and adding them again would repeat them.
//
// Lines copied from a read tool with their line numbers ("    12\t…" or "    12→…") are applied
// with the numbers removed when every context and removed line of the chunk has one, the
// numbers are consecutive, no added line has one, and the lines match where the first number
// says (the numbers also choose among equal places). Any other chunk with such numbers that
// matches nowhere is refused with a message saying that line numbers are not part of the file.
// A file whose lines really look like that matches as written first.
//
// Context and removed lines always keep the file's bytes; added lines are the model's bytes.
// Each line keeps its terminator, inserted lines get the file's dominant one, and the
// final-newline state and a UTF-8 BOM are kept ([EOLPreserve]).
//
// # Codex compatibility
//
// The default mode diverges from Codex in three places, each on purpose: an Add or Move onto
// an existing file is refused ([KindExists]) instead of overwriting it; the final-newline
// state and BOM are kept instead of normalised; and a failing section leaves nothing written
// instead of the earlier sections. [WithCodexCompat] restores all three (or use
// [WithOverwrite], [WithEOL] and [WithAtomic] one by one), and locates as Codex does: the
// first exact match wins without an anchor, chunks are sought only below the previous one,
// a unified-diff header is an ordinary anchor, a chunk with "*** End of File" fails when the
// end of the file is above where the previous chunk or its anchor left the search, and a change
// already applied is applied again.
// The loose levels' uniqueness rule, anchors, the prefix/suffix and LCS rescues (with their
// side check) and containment stay on; the stale-edges rescue, the read-tool line numbers and
// the side check on a loose ladder match are default-mode only (the first relies on the checks
// for changes already applied, which Codex leaves out; the last would refuse matches Codex
// takes).
//
// Without atomicity the sections are still planned in one pass over the overlay, up to the
// first one that fails; the sections before it are then committed one at a time, each all or
// nothing, and the error's Section says where writing stopped. Its Written lists what those
// sections wrote, and its message names those files and asks for only the failing section
// and those after it, so that a model does not send the written ones again.
//
// # Files
//
// Every commit goes through package wfs, whose documentation is the whole write contract;
// in short: an update keeps the file's whole mode (permissions, setuid, setgid, sticky), its
// owner and group where the process may set them, and its extended attributes and ACLs; a
// file the patch creates gets the configured mode ([WithNewFileMode]) under the umask, also
// when a later section rewrites or moves it, and a moved file keeps what its source carried.
// A file with several hard links is written in place, so every name sees the update. A file
// the process may not write (0444, also for a superuser) is refused ([KindReadOnly]), and so
// is one over the size limit ([KindTooLarge], naming the limit; it can still be deleted) and
// an Add File whose content is over it, before anything is written. A FIFO, socket or device
// is refused ([KindPathConflict]) from its type, before it is ever opened, so nothing blocks.
// A commit that another writer holds the lock of a target for longer than the lock wait is
// refused with [KindBusy]. One patch may not reach one file through two names (a symbolic
// link and its target, two hard links, or two spellings that differ only in Unicode
// normalisation, such as "café" precomposed and decomposed, which macOS stores as one file:
// refused on every system, also where case is folded as well), and a Move onto another name
// of its source is a Move onto an existing file. Delete of a symbolic link removes the link;
// a later section naming that path means what took the link's place, never its old target.
// Temporary files are hidden and recognised by [wfs.IsLeftover]; a commit removes its own,
// recovery removes those of a crashed commit, and Plan reports (never deletes) any left in
// the directories it touches.
//
// # Formatting
//
// [WithFormatter] runs a [Formatter] (one method, standard types only, so a host passes the
// same value to this package and to others) on every file a plan adds, updates or moves; the
// formatted bytes are what the commit writes. A formatter that fails leaves the edit as the
// patch made it. Each FileChange says which formatter ran and carries its change as a unified
// diff of at most 40 lines, or a note to re-read the file.
//
// # Errors
//
// Every failure is an [*Error] whose [Kind] maps to a sentinel ([ErrNotFound],
// [ErrAmbiguous], [ErrBlocked], …) for errors.Is, and whose fields give the path, the patch
// line, the section and chunk, and for a chunk that was not found the nearest file line. The
// message is written for the model: what failed, where, and what to do instead. Chunks that
// overlap are named with the file lines of both. Messages stay bounded whatever the patch:
// a chunk of more than 12 lines is quoted by its first and last 5 lines and a count of the
// rest, and a quoted line is cut after about 240 bytes.
//
// # String-replacement edits
//
// Most hosts give models an edit tool instead of apply_patch: a file, an old string, a new
// string, optionally replace-all, and a list of such edits applied in order. [Applier.Edit]
// (or [Applier.PlanEdit] then Commit) is that operation; [ApplyEdits] is its pure core. It
// lives in this package rather than beside it because it is the same job on another input:
// it reuses the locator's tolerance ladder, its unique-match rule and side check, the
// read-tool line-number handling, the line-ending rules, the planner's overlay, the formatter
// step and the commit, and its errors are this package's [*Error] (Op "edit"). The old string
// is sought as written first (unique, or every place with replace-all), then as whole lines
// on the ladder; none of the rescues run, since each relies on a threshold or on leaving out
// lines the model gave: an edit applies where its old text is, or is refused with the
// closest place and its first differing line, the lines of every match, or a note on line
// numbers. A host that passes the digest of what it last showed the model
// ([EditRequest].ReadDigest, [Digest]) has an edit of a file changed since refused.
//
// # Security Considerations
//
// Paths are checked with [pathguard.Containment] (lexically and with symlinks resolved,
// segment-aware) over the root and the worktrees before any content is read; a patch naming
// any outside path is refused whole ([KindBlocked]), or passed through untouched with
// [WithOutsidePolicy]([PassThrough]) for hosts with their own permission flow. All I/O uses
// the resolved real paths, and [wfs.OSFS] performs it through one os.Root per base, so a path
// swapped for a symlink after the check cannot escape. Files larger than [DefaultMaxFileSize]
// are refused, rescues are bounded by a deterministic work limit, and a file changed on disk
// between planning and commit is never overwritten ([KindChanged]).
package patch
