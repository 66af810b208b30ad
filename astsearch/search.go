package astsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/harnesskit/harnesskit/astsearch/internal/match"
	"github.com/harnesskit/harnesskit/astsearch/internal/walk"
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/wfs"
)

// Limits, used when the request's field is zero.
const (
	DefaultMaxMatches     = 500
	DefaultMaxOutputBytes = 1 << 20
	DefaultTimeout        = 300 * time.Second
	// MaxThreads caps the default worker count, as ast-grep does.
	MaxThreads = 12
	// MaxThreadsPerCPU bounds Request.Threads: a request asking for more than
	// MaxThreadsPerCPU × GOMAXPROCS workers gets that many. Parsing is CPU-bound, so more
	// workers would only add memory (each holds a parser and the tree of its file).
	MaxThreadsPerCPU = 4
	// Files larger than SkipBytes bytes and longer than SkipLines lines are skipped.
	SkipBytes = 3_000_000
	SkipLines = 200_000
	// ParseTimeout bounds the parse of one file by the native backend.
	ParseTimeout = 30 * time.Second
	// minLiteral is the shortest literal worth a prefilter.
	minLiteral = 2
)

// Request is one search (or rewrite) over an fs.FS. The zero value of every field but
// Pattern and Lang means its default.
type Request struct {
	Pattern    string
	Lang       Lang
	Strictness Strictness
	// Selector, when set, makes Pattern a context: its first node of this kind is the
	// pattern (see [WithSelector]).
	Selector string
	// Paths are slash paths under the fs root; default ["."]. Each must exist: a missing
	// path is an error wrapping ErrBlocked, never an empty result.
	Paths []string
	// Globs are overrides matched against the fs path, gitignore-style: "!" excludes, the
	// last matching glob wins, and a whitelist glob keeps an ignored file.
	Globs []string
	// Context is the number of lines around each match put in Match.Lines.
	Context        int
	MaxMatches     int           // default DefaultMaxMatches
	MaxOutputBytes int           // compact JSON size of the kept matches; default 1 MiB
	Timeout        time.Duration // default DefaultTimeout; a partial result is returned
	// Threads is the number of native workers; zero or negative means min(GOMAXPROCS,
	// MaxThreads), and more than MaxThreadsPerCPU × GOMAXPROCS is lowered to that.
	Threads int
	// Hidden, NoIgnore and FollowSymlinks turn off the walk's rules: skipping hidden
	// files and directories, honouring ignore files, and not following symbolic links.
	Hidden, NoIgnore, FollowSymlinks bool
	// Guard, when set, checks every requested path (taken relative to its root) before
	// anything is read; fsys must be rooted at Guard.Root(). A refusal wraps ErrBlocked.
	Guard *pathguard.Containment
	// Dir is the OS directory fsys is rooted at, if any: the CLI backend then passes file
	// paths to ast-grep instead of feeding each file on stdin.
	Dir string
	// Backend runs the matching; nil means Default().
	Backend Backend
	// Progress, when set, is called on the caller's goroutine after each file with the
	// number of files done and the total.
	Progress func(done, total int)
	// NoPrefilter disables the literal prefilter (the results are the same; for tests and
	// measurements).
	NoPrefilter bool
	// Cache, when set, keeps the trees of the files this search parses and gives back
	// those of files unchanged since an earlier search (see [TreeCache]); its entries are
	// named by Dir and the fs path, so a cache shared by several trees needs Dir set. The
	// matches are the same as without it. Nil: every file is parsed.
	Cache *TreeCache
}

// Stats counts what a search did.
type Stats struct {
	Files       int         // files listed by the walk
	Searched    int         // files parsed and matched
	Prefiltered int         // files skipped because they cannot contain the pattern's literal
	Skipped     SkipStats   // files skipped as ast-grep skips them
	Errors      []FileError // files that could not be read; the search went on
	// CacheHits and CacheMisses count, with Request.Cache, the searched files whose tree
	// came from the cache and those parsed (together they are Searched); CacheBytes is what
	// the cache holds after the search. All zero without a cache (or with one turned off).
	CacheHits, CacheMisses int
	CacheBytes             int64
}

