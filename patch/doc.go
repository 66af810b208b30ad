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
// at different places (refused as ambiguous). Uniqueness is judged in the file as it is: lines
// that were also at a place since edited go to the one place left. One exact tie is not a
// guess: chunks with the same lines and no anchor the file has, whose old lines are at exactly
// as many places in the file as there are such chunks (apart from one another and other
// chunks' windows, none above where the previous chunk left the search),
// and whose new lines are nowhere in the file yet, take the places in the patch's order (each
// place gets the same change), each noted in the report. With one place more or less, or
// chunks that add different lines, the tie stays refused.
// An ambiguity is an error ([KindAmbiguous]) that lists up to six
// candidate lines and never falls through to a looser level. A chunk matched only at a loose
// level is also refused as ambiguous when one of its drifted lines could be read as another
// file line: a context line beside added lines, or a removed line, that equals its file line
// only loosely while a file line near the place (within the chunk's length) is that line as
// written or at a stricter level (closing brackets after a re-indent, say). The rescues below
// refuse such a placement too. Stacked anchors narrow the
// search in turn; a chunk with "*** End of File" is tried only at the end. An anchor is a
// hint, not a requirement: when an anchor is nowhere in the file, a chunk with old lines is placed by those lines alone, under
// every rule of a chunk without an anchor (unique in the whole file at exact level too, the
// rescues below), and the report says the anchor was not found, naming the nearest line above
// the chunk that resembles it as the anchor renamed; when the lines do not place it, the
// anchor's error says why. A pure insertion has no lines of its own and still needs its anchor. Two mistakes models
// make are located safely: a chunk given above the previous one is sought in the whole file
// (it must be unique there; the report notes "out of order"), and a unified-diff header
// "@@ -a,b +c,d @@ text" is not searched for: its numbers are ignored and the text after it,
// if any, is the anchor. A blank context line that ends a chunk which matches nowhere is
// dropped and the chunk sought again, as Codex does, but taken only where the rest of the chunk
// then ends the file (the blank was the file's final newline); a removed blank line, or a blank context line
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
// rescue refuses — among others when that drifted line equals the file line beside it. Chunks
// land in the reverse of the patch's order (a later chunk above an earlier one) only when
// neither was placed by a rescue: a rescued chunk that would land out of the patch's order
// with any other refuses the section as ambiguous, naming both chunks (the other edit moved or
// swapped the blocks, and which goes where is a guess). A removed line that changed since the model read the file is never
// "rescued": the error names the line and both versions. Every placement is reported in a
// [ChunkReport]: strategy, window, the pairing of old lines with file lines, notes. Locating,
// rescuing and the not-found diagnostic each stop at a deterministic work limit
// ([RescueOptions].WorkLimit).
//
// The stale-edges rescue is for context that another edit changed after the model read the
// file: a line near the change rewritten, added or removed. It leaves out up to three context
// lines at each end of the chunk, never the one next to a change, as few as give a match,
// and places the chunk by the rest only when that rest (every removed line as written
// included) matches exactly one place in the file, no other place holds a block that
// resembles it line by line or as many of the chunk's lines in order, and every best
// alignment puts the change between the same file lines. A near copy of the block elsewhere refuses the section as ambiguous, naming both
// places, unless the patch's order rules it out: a chunk whose place is certain lies between
// the two. So a patch whose chunks are not in the file's order, on a file whose intended place
// was edited to resemble another, defeats it. The lines left out are kept as the file has
// them. Unlike GNU patch's fuzz, which writes the first place that fits, it refuses whenever
// a second reading with as few lines left out exists; a place that fits only with more left
// out does not count, nor, for LCS, a window more line edits away. These two preferences are
// judgements, not proofs: where the other edit changed just the lines that tell the two
// places apart, the change can land at the wrong one.
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
// window, and does not match there too when read with one of its changes made; and all the chunks, applied and placed, lie in the patch's order without
// overlapping. The applied chunks are reported ([StrategyAlreadyApplied], with where their
// new lines are) and left as they are. Otherwise the whole patch is refused, the message
// naming each chunk as applied, partly applied, not applied yet, or failing.
//
// A chunk can be partly applied itself: some of its changes (the runs of removed and added
// lines between its context lines) are in the file, the others not. When it matches nowhere
// as written (before any rescue), it is read with each change made or not, and applied for
// the changes not made when exactly one reading, with at least one change made and one not,
// matches the file exactly at one place in the whole file; each change taken as made adds a
// line with a letter or digit, has context lines on both sides, and leaves no run of its
// removed lines with a letter or digit in the file as written, nor its old form between those
// context lines; each change not made stands between its context lines once in the file; and the chunk, with the rest of
// the patch, meets the rules for a patch partly applied (above). Then the lines around the
// missing changes are the ones the patch names, and the made changes are its own, not a
// second copy it means to add. It is reported with the strategy of an exact match and a note
// naming the changes left as they are. Not read this way: a chunk with "*** End of File", one
// that starts with a change, a reading above the chunk's anchor, any chunk in Codex mode.
//
// A chunk whose added lines right above or below the lines it matched (next to a kept line,
// with a letter or digit among them) are already the file's lines there is refused as well:
// adding them again would repeat them.
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
// Without atomicity a failing section leaves the sections before it written; [Applier.Apply]
// says how, and what the error then names.
//
// # Files
//
// Every commit goes through package wfs, whose documentation is the whole write contract
// (modes, owners, extended attributes and ACLs kept; hard links written in place; temporary
// files recognised by [wfs.IsLeftover], which Plan reports and never deletes). A file the
// patch creates gets the configured mode ([WithNewFileMode]) under the umask, also when a
// later section rewrites or moves it, and a moved file keeps what its source carried. Refused before anything is written: a file the process
// may not write (0444, also for a superuser: [KindReadOnly]); one over the size limit, or an
// Add File whose content is ([KindTooLarge], naming the limit; such a file can still be
// deleted); a FIFO, socket or device, from its type, never opened ([KindPathConflict]); a
// target whose lock another writer holds longer than the lock wait ([KindBusy]). One patch
// may not reach one file through two names (a symbolic link and its target, two hard links,
// or two spellings that differ only in Unicode normalisation, such as "café" precomposed and
// decomposed, which macOS stores as one file: refused on every system), and a Move onto
// another name of its source is a Move onto an existing file. Delete of a symbolic link
// removes the link; a later section naming that path means what took the link's place.
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
// (or [Applier.PlanEdit] then Commit) is that operation and [ApplyEdits] its pure core, whose
// documentation has the rules: a chunk's ladder, unique-match rule, side check, read-tool
// line numbers and line endings, no rescue, and this package's [*Error] (Op "edit"). A host
// that passes the digest of what it last showed the model ([EditRequest].ReadDigest,
// [Digest]) has an edit of a file changed since refused.
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
