// Package harnesskit is a map of the harnesskit module: embeddable tools and guards for
// AI-agent hosts written in Go. This package holds no code; import the package you need.
//
// Every package is independent, host-agnostic and built in three layers: a pure,
// deterministic core (values in, values out, no goroutines, clock or I/O), small host
// interfaces of one to three methods, and a thin driver that runs the core against them.
// Errors are values: sentinels for categories (check with [errors.Is]) and one typed error
// per package for the detail (check with [errors.As]), with messages a model can act on.
//
// # Packages
//
// [github.com/harnesskit/harnesskit/patch] parses, validates, rescues and applies
// Codex-format apply_patch text ("*** Begin Patch" …) atomically: every file is planned in
// memory first, then all writes happen or none. Stale patches whose context drifted by
// whitespace or Unicode punctuation are located conservatively and reported; an ambiguous
// location is refused, never guessed.
//
// [github.com/harnesskit/harnesskit/webfetch] fetches a URL for a model: a page's main
// content as Markdown with metadata (Readability extraction), llms.txt and per-page Markdown
// variants on documentation sites, a byte-bounded cache with real revalidation, a same-site
// redirect policy, binary detection, paging of long content, and an optional secondary-model
// answer with the content as fallback. It is SSRF-safe by default: every dialled address of
// every hop is checked.
//
// [github.com/harnesskit/harnesskit/pathguard] validates and resolves the paths a model
// passes to search tools (grep, glob) with the host's own rules, in POSIX and Windows
// flavours, and keeps every path inside the allowed root and worktrees, lexically and where
// the kernel would open it.
//
// [github.com/harnesskit/harnesskit/loopguard] notices a model repeating the same tool
// call with identical results: it appends a corrective notice, then refuses further
// identical reads and searches.
//
// [github.com/harnesskit/harnesskit/taskboard] is the background-task job board: task
// records, generations, leases, cancel, message and revive protocols, compensation for
// orphaned children and wait-for-user, as a deterministic state machine with host calls
// behind interfaces.
//
// [github.com/harnesskit/harnesskit/astsearch] is structural search and rewrite over
// syntax trees with ast-grep's pattern language and JSON results: in process through
// tree-sitter grammars (cgo; a program links the languages it imports from astsearch/lang),
// or through the ast-grep executable; rewrites are planned as unified diffs and applied
// atomically, and every path is checked before it is read.
//
// [github.com/harnesskit/harnesskit/format] runs the project's own formatter on each file
// an agent writes: detected from project evidence (a biome.json, prettier in package.json, a
// .clang-format; gofmt in process for Go), one formatter per file, stdin mode where the tool
// allows it, a timeout that kills the whole process group, and a compare-and-swap write-back.
// A formatting failure never fails the edit; the result carries the unified diff to tell the
// model. patch and astsearch take it through their WithFormatter options.
//
// [github.com/harnesskit/harnesskit/wfs] is the one write layer every package above writes
// through: a small file-system seam (an in-memory tree for tests, real directories through
// os.Root), and one commit transaction that locks each target against every other writer in
// any process, re-checks it against what the writer read, journals, stages, switches and
// syncs, keeps mode, owner, extended attributes and hard links, and recovers a commit that a
// crash interrupted, so a tree is only ever seen before or after it.
//
// # Examples
//
// The nested module github.com/harnesskit/harnesskit/examples holds the adapters: the
// harnesskit command-line program (one subcommand per package; each says whether it reads
// text or JSON), the demo that a new user runs first, a tool adapter (name, description,
// input schema and a Call method per tool, every call behind one loop guard and every path
// behind pathguard) and an MCP server over it (stdio or Streamable HTTP). Host SDKs are
// required only there, so importing a harnesskit package never downloads one.
package harnesskit