// SkipStats counts skipped files by reason.
type SkipStats struct {
	Empty, Large, NotUTF8, ParseFailed int
	// Unparsed names the files counted in ParseFailed, in walk order: their parse did not
	// finish within [ParseTimeout] or their tree was over the node cap, so they were not
	// searched (ast-grep, which has neither limit, would have searched them).
	Unparsed []string
}

// Result is the outcome of a search.
type Result struct {
	Matches         []Match
	TotalMatches    int // every match found, also beyond the caps
	Files           int // files among the kept matches
	Truncated       bool
	TruncatedReason string // "max_matches", "max_output_bytes" or "timeout"
	PatternHasError bool
	Hint            string
	Stats           Stats
}

// fileResult is one file's outcome from a worker.
type fileResult struct {
	matches  []Match
	searched bool   // read and parsed (or handed to the CLI)
	src      []byte // kept for a rewrite of a file with matches only
	extra    int    // matches counted but not built: beyond the match cap
	skip     string // "", "empty", "large", "utf8", "prefilter", "parse"
	cached   int8   // with a cache: 1 the tree came from it, -1 it was parsed
	err      error
}

type job struct {
	idx  int
	path string
}

// threads is the worker count: Threads bounded by MaxThreadsPerCPU × GOMAXPROCS, or the
// default when it is zero or negative.
func (r *Request) threads() int {
	procs := runtime.GOMAXPROCS(0)
	if r.Threads > 0 {
		return min(r.Threads, MaxThreadsPerCPU*procs)
	}
	return min(procs, MaxThreads)
}

// checkPaths validates, guards and stats every requested path.
func checkPaths(fsys fs.FS, req *Request) ([]string, error) {
	paths := req.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		clean := path.Clean(strings.TrimPrefix(p, "./"))
		if p == "" || !fs.ValidPath(clean) || strings.ContainsRune(p, 0) {
			return nil, fmt.Errorf("%w: %q is not a slash path under the search root (no leading '/', no '..', no NUL byte); give a path relative to the project root", ErrBlocked, p)
		}
		if req.Guard != nil {
			if _, err := req.Guard.Check(clean); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrBlocked, err)
			}
		}
		// A link on the path is followed (as ripgrep follows the paths it is given) only
		// when it stays inside the fs root: os.DirFS would follow it anywhere.
		if _, err := walk.Resolve(fsys, clean); errors.Is(err, walk.ErrLinkOut) {
			return nil, fmt.Errorf("%w: %q: %w; nothing was read: name a path inside the project whose links stay inside it", ErrBlocked, p, err)
		}
		info, err := fs.Stat(fsys, clean)
		if err == nil && !info.IsDir() && !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: %q is not a regular file or a directory (%s); reading it could block, name a source file or directory", ErrBlocked, p, info.Mode().Type())
		}
		if err != nil {
			kind := pathguard.KindMissing
			_, windowsy := windowsStyle(p)
			switch {
			case errors.Is(err, syscall.ENOTDIR):
				kind = pathguard.KindNotDirectory
			case windowsy:
				// A Windows-style path that cannot be opened as given (os.DirFS on Windows
				// refuses `\` and ':' as invalid): say which slash path it likely means.
			case !errors.Is(err, fs.ErrNotExist):
				return nil, &FileError{Op: "stat", Path: clean, Err: err}
			}
			return nil, &blockedPathError{&pathguard.Error{Kind: kind, Tool: "astsearch", Path: p, Resolved: clean, Err: err}}
		}
		out = append(out, clean)
	}
	return out, nil
}

