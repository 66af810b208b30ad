// Package astsearch is structural search and rewrite over syntax trees, with ast-grep's
// pattern language and results: for the same pattern, language, strictness and source it
// reports what ast-grep 0.51.1 reports (the same matches in the same order, byte ranges,
// positions and captures), and its [Match] encodes to the same JSON as
// `ast-grep run --json`. Use it to let a model find and change code by shape ("every call
// of fmt.Errorf with a format and arguments") rather than by text. It is not a linter or
// a rule engine: YAML rules, constraints and transforms are out of scope.
//
// Life cycle:
//
//	Search(fsys, Request)                      → Result {Matches, TotalMatches, Truncated, Hint, Stats}
//	Rewrite(fsys, Request, template) → Plan {Diff} → Plan.Apply(wfs.FS, root) → Applied
//	Compile(pattern, lang) → Pattern.FindAll(src)   (in memory)
//	NewTreeCache(maxBytes) → Request.Cache, for every search of a tree {Forget after outside writes}
//
// # Patterns
//
// A pattern is one complete syntax node of the language in which metavariables stand for
// nodes: $NAME is exactly one named node, captured (a repeated $NAME must match equal
// code); $_ is one named node, not captured; $$NAME and $$_ may also bind an unnamed node
// such as `;`; $$$NAME is zero or more sibling nodes, captured as a list with their
// separators; $$$ is the same, not captured. $lower, $1 and a lone $ are plain text. In the
// languages where `$` cannot start an identifier (C, C++, C#, CSS, Elixir, Go, HTML, Kotlin,
// PHP, Python, Ruby, Rust, Swift, Haskell, Nix) the metavariables are rewritten to a
// character the grammar accepts before parsing, exactly as ast-grep does. A pattern that is
// not UTF-8 text, holds a NUL byte, is empty, parses to several top-level nodes (`a; b; c`:
// write `{ $$$A; a; b; $$$B }`), or is a lone $$$NAME is rejected with a [*PatternError] wrapping [ErrBadPattern]; a pattern that
// parses with an ERROR node is accepted (Python `def $F($$$)` finds functions) and
// [Result.PatternHasError] says so. Matching is reentrant and in pre-order: a match inside
// another match is reported too, after it.
//
// Strictness ([Strictness], default Smart) is ast-grep's: cst compares every token; smart
// skips unnamed tokens and comments in the source; ast also ignores unnamed tokens of the
// pattern; relaxed also skips comments; signature ignores the text of named leaves; template
// ignores node kinds. So under signature a pattern without metavariables, `foo(bar)`, finds
// calls of any name with one argument of any name. Every file is searched: ast-grep's
// command line, given files by path, skips a file that lacks the pattern's fixed string
// (the longest text among its leaves, whatever the strictness) and so finds `baz(qux)` only
// in files that also contain `foo`; astsearch reports the matches there too, as ast-grep
// does on stdin.
//
// Go gotcha, reproduced on purpose: in tree-sitter-go `pkg.F()`, `pkg.F($X)` and
// `pkg.F($$$)` parse as type conversions and match no calls; write `pkg.F($A, $$$)` or
// `$F($$$ARGS)`, or give the call a context and select it ([WithSelector]): the context
// `func t() { fmt.Println($A) }` with the kind call_expression finds `fmt.Println(x)`. An empty result carries a [Result.Hint] when such a mistake is likely.
//
// # Files and walking
//
// Input is an fs.FS rooted at the project; [Request.Paths] and [Request.Globs] are slash
// paths relative to it and the process's working directory plays no part. Each requested
// path is checked before anything under it is read: with [Request.Guard] through
// pathguard's containment, and always for existence — a missing path is an error wrapping
// [ErrBlocked] with pathguard's message, never "no matches", and so is a path naming a
// FIFO, device or socket (reading it could block). A requested path that is or passes
// through a symbolic link is followed only when every link on it stays inside the fs root
// (relative, not climbing above the root, no loop), whatever the fs.FS: otherwise it is
// refused with [ErrBlocked] before anything is read. Inside directories only regular files
// are read. Directories are walked as
// ripgrep does: entries sorted by name, hidden files and directories skipped, .gitignore and
// .git/info/exclude honoured inside a git repository only, .ignore everywhere (ignore files
// above the fs root are not read, nor git's global excludes; a .git above the fs root is
// not seen either, so root the fs.FS at the repository to have its .gitignore honoured), symbolic links not followed;
// [Request.Globs] are overrides ("!" excludes, the last match wins, a whitelist glob keeps an
// ignored file but does not enter an ignored directory; a glob that does not parse is
// refused with [ErrBadPattern] rather than matching nothing). [Request.Hidden],
// [Request.NoIgnore] and [Request.FollowSymlinks] turn the rules off; a followed link is
// taken only when its real path (every link on the way resolved through the fs.FS, none
// absolute) stays inside the fs root and names a regular file or a directory that is not
// one being walked (a loop), so a tree of links cannot lead outside or run without end. A file reached through
// several requested paths is searched once, where the walk first lists it. A path named
// explicitly is searched even when hidden or ignored, but only if its extension belongs to
// the language (ast-grep's table, see [LangForPath]; `.h` is C). HTML files are never
// searched for CSS, JavaScript or TypeScript patterns (no language injection). Empty files,
// files that are not UTF-8, and files over 3,000,000 bytes that also have over 200,000
// lines are skipped and counted in [Stats], and so are files of [MaxFileBytes] or more,
// unread (tree-sitter cannot parse them); a file that cannot be read is recorded in
// Stats.Errors and the search goes on.
//
// # Results and limits
//
// Results are in walk order, and in pre-order within a file, every time. [Match] has
// ast-grep's JSON fields: the text, byte offsets (end exclusive), 0-based lines and columns
// counted in characters, the file's fs path, the whole source lines (with [Request.Context]
// lines around), the characters before and after the match inside those lines (a CRLF
// line keeps its `\r`), the language's display name, and the captures (nil when the
// pattern has none). Limits, with zero meaning the default: [Request.MaxMatches]
// ([DefaultMaxMatches]), [Request.MaxOutputBytes] (the compact JSON size of the kept
// matches, [DefaultMaxOutputBytes]) and [Request.Timeout] ([DefaultTimeout]). Hitting one
// sets Result.Truncated and TruncatedReason ("max_matches", "max_output_bytes", "timeout");
// TotalMatches still counts every match found; when the timeout cut the search short the
// reason is "timeout" even if a cap was hit too, as TotalMatches then misses files. Matches past the match cap are counted
// without being built, and a match's strings share one copy of its file, so many matches
// on one long line cost memory in proportion to the file, not to matches × line length. The timeout returns the partial result
// without an error; cancelling ctx returns ctx.Err(). Either one also stops the parses in
// progress: a file whose parse was stopped is not counted as searched nor as a parse
// failure, and it never passes for a file without matches.
//
// [Stream] yields the matches Search would keep, one at a time, as soon as a file and every
// file before it in walk order are done; it reads only a few files per worker ahead, so its
// memory does not grow with the tree, and breaking out of the loop stops the workers, a
// parse in progress included.
//
// # Tree cache
//
// A host that searches one tree again and again (an agent between two edits) gives every
// search the same [TreeCache] in [Request.Cache]; the native backend then parses only the
// files that changed since they were last searched, and the results are exactly those of
// a search without the cache. The contract:
//
//   - What is kept: the whole syntax tree of each file a search parsed (not only the parts
//     its pattern needed, so any later pattern, strictness or selector can use it), with the
//     file's source and metadata, named filepath.Join(Request.Dir, path). A cache shared
//     by several trees needs Request.Dir set, or their entries of the same path replace
//     each other (they never give wrong results).
//   - When a tree is reused: only for the same name, language and grammar, when the file's
//     metadata compares equal under [wfs.SameVersion] (file identity: device and inode, or
//     the system's file ID; type and mode bits; size; modification time; status-change time
//     where the system keeps one; all but the identity for an fs.FS whose FileInfos carry
//     none, such as embed.FS) and the bytes read now equal the stored source. The file
//     is still read each time; what a hit saves is the parse. A change of any kind, an
//     in-place rewrite of the same size with its modification time set back included (also
//     on Windows, which keeps no status-change time), or a replacement by rename, makes the
//     file parsed again and its entry replaced.
//   - Budget: [NewTreeCache] takes the bytes the cache may hold (the sources, the nodes at
//     44 bytes each, and a small overhead per entry; [DefaultTreeCacheBytes] is 512 MiB,
//     the trees of about 35 MB of Go); adding a tree evicts the least recently used ones
//     until it fits, and a tree larger than the whole budget is not kept. A search never
//     evicts a tree it used or added itself: once the cache holds only such trees, its
//     other files are parsed as without a cache, so a search that repeats over more than
//     the budget holds still reuses the part that fits. A budget of zero turns the cache
//     off.
//   - What invalidates: a change to the file (above); [Plan.Apply] drops the files it
//     writes from its request's cache; [TreeCache.Forget] and [TreeCache.Purge]. A host
//     that writes files by other means (patch, an editor, a formatter) should call Forget
//     with their names: not for correctness, which never depends on it, but so that the
//     memory of their stale trees is given back at once.
//   - [Stats] reports per search CacheHits, CacheMisses and CacheBytes (what the cache holds
//     after it); [TreeCache.Stats] the totals and evictions. The ast-grep CLI backend does
//     not use the cache.
//   - Cost: a first search with a cache flattens whole trees (not only the candidates'
//     subtrees) and keeps a copy, so it takes about a quarter more CPU time and allocates
//     the trees it keeps; a repeated `$A == nil` search of GOROOT/src took about a
//     twentieth of the first's time (BenchmarkTreeCacheGOROOT).
//
// A TreeCache is safe for concurrent searches, starts no goroutine and is no global state:
// it lives as long as the host holds it.
//
// # Rewriting
//
// [Rewrite] plans and writes nothing; [Plan.Apply] writes. The template follows
// [ExpandTemplate]: captures are substituted, an unbound variable becomes empty, multi-line
// captures are re-indented to the template's column and the match's line, and a line break
// from the template takes the line ending of the line where the match starts (ast-grep
// writes a bare LF). The replaced range is the whole matched node, as with `ast-grep run`:
// whatever the node holds past the last part the pattern mentions is replaced too — a
// trailing `;` (`const a = $V` replaces `const a = 5 + 3;` through the `;`), further
// declarators (`let $A = $B` replaces all of `let a = 1, b = 2;`) and, which is easy to
// miss, a trailing clause: `if ($C) $S` also matches an if statement that has an else,
// and rewriting it deletes the else clause with the rest. Check what a pattern matches
// before applying, or mention the clause (`if ($C) $S; else $E`) so the template can put
// it back; a comment after the node is not part of it and stays.
// Edits are taken in match order and one overlapping an accepted edit is
// dropped (the outer match wins; [FilePlan.Dropped] lists it); a file whose content would
// not change is left out, and every count is of edits actually written. Each file's
// unified diff (3 lines of context, `\ No newline at end of file` where needed) is built
// from the edits and applies with `git apply`. Apply is all or nothing, as one transaction of
// package wfs (whose documentation is the whole write contract): every file is re-read and
// compared with the content it was planned from ([ErrConflict] if one changed or is no longer
// a regular file); a symbolic link is followed to its target inside the tree, which is
// written while the link stays ([ErrBlocked] for a target outside); a read-only target, a
// FIFO, socket or device and a file over the size limit fail before anything is written; the
// files' directories are locked against every other harnesskit writer, in any process; the
// new contents keep each file's whole mode, owner, group, extended attributes and ACLs (a file
// with several hard links is written in place); and a failure, or a crash, leaves every file
// as it was before or, once all were staged, as planned. [WithFormatter] formats each new content before it is written; a formatter
// error leaves the edit as written and is reported in [Applied.Formatted].
//
// # Backends
//
// [Native] (the default, needs cgo) parses with tree-sitter grammars compiled in process.
// One cgo call per file parses, flattens the tree into a pointer-free array and frees it;
// when the pattern has a root kind, only the subtrees of nodes of that kind whose text
// holds the pattern's rarest literal are flattened. Matching is pure Go. Files are parsed
// by a pool of [Request.Threads] workers (default min(GOMAXPROCS, 12); a larger request is
// lowered to [MaxThreadsPerCPU] × GOMAXPROCS, as more would only hold more trees in
// memory), and results wait in a window of a few dozen files per worker so that they come
// out in walk order. A file that lacks one of the pattern's literals is skipped before
// parsing: the texts, of at least 2 bytes, of its named, non-metavariable leaves and, under
// cst and smart strictness, of its exact tokens (none under signature and template). An
// exact token is an anonymous token such as `==`, `:=` or `defer` whose node is always
// spelled as the token itself: not one an alias gives its name to (PHP's keywords, which
// match in any case, are such aliases), nor one an external scanner produces, nor one that
// ends a grammar rule, which error recovery may insert as a zero-width missing node (`)`,
// `end`); nor one right after an ellipsis, which smart strictness may skip. The exact
// tokens of each grammar are derived from its grammar.json, and checked against it in
// the tests. Neither shortcut ever changes a result.
//
// Each of ast-grep's 25 languages has a native grammar, linked into a program by importing
// the language's package (see Languages below). The runtime is tree-sitter 0.25.0, through
// the tree-sitter project's Go binding (github.com/tree-sitter/go-tree-sitter v0.25.0); each
// grammar comes from its own Go module, which compiles only the grammar's C. The grammar
// versions are the ones ast-grep 0.51.1 embeds wherever that version is published as a Go
// module; a test compares each grammar's symbol and parse-state counts with ast-grep's:
//
//	same version as ast-grep 0.51.1: bash 0.25.1, c 0.24.2, cpp 0.23.4, csharp 0.23.5,
//	  css 0.25.0, go 0.25.0, html 0.23.2, java 0.23.5, javascript 0.25.0, json 0.24.8,
//	  lua 0.5.0 (tree-sitter-grammars), python 0.25.0, ruby 0.23.1, rust 0.24.1,
//	  typescript and tsx 0.23.2, yaml 0.7.2 (tree-sitter-grammars; ast-grep's tables)
//	same tables, another release: elixir (ast-grep's 0.3.4 tables, as regenerated by
//	  github.com/alexaandru/go-sitter-forest: the official module declares a module path
//	  that does not match where it is published); haskell 0.23.1 (ast-grep has 0.24.1,
//	  which is not served, with the same symbol and state counts)
//	older or other release (ast-grep's is not published as a Go module): php 0.25.0
//	  (ast-grep 0.25.1; the php_only grammar, without HTML around it, as ast-grep uses);
//	  scala 0.26.0 (ast-grep 0.26.4); kotlin, swift, nix and solidity from
//	  go-sitter-forest's regenerations of the upstream grammars (kotlin: fwcd's grammar of
//	  2025, where ast-grep has its tree-sitter-kotlin-sg 0.4 fork; swift: upstream of 2025,
//	  ast-grep 0.7.4; nix: upstream of January 2025, ast-grep 0.3.0, whose module has no Go
//	  package; solidity 1.2.11, ast-grep 1.2.13, likewise)
//
// A grammar release and the runtime release both shape a tree, the runtime only where the
// source does not parse (error recovery): ast-grep 0.51.1 links runtime 0.27.1, the newest
// Go binding published is 0.25.0. The differences found are listed, with their reasons, in
// testdata/known-differences.json: a pattern that is not valid code on its own (C#
// `int Count`, Rust `std::cell` at the top level) can be recovered into another tree, and
// the older swift, kotlin, scala and solidity grammars parse some code differently. Use
// complete code as the pattern (`int Count = $V;`, `use std::cell;`) to stay clear of the
// first. A [Backend] without a language's grammar gives [ErrLangUnavailable] for it.
//
// [CLI] runs the ast-grep executable (`ast-grep`, never `sg`, never downloaded) and is the
// fallback: [Default] uses the native backend for the languages the program links and the
// CLI for the others when the executable is found, and the CLI for all when built with
// CGO_ENABLED=0; without either, searches fail with [ErrUnavailable] (at search time, not
// at import), or with a [*LangNotLinkedError] for a language the program does not link. The CLI backend passes file paths when
// [Request.Dir] names the fs root on disk and feeds stdin otherwise; exit status 8 becomes
// [ErrBadPattern], any other failure a [*BackendError], never an empty result.
//
// A language is any name [ParseLang] accepts (an alias such as "js", any case, spaces
// trimmed); any other name is [ErrUnknownLang], listing the known ones.
//
// Errors: [ErrBadPattern] ([*PatternError]), [ErrUnknownLang], [ErrLangUnavailable]
// ([*LangNotLinkedError]), [ErrUnavailable], [ErrBlocked], [ErrConflict], [ErrBackend] ([*BackendError]); I/O
// failures come as [*FileError] wrapping the fs error.
//
// # Languages
//
// Importing astsearch links no grammar. Each language's grammar is its own package, which
// registers itself when imported, as database/sql drivers do; a program imports those of
// the languages it searches, or astsearch/lang/all for the 25 (the harnesskit CLI does):
//
//	import (
//		"github.com/harnesskit/harnesskit/astsearch"
//		_ "github.com/harnesskit/harnesskit/astsearch/lang/golang"
//		_ "github.com/harnesskit/harnesskit/astsearch/lang/python"
//	)
//
// The package of a language is [Lang.ImportPath] (astsearch/lang/golang for Go, the
// language's name otherwise; tsx and typescript share one grammar module, so either package
// links both), and [NativeLangs] lists what a program links. A search in a language that is
// not linked fails with a [*LangNotLinkedError] whose message names the import to add,
// unless [Default] finds the ast-grep executable to run instead. Without cgo the packages
// link nothing and every search goes to the executable.
//
// What a host pays: each grammar is C that cgo compiles on a program's first build, and the
// large ones take tens of seconds of CPU (Scala about 40 s, C#, Haskell, Kotlin and Swift
// not far behind). Measured on a 2-core machine, each build from an empty GOCACHE into
// which the standard library was first compiled (not counted) unless the row says
// otherwise, in CPU seconds (user+sys of the go command and its children), before languages
// were packages and after:
//
//	program                                      before                after
//	host: astsearch + lang/golang + lang/python  134.5 s (126 in gcc)  14.3 s, 8 s wall
//	examples/tools, no language                  158.1 s (142 in gcc)  10.1 s, no C compiled
//	go run ./examples/demo (Go only)             168.2 s, 413 s wall   24.8 s, 14 s wall
//	  the same, the standard library not built   190.1 s, 306 s wall   53.2 s, 35 s wall
//	examples/harnesskit, the CLI (lang/all)      133.8 s, 75 s wall    136.0 s, 72 s wall
//
// Before, the host imported astsearch alone, which linked all 25. The tree-sitter runtime
// comes with the first language imported, so a program with no language compiles no C of
// ours. The before column ran on a machine shared with other work (load 10 to 13), the
// after one at load 0.4 to 2.8; the CLI, which compiles all 25 either way, was built before
// and after back to back at load 1.4 to 2.3.
//
// # Security Considerations
//
// Paths: everything is read through the fs.FS given, and written through the [WriteFS]
// given, under the root given; an os.Root-backed fs.FS and [NewOSFS] keep I/O inside their
// directories whatever the paths say. Paths that are not valid fs paths (absolute, with
// "..") are refused with [ErrBlocked] before anything is read, and [Request.Guard] adds
// pathguard's containment with symlinks resolved. Symbolic links are not followed unless
// asked.
//
// Processes: only the CLI backend starts one (ast-grep, with the pattern and template as
// separate arguments, no shell); the native backend starts none. On Windows a batch file
// (npm installs ast-grep as ast-grep.cmd) would run under cmd.exe, which re-reads the
// command line with its own rules, so that a pattern could run commands there: the CLI
// backend never starts one; it runs the program the npm shim starts (ast-grep.exe, or
// node.exe with its script) and refuses a batch file it cannot see through, with
// [ErrUnavailable].
//
// Memory: the native backend points tree-sitter's allocator at the C library's when it
// first loads a grammar (go-tree-sitter's default sends every allocation through a Go
// callback, which made a parse take about 1.5 times the CPU). A program that also uses
// go-tree-sitter with its own allocator (its SetAllocator) should not use the native
// backend in the same process.
//
// Untrusted input: a pattern or a source file is parsed by tree-sitter's C code in
// process. When the request's timeout fires or ctx ends, the parses in progress are stopped
// too (tree-sitter's cancellation flag, set when the context ends: a huge file does not
// hold a worker for seconds), and each parse is also bounded by [ParseTimeout]; but a crash
// inside C code cannot be recovered; for untrusted
// trees, run the CLI backend (a subprocess). Memory grows with the largest file's tree
// (44 bytes per node: a dense 10 MB minified JavaScript file makes 12 million nodes,
// 530 MB; capped at 2^25 nodes), and a [TreeCache] holds at most its budget. A file whose parse hit ParseTimeout, or whose tree is over
// the cap, is not searched: it is counted in the result's Stats.Skipped.ParseFailed and
// named in Stats.Skipped.Unparsed, and [FormatSearch] and [FormatRewrite] end with a line
// naming it ([UnparsedNote]). Some short broken texts keep the Swift grammar's error
// recovery busy past the timeout (26 bytes measured at over 30 s, where ast-grep's Swift
// grammar takes 20 ms).
package astsearch
