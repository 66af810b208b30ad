// Package astsearch is structural search and rewrite over syntax trees, with ast-grep's
// pattern syntax.
//
// Contract: a pattern is compiled once per language, matched against flat syntax trees with
// metavariables ($A, $$$ARGS), and a rewrite template is expanded into edits that are shown
// as dry-run diffs before anything is written; writes are atomic per file and stay inside the
// allowed roots. Files are read through fs.FS.
//
// The behaviour is specified in the project's astsearch specification; the package gets its
// code with the astsearch issue.
package astsearch