// Search finds the pattern in the files under req.Paths.
//
// Errors: ErrUnknownLang, ErrBadPattern (a *PatternError), ErrBlocked (a path refused by
// the guard, missing, or not valid), ErrLangUnavailable and ErrUnavailable (no backend for
// the language), ErrBackend (a *BackendError from the CLI), and ctx.Err() when the caller's
// context ends. Unreadable files are recorded in Stats.Errors and do not fail the search;
// the timeout returns a partial result with TruncatedReason "timeout" and no error.
func Search(ctx context.Context, fsys fs.FS, req Request) (*Result, error) {
	res, _, err := run(ctx, fsys, &req, nil)
	return res, err
}

// Stream yields the matches [Search] would keep for the same request, one by one, in walk
// order, as soon as they are known: a file's matches come once that file and every file
// before it in walk order are done, and only a bounded window of files (a few dozen per
// worker) is read ahead, so memory does not grow with the number of results. The limits are those
// of Search: the stream ends after the matches Search would keep (MaxMatches,
// MaxOutputBytes), and when the timeout fires it ends without an error, as Search returns
// a partial result; use Search to learn the totals and whether a cap was hit. Breaking out
// of the loop stops the workers before Stream returns. An error (a bad request, or
// ctx.Err() when the caller's context ends) is yielded once, last. With the CLI backend
// the matches come after ast-grep has searched every file.
func Stream(ctx context.Context, fsys fs.FS, req Request) iter.Seq2[Match, error] {
	return func(yield func(Match, error) bool) {
		broke := false
		_, _, err := runEach(ctx, fsys, &req, nil, func(m Match) bool {
			if !yield(m, nil) {
				broke = true
				return false
			}
			return true
		})
		if err != nil && !broke {
			yield(Match{}, err)
		}
	}
}

// rewriteSpec asks run to keep the sources and compute replacements.
type rewriteSpec struct {
	template string
}

// fileOut is what run hands to Rewrite: one entry per file with matches, walk order.
type fileOut struct {
	path    string
	src     []byte
	matches []Match // every match, with Replacement and ReplacementOffsets
}

func run(ctx context.Context, fsys fs.FS, req *Request, rw *rewriteSpec) (*Result, []fileOut, error) {
	return runEach(ctx, fsys, req, rw, nil)
}

