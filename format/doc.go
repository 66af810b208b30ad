// Package format runs a project's code formatter on the files an agent writes: the formatter
// the project itself declares, at most one per file, on the exact bytes about to be written,
// and never failing the edit. It reports what the formatter changed as a unified diff, so the
// host can tell the model that the file is no longer the text it wrote.
//
// Use it from every write path of a host (the edit, write and patch tools, and a structural
// rewrite), or through the [Formatter.Format] seam that patch and astsearch accept. Do not use
// it as a general build step: it formats single files, and only the ones it can attribute to a
// formatter with evidence from the project.
//
// # Life cycle
//
//	Builtins → Config → Detect → Plan … Runner.Bytes → Result {After, Diff}   (no write)
//	New(root, opts…) → Formatter.Format(ctx, path, src) → (out, name, err)    (the seam)
//	                 → Formatter.File(ctx, path) → Result                    (compare-and-swap write-back)
//
// # Registry and detection
//
// The registry ([Builtins]) is data: a [Def] per formatter with its suffixes, command, stdin
// or in-place mode, conflict group and the [Evidence] that finds it in a project: a binary on
// PATH, a configuration file found by walking up from the file to the root (biome.json,
// .clang-format, ruff.toml), a manifest entry (prettier in package.json, laravel/pint in
// composer.json, [tool.ruff] in pyproject.toml, a Cargo.toml), an environment variable, or a
// probe command. A golden JSON dump of the registry is kept with the tests.
//
// [Detect] is pure given an [Env] (an fs.FS rooted at the project, a LookPath, a Getenv): it
// runs no process unless [Config.Probes] is set, and a cold detection stats at most
// depth × evidence-file names; with a [Cache] a warm one stats nothing (the host calls
// [Cache.Invalidate] for files it changes; [Formatter] does so for every file it formats). A
// file matches by its longest lower-cased suffix first (".html.erb" before ".erb"), then by
// exact file name (Dockerfile).
//
// In automatic mode (the zero [Config]) a formatter runs only with project evidence — a
// configuration file or a manifest entry — plus gofmt for Go, which is formatted in process
// with go/format, byte for byte as the gofmt binary does. A formatter found only as a binary
// on PATH needs Enabled = true or a per-name override. When several formatters match one
// file, one wins: a user-configured command beats a configuration file, which beats a manifest
// entry, which beats a bare binary; ties go to the higher Priority, then the name. Only an
// explicit [Config.Chain] runs several, in its order. Every formatter that matched but will
// not run is returned as a [Skip] with the reason ("no .clang-format or _clang-format above
// src/"), and [Status] lists every formatter with its reason.
//
// [Config] reads OpenCode's "formatter" setting as is — false, true, or an object of
// per-name overrides with disabled, command ($FILE), extensions and environment — plus the
// extras timeout, priority, mode, chain, and "auto": true to keep automatic mode while
// overriding. A command override turns detection off for that formatter.
//
// # Running
//
// A [Runner] feeds the content on stdin and reads stdout where the tool supports it
// (prettier, biome, clang-format, shfmt, ruff, black, rustfmt, terraform, zig, stylua,
// nixfmt), so the formatter never touches a file; the others rewrite a temporary copy made in
// the file's directory (so they find the same configuration), which is read back and removed,
// and the directory's other entries are compared before and after: a formatter that changed
// a sibling file is reported in [Result.Others]. The copy is hidden and keeps the file's
// suffix (app.rb → .app.rb.hk-<16 hex>.rb), so the formatter knows the language while builds
// and autoloaders, which skip hidden files, never pick it up; it is the write layer's
// temporary-name scheme and journaled (see File below), so a copy left by a host that was
// killed is recognised by wfs.IsLeftover and removed by the next writer's recovery. What a formatter prints, or leaves in its copy, is read
// up to [DefaultMaxOutput] bytes; more is a failure. Each run has a timeout
// ([DefaultTimeout], and [DefaultFileTimeout] for all formatters of one file); see
// "Formatter processes" below for what is killed when. stderr is kept up to
// [DefaultMaxStderr] bytes in the error.
//
// A UTF-8 BOM the formatter dropped is put back, and so are CRLF line breaks when the input
// used only CRLF and the formatter returned LF (not for Go, whose canonical form is LF).
//
// [Runner.File] formats a file on disk and writes it back through the module's write layer
// (package wfs) on an os.Root of the project root, as one transaction that every harnesskit
// writer in any process respects: the file's directory is locked, the file is checked to
// still hold what was read (size, mode, time and identity first, then the content, bounded),
// a journal is written, the new content is staged, fsynced and renamed into place and the
// directory fsynced; the file keeps its whole mode (setuid, setgid, sticky), its owner and
// group where the process may set them, its extended attributes and ACLs, and a file with
// several hard links is written in place, so its names stay one file. When the file changed
// meanwhile, or another writer holds the lock past the wait, the other writer's bytes stay
// and the result carries [ErrConcurrentChange]. Before reading, File finishes or undoes the
// commits that dead writers left interrupted in the tree ([Result.Recovered]). A symbolic
// link is followed inside the root (the file it names is formatted, the link stays a link).
// Refused before anything is written: a FIFO, socket or device (decided before opening, so
// File never blocks on one), a file the process may not write (no write bit for its class,
// or none at all as in 0444, also for root), and a file over [Runner.MaxFileSize]
// ([DefaultMaxFileSize]), also one that grows past it before the write-back. The in-place
// copy is one of the transaction's journaled scratch files: recovery removes one left by a
// host that was killed.
//
// [Runner.Edit] can keep only the formatter's changes near the lines an edit touched
// ([ScopeTouched]). Such a partial result is kept only when it is verified: the formatter,
// run again on it, must print exactly what it printed for the whole edit — for Go the mix
// therefore parses and is the same program, and for every other language the formatter
// itself is the judge. A mix it refuses or formats differently (part of a re-indentation,
// an import moved but not added) is never written: the edit stays as written and
// [Result.Note] says why. So the result is the formatter's whole output, a verified part of
// it, or none of it.
//
// # Results and errors
//
// A [Result] carries the formatter's name, Before and After, a unified [Unified] diff that
// turns Before into After, the skipped formatters, the elapsed time and Others;
// [Result.Report] is the text for the model ("formatted by gofmt, 6 lines changed (+4 -2)"
// with the diff when its text has at most [DefaultMaxReportDiffLines] lines, headers and
// context counted, else a request to re-read the file; lines changed are the lines added
// plus the lines removed). patch and astsearch word their formatter reports by the same
// rule. A failure never fails the edit: Result.Err is set and the content stays as written.
// Every error is an [*Error] (formatter, exit code, stderr) that unwraps to one sentinel:
// [ErrFormatter], [ErrTimeout], [ErrNotRunnable], [ErrSyntax], [ErrConcurrentChange],
// [ErrConfig], [ErrOutside] or [ErrIO]; a refusal or write failure of File also unwraps to
// the write layer's sentinel (wfs.ErrReadOnly, which matches fs.ErrPermission, wfs.ErrSpecial,
// wfs.ErrTooLarge, wfs.ErrChanged, wfs.ErrBusy).
//
// # Security Considerations
//
// This package runs programs. Which program runs for a file is decided by files in the
// project: a biome.json makes node_modules/.bin/biome run, a package.json dependency makes
// prettier run (and prettier loads project plugins), a configuration override can name any
// command. A repository the host does not trust can therefore run code through its
// formatter. Hosts should put a formatter's first run behind their command-permission policy,
// turn formatting off ([Config.Enabled] = false) for untrusted checkouts, or pass a registry
// and configuration of their own. Probes, which run a command during detection, are off
// unless [Config.Probes] is set.
//
// Formatters run with the project root as working directory and the host's environment plus
// the formatter's own variables; their output is capped ([DefaultMaxOutput]). The original
// file is written only by this package, and [Runner.File] refuses paths outside the root.
//
// On Windows a formatter installed as a batch file (.cmd or .bat, as npm installs prettier
// and biome in node_modules/.bin) runs under cmd.exe, which reads its command line by rules of
// its own that Go's quoting does not follow: a file named x&ver&echo.ts would run ver. A batch
// file is therefore never given a file name: an npm shim is replaced by the program it starts
// (node with the package's script, or the executable it names), and any other batch file runs
// only when every argument is made of characters cmd.exe reads literally; otherwise the
// formatter does not run and the error is [ErrNotRunnable].
//
// # Formatter processes
//
// A formatter runs in a process group of its own, which is killed when the formatter exits,
// times out or is cancelled, so the children it forks die with it. Children that leave the
// group (setsid, or a daemon's double fork) are handled on Linux: every process of a run
// carries a token in its environment (HARNESSKIT_FORMAT_RUN), and before the call returns
// every live process that carries it is killed, looking again until none is left (a process
// that keeps forking is outrun), through a pidfd so that a reused pid is never signalled.
// The formatter itself also gets SIGKILL from the kernel when the host dies. A daemon that
// a formatter starts to outlive it (eslint_d, prettierd, a Gradle daemon) is therefore
// killed after every run; run such tools as a service of the host instead. The output is
// read to its end, which comes once every holder of the pipes is gone, so a busy machine
// never loses a formatter's output; only a process that escaped the killing can keep them
// open, and [DefaultWaitDelay] later the run fails.
//
// format does not make the host a child subreaper (PR_SET_CHILD_SUBREAPER). That attribute
// belongs to the whole process: while it is set, every orphan of every subprocess the host
// runs, not only formatters, becomes the host's child, and a library cannot tell those from
// the children the host started itself: reaping them would steal exit statuses the host is
// waiting for, not reaping them leaves zombies. The processes format kills are therefore
// reaped by their reaper (init, or the container's); when the host is PID 1 or has made
// itself a subreaper, format reaps exactly the processes it killed, which carry its token,
// and never waits for any other child.
//
// What remains: on Linux, a descendant that both leaves the group and replaces its
// environment (env -i) is not found; if the host itself is killed, the formatter dies but
// its children that left the group live on, and a temporary copy of an in-place run stays
// until the write layer's recovery removes it. On macOS and the BSDs only the process group
// is killed. On Windows there are no process groups here: cancellation kills the formatter
// itself, and children it started may outlive it (a job object would be needed).
//
// In-place formatters see a temporary copy next to the file, so a tool that formats other
// files it finds (rustfmt's out-of-line modules, cargo fmt) is run in stdin mode or reported
// through Others.
package format
