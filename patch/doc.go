// Package patch parses, validates, rescues and applies patches in the Codex apply_patch
// format ("*** Begin Patch" … "*** End Patch").
//
// Contract: a patch is parsed strictly inside a lenient envelope, every path is checked for
// containment in the allowed root and worktrees before any content is read, every file's new
// bytes are planned in memory, and then all writes are committed or none are. A chunk whose
// context drifted by whitespace or Unicode punctuation is located by a bounded, conservative
// tolerance ladder and reported; a location that is not unique is refused, never guessed.
// Line endings, the final-newline state and a byte-order mark of every updated file are kept.
//
// The behaviour is specified in the project's patch specification; the package gets its code
// with the patch issue.
package patch