// runEach is run, with each kept match handed to onMatch (when set) in walk order as soon
// as its file is done, instead of being kept in the Result; onMatch returning false, or a
// cap being hit, stops the search early (the result is then partial, for Stream only).
func runEach(ctx context.Context, fsys fs.FS, req *Request, rw *rewriteSpec, onMatch func(Match) bool) (*Result, []fileOut, error) {
	if !req.Lang.valid() {
		l, err := ParseLang(string(req.Lang))
		if err != nil {
			return nil, nil, err
		}
		req.Lang = l
	}
	if req.Strictness > Template {
		return nil, nil, fmt.Errorf("%w: invalid strictness %d", ErrBadPattern, req.Strictness)
	}
	if !utf8.ValidString(req.Pattern) || strings.ContainsRune(req.Pattern, 0) {
		return nil, nil, &PatternError{Pattern: req.Pattern, Lang: req.Lang, Cause: "the pattern is not UTF-8 text or holds a NUL byte, so no searched file can contain it"}
	}
	backend := req.Backend
	if backend == nil {
		backend = Default()
	}
	if d, ok := backend.(*defaultBackend); ok {
		backend = d.pick(req.Lang)
	}
	if !backend.Supports(req.Lang) {
		if nb, ok := backend.(*nativeBackend); ok {
			if _, err := nb.factory(req.Lang); err != nil {
				return nil, nil, err // a *LangNotLinkedError
			}
		}
		return nil, nil, fmt.Errorf("%w: the %s backend cannot search %s", ErrLangUnavailable, backend.Name(), req.Lang)
	}
	var pat *Pattern
	if nb, ok := backend.(*nativeBackend); ok {
		p, err := compileSel(nb.factory, req.Pattern, req.Lang, req.Strictness, req.Selector)
		if err != nil {
			return nil, nil, err
		}
		pat = p
	}
	for _, g := range req.Globs {
		if !doublestar.ValidatePattern(strings.TrimPrefix(g, "!")) {
			return nil, nil, fmt.Errorf("%w: the glob %q does not parse (an unclosed '[' or '{', or a trailing '\\'); escape literal brackets as \\[", ErrBadPattern, g)
		}
	}
	roots, err := checkPaths(fsys, req)
	if err != nil {
		return nil, nil, err
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var files []string
	listed := map[string]bool{} // a file under two requested paths is searched once
	err = walk.Walk(tctx, fsys, roots, walk.Options{
		Hidden: req.Hidden, NoIgnore: req.NoIgnore, FollowSymlinks: req.FollowSymlinks,
		Globs: req.Globs, Want: req.Lang.hasExt,
	}, func(name string) error {
		if !listed[name] {
			listed[name] = true
			files = append(files, name)
		}
		return nil
	})
	timedOut := false
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return nil, nil, err
		}
		timedOut = true
	}
	res := &Result{}
	res.Stats.Files = len(files)
	if pat != nil {
		res.PatternHasError = pat.HasError()
	}
	agg := &collector{res: res, rw: rw, onMatch: onMatch, files: files, seenFile: map[string]bool{}, size: 2,
		maxM: req.MaxMatches, maxB: req.MaxOutputBytes}
	if agg.maxM <= 0 {
		agg.maxM = DefaultMaxMatches
	}
	if agg.maxB <= 0 {
		agg.maxB = DefaultMaxOutputBytes
	}
	if !timedOut {
		if pat != nil {
			runNative(tctx, fsys, req, pat, files, rw, agg.add)
		} else {
			results, err := runBackend(tctx, fsys, req, backend, files, rw)
			if err != nil {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					return nil, nil, err
				}
			}
			for i := range results {
				if !agg.add(i, &results[i]) {
					break
				}
			}
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if tctx.Err() != nil {
			timedOut = true
		}
	}
	outs := agg.outs
	if timedOut { // before a cap: TotalMatches is then partial too
		res.Truncated, res.TruncatedReason = true, "timeout"
	}
	if res.TotalMatches == 0 {
		res.Hint = EmptyResultHint(req.Pattern, req.Lang, res.PatternHasError)
	}
	if pat != nil && req.Cache.on() {
		res.Stats.CacheBytes = req.Cache.Stats().Bytes
	}
	return res, outs, nil
}

// collector folds per-file results, in walk order, into a Result: the stats, the caps on
// kept matches, and the files a rewrite plans.
type collector struct {
	res        *Result
	rw         *rewriteSpec
	onMatch    func(Match) bool
	files      []string
	outs       []fileOut
	seenFile   map[string]bool
	size, kept int
	maxM, maxB int
}

