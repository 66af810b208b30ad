// Package patch applies patches in the Codex apply_patch format ("*** Begin Patch" …
// "*** End Patch") the way an agent host needs: it finds every change despite the small drift
// models produce, refuses to guess when a location is not unique, and writes all files or
// none.
//
// Use it when a host exposes an apply_patch tool and applies the patches itself ([Applier.Apply]),
// or when the host keeps its own Codex-like applier and only wants the model's patch repaired
// first ([Applier.Rewrite]). Do not use it for unified diffs (git diff output): the format is
// Codex's, with "@@ <context line>" anchors instead of line ranges.
//
// # Life cycle
//
//	Parse → Patch {Format}                                  (text ↔ model, pure)
//	New(fsys, root, opts…) → Applier {In} → Plan → Commit   (Apply = Plan + Commit)
//	                                     └→ Rewrite          (canonical text, nothing written)
//
// [Parse] reads the text strictly inside a lenient envelope (CRLF, padded markers, a heredoc
// wrapper, stacked "@@" lines) and reports errors with the patch line. [New] builds an
// [Applier] over an [FS] ([NewOSFS] for real directories, [NewMemFS] for tests and hosts
// without a disk). [Applier.Plan] checks every path for containment before anything is read,
// then plans every section in memory over an overlay of the tree, so later sections see the
// results of earlier ones. [Applier.Commit] re-checks each file's SHA-256, stages temporary
// files, renames them into place and rolls back everything if a step fails.
//
// # Locating a chunk
//
// Each chunk's old lines (context and removed lines) are sought from a cursor with a tolerance
// ladder: exact, trim-end, unicode (typographic dashes, quotes and spaces mapped),
// unicode-trim-end, trim, unicode-trim. At exact level the first match wins, as in Codex; at
// every looser level the match must be unique, and an ambiguity is an error ([KindAmbiguous])
// that never falls through to a looser level. "@@ <anchor>" lines narrow the search (several
// stacked anchors narrow it in turn); a chunk with "*** End of File" is tried only at the end.
// When no level matches, two bounded rescues may place a stale chunk: prefix/suffix (unique
// unchanged edges around a stale middle, within a span bound) and LCS (a window keeping most
// of the old lines, with a margin over the runner-up). Every placement is reported in a
// [ChunkReport]: strategy, window, notes.
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
// [WithOverwrite], [WithEOL] and [WithAtomic] one by one); the tolerance ladder, the
// uniqueness rule, anchors, rescues and containment stay on.
//
// # Errors
//
// Every failure is an [*Error] whose [Kind] maps to a sentinel ([ErrNotFound],
// [ErrAmbiguous], [ErrBlocked], …) for errors.Is, and whose fields give the path, the patch
// line, the section and chunk, and for a chunk that was not found the nearest file line. The
// message is written for the model: what failed, where, and what to do instead.
//
// # Security Considerations
//
// Paths are checked with [pathguard.Containment] (lexically and with symlinks resolved,
// segment-aware) over the root and the worktrees before any content is read; a patch naming
// any outside path is refused whole ([KindBlocked]), or passed through untouched with
// [WithOutsidePolicy]([PassThrough]) for hosts with their own permission flow. All I/O uses
// the resolved real paths, and [OSFS] performs it through one os.Root per base, so a path
// swapped for a symlink after the check cannot escape. Files larger than [DefaultMaxFileSize]
// are refused, rescues are bounded by a deterministic work limit, and a file changed on disk
// between planning and commit is never overwritten ([KindChanged]).
package patch