// add takes file i's result; it returns false when nothing more is wanted: onMatch said
// stop, or a cap was hit while streaming (the matches past a cap are only counted, which a
// stream does not report).
func (c *collector) add(i int, fr *fileResult) bool {
	res := c.res
	switch fr.skip {
	case "empty":
		res.Stats.Skipped.Empty++
	case "large":
		res.Stats.Skipped.Large++
	case "utf8":
		res.Stats.Skipped.NotUTF8++
	case "parse":
		res.Stats.Skipped.ParseFailed++
		res.Stats.Skipped.Unparsed = append(res.Stats.Skipped.Unparsed, c.files[i])
	case "prefilter":
		res.Stats.Prefiltered++
	case "":
		if fr.err == nil && fr.searched {
			res.Stats.Searched++
		}
	}
	switch {
	case !fr.searched || fr.err != nil || fr.skip != "":
	case fr.cached == 1:
		res.Stats.CacheHits++
	case fr.cached == -1:
		res.Stats.CacheMisses++
	}
	if fr.err != nil {
		var fe *FileError
		if errors.As(fr.err, &fe) {
			res.Stats.Errors = append(res.Stats.Errors, *fe)
		} else {
			res.Stats.Errors = append(res.Stats.Errors, FileError{Op: "read", Path: c.files[i], Err: fr.err})
		}
		return true
	}
	if c.rw != nil && len(fr.matches) > 0 {
		c.outs = append(c.outs, fileOut{path: c.files[i], src: fr.src, matches: fr.matches})
	}
	for _, m := range fr.matches {
		res.TotalMatches++
		if res.Truncated {
			continue
		}
		if c.kept >= c.maxM {
			res.Truncated, res.TruncatedReason = true, "max_matches"
			continue
		}
		n := jsonSize(m)
		if c.size+n+1 > c.maxB {
			res.Truncated, res.TruncatedReason = true, "max_output_bytes"
			continue
		}
		c.size += n + 1
		c.kept++
		if !c.seenFile[m.File] {
			c.seenFile[m.File] = true
			res.Files++
		}
		if c.onMatch == nil {
			res.Matches = append(res.Matches, m)
		} else if !c.onMatch(m) { // a stream keeps nothing: the caller has the match
			return false
		}
	}
	res.TotalMatches += fr.extra
	if fr.extra > 0 && !res.Truncated {
		res.Truncated, res.TruncatedReason = true, "max_matches"
	}
	return c.onMatch == nil || !res.Truncated
}

// byteCounter is an io.Writer that only counts.
type byteCounter int

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

// jsonSize is len(json.Marshal(m)) without keeping a copy of the encoding: the encoder's
// buffer is reused, so a match holding a large text costs no allocation of its size.
func jsonSize(m Match) int {
	var c byteCounter
	_ = json.NewEncoder(&c).Encode(m)
	return int(c) - 1 // Encode ends with a newline
}

// MaxFileBytes is the size from which a file is skipped (counted as large) without being
// read: tree-sitter takes 32-bit lengths and offsets, so it cannot parse such a file.
const MaxFileBytes int64 = 1<<32 - 1

// errTooLarge: the file has MaxFileBytes bytes or more.
var errTooLarge = errors.New("file too large to parse")

// readSource reads a file, unless its size says it is too large to parse.
func readSource(fsys fs.FS, name string) ([]byte, error) {
	src, _, err := readSourceInfo(fsys, name, false)
	return src, err
}

// readSourceInfo is readSource that also returns the file's Stat taken before the read
// (nil when Stat failed and the read did not); pin fixes the identity of the file in it at
// once (on Windows an os FileInfo reads it from the file when first compared).
func readSourceInfo(fsys fs.FS, name string, pin bool) ([]byte, fs.FileInfo, error) {
	info, err := fs.Stat(fsys, name)
	switch {
	case err != nil:
		info = nil
	case info.Size() >= MaxFileBytes:
		return nil, nil, errTooLarge
	case pin:
		wfs.SameVersion(info, info)
	}
	src, err := fs.ReadFile(fsys, name)
	return src, info, err
}

// skipReason applies ast-grep's silent skips.
func skipReason(src []byte) string {
	switch {
	case len(src) == 0:
		return "empty"
	case len(src) > SkipBytes && bytes.Count(src, []byte{'\n'}) >= SkipLines:
		return "large"
	case !utf8.Valid(src):
		return "utf8"
	}
	return ""
}

// windowPerWorker is how many files per worker runNative lets be in flight or done and
// waiting for an earlier file. Files done early wait in the window, so a few slow files
// leave the other workers idle once it is full: with 4 per worker a search of
// GOROOT/src/net for `$A == nil` took 16 % longer than with 64 (2 workers). What waits is
// only a file's matches (its source only when rewriting), so the window costs little.
const windowPerWorker = 32

// runNative processes files in a worker pool and hands each file's result to emit in walk
// order (file i with index i). At most window files are in flight or waiting for an earlier
// one, so memory is bounded whatever the number of files. emit returning false stops the
// workers; runNative returns once they have all exited.
func runNative(ctx context.Context, fsys fs.FS, req *Request, pat *Pattern, files []string, rw *rewriteSpec, emit func(int, *fileResult) bool) {
	ctx, stop := context.WithCancel(ctx)
	received := 0          // messages taken from done
	done := make(chan int) // a finished index, or -1-i for file i never dispatched
	var wg sync.WaitGroup
	pc := newParseCanceller(ctx)
	defer func() {
		// Also when emit or Progress panics: stop, take every message still due so that no
		// worker or the feeder stays blocked, and wait for the workers.
		stop()
		for ; received < len(files); received++ {
			<-done
		}
		wg.Wait()
		pc.close()
	}()
	n := min(req.threads(), max(len(files), 1))
	window := windowPerWorker * n
	// results is a ring: file i lives in results[i%window] from its dispatch until emitted.
	results := make([]fileResult, window)
	maxMatches := req.MaxMatches
	if maxMatches <= 0 {
		maxMatches = DefaultMaxMatches
	}
	flt := newFilter(pat.p, !req.NoPrefilter)
	var cache *cacheRun
	if req.Cache.on() {
		cache = req.Cache.begin()
	}
	jobs := make(chan job)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tp treeParser
			defer func() {
				if tp != nil {
					pc.remove(tp)
					tp.Close()
				}
			}()
			for j := range jobs {
				fr := &results[j.idx%window]
				if ctx.Err() != nil {
					fr.skip = "cancelled"
					done <- j.idx
					continue
				}
				src, info, err := readSourceInfo(fsys, j.path, cache != nil)
				skip := ""
				if err == nil {
					skip = skipReason(src)
				}
				switch {
				case errors.Is(err, errTooLarge):
					fr.skip = "large"
				case err != nil:
					fr.err = &FileError{Op: "read", Path: j.path, Err: err}
				case skip != "":
					fr.skip = skip
				case !flt.admits(src):
					fr.skip = "prefilter"
				default:
					var t *match.Tree
					name := ""
					if cache != nil {
						name = cacheName(req.Dir, j.path)
						t = cache.lookup(name, pat.lang, pat.grammar, info, src)
						fr.cached = -1
						if t != nil {
							fr.cached = 1
						}
					}
					if t == nil && tp == nil {
						tp, err = pat.newTree(pat.lang)
						if err != nil {
							fr.err = err
							break
						}
						pc.add(tp)
					}
					switch {
					case t != nil:
					case cache != nil && !cache.full.Load():
						// The whole tree, which any later pattern can use.
						if t, err = tp.Parse(src); err == nil {
							t = cache.add(name, pat.lang, pat.grammar, info, t)
						}
					default:
						t, err = parseFor(tp, flt, src)
					}
					if err != nil && ctx.Err() != nil {
						fr.skip = "cancelled" // stopped: not a parse failure, not "no matches"
						break
					}
					if err != nil {
						fr.skip = "parse"
						break
					}
					limit := -1 // a rewrite needs every match; a search builds those under the cap
					if rw == nil {
						limit = maxMatches
					}
					finds, extra, complete := pat.p.FindAllStop(t, func() bool { return ctx.Err() != nil }, limit)
					if !complete {
						fr.skip = "cancelled"
						break
					}
					fr.extra = extra
					fr.searched = true
					if rw != nil && len(finds) > 0 {
						fr.src = src
					}
					var text string // the matches' strings share one copy of the source
					if len(finds) > 0 {
						text = string(src)
					}
					for _, f := range finds {
						// Past the match cap only the count matters when not rewriting:
						// the caps keep matches in walk order, so these cannot be kept.
						if rw == nil && len(fr.matches) >= maxMatches {
							fr.extra++
							continue
						}
						m := buildMatch(t, pat.lang, pat.p, f, req.Context, text)
						m.File = j.path
						if rw != nil {
							addReplacement(&m, rw.template, src)
						}
						fr.matches = append(fr.matches, m)
					}
				}
				done <- j.idx
			}
		}()
	}
	slots := make(chan struct{}, window) // one per file dispatched and not yet emitted
	go func() {
		defer close(jobs)
		for i, f := range files {
			select {
			case slots <- struct{}{}:
				select {
				case jobs <- job{idx: i, path: f}:
					continue
				case <-ctx.Done():
				}
			case <-ctx.Done():
			}
			// Mark the rest as not done; the loop below counts them.
			for k := i; k < len(files); k++ {
				done <- -1 - k
			}
			return
		}
	}()
	// Reorder: file i is emitted once every file before it has been.
	arrived := make(map[int]bool, window)
	never := make(map[int]bool)
	next, wanted := 0, true
	for k := range files {
		i := <-done
		received++
		if i < 0 {
			never[-1-i] = true
		} else {
			arrived[i] = true
		}
		if req.Progress != nil {
			req.Progress(k+1, len(files))
		}
		for next < len(files) && (arrived[next] || never[next]) {
			if arrived[next] {
				fr := &results[next%window]
				if wanted && !emit(next, fr) {
					wanted = false
					stop()
				}
				*fr = fileResult{}
				delete(arrived, next)
				<-slots
			}
			delete(never, next)
			next++
		}
	}
}

// addReplacement sets the match's replacement and the range it replaces: the whole matched
// node, as `ast-grep run` does (its rule does not pass on the pattern's own end of match,
// so trailing tokens and clauses the pattern does not mention are replaced too).
func addReplacement(m *Match, tmpl string, src []byte) {
	start := m.Range.ByteOffset.Start
	r := string(expand(tmpl, bindingsOf(m), src, start))
	m.Replacement = &r
	off := m.Range.ByteOffset
	m.ReplacementOffsets = &off
}

// runBackend reads the files and hands them to a backend in one call.
func runBackend(ctx context.Context, fsys fs.FS, req *Request, b Backend, files []string, rw *rewriteSpec) ([]fileResult, error) {
	results := make([]fileResult, len(files))
	var srcs []Source
	var idx []int
	for i, f := range files {
		src, err := readSource(fsys, f)
		if errors.Is(err, errTooLarge) {
			results[i].skip = "large"
			continue
		}
		if err != nil {
			results[i].err = &FileError{Op: "read", Path: f, Err: err}
			continue
		}
		if r := skipReason(src); r != "" {
			results[i].skip = r
			continue
		}
		results[i].src, results[i].searched = src, true
		s := Source{Path: f, Data: src}
		if req.Dir != "" {
			s.OSPath = filepath.Join(req.Dir, filepath.FromSlash(f))
		}
		srcs = append(srcs, s)
		idx = append(idx, i)
	}
	q := Query{Pattern: req.Pattern, Lang: req.Lang, Strictness: req.Strictness, Selector: req.Selector}
	if rw != nil {
		q.Rewrite = &rw.template
	}
	if len(srcs) > 0 {
		out, err := b.Find(ctx, q, srcs)
		if err != nil {
			return nil, err
		}
		for k, ms := range out {
			if req.Context > 0 {
				for j := range ms {
					withContext(&ms[j], srcs[k].Data, req.Context)
				}
			}
			results[idx[k]].matches = ms
		}
	}
	if req.Progress != nil {
		req.Progress(len(files), len(files))
	}
	return results, nil
}

// withContext widens Lines by n lines on each side.
func withContext(m *Match, src []byte, n int) {
	ls, le := lineStart(src, m.Range.ByteOffset.Start), lineEnd(src, m.Range.ByteOffset.End)
	for range n {
		if ls == 0 {
			break
		}
		ls = lineStart(src, ls-1)
	}
	for range n {
		if le >= len(src) {
			break
		}
		le = lineEnd(src, le+1)
	}
	m.Lines = string(src[ls:le])
	m.CharCount = CharCount{
		Leading:  utf8.RuneCount(src[ls:m.Range.ByteOffset.Start]),
		Trailing: utf8.RuneCount(src[m.Range.ByteOffset.End:le]),
	}
}
