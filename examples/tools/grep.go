package tools

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/harnesskit/harnesskit/pathguard"
)

// Limits of grep.
const (
	DefaultGrepLimit         = 100      // matching lines shown when the call gives no limit
	DefaultMaxSearchFileSize = 64 << 20 // larger files are not searched (the result says how many)
)

// progressEvery is how many files grep and glob look at between two progress reports.
const progressEvery = 256

//go:embed descriptions/grep.md
var grepDescription string

type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"a Go (RE2) regular expression matched against each line"`
	Path       string `json:"path,omitempty" jsonschema:"the directory or file to search: absolute, or relative to the workspace root (default: the root)"`
	Glob       string `json:"glob,omitempty" jsonschema:"only search files whose path matches this glob, e.g. *.go or src/**/*.ts"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"match without regard to case"`
	Limit      int    `json:"limit,omitempty" jsonschema:"the most matching lines to show (default 100)"`
}

func newGrep(_ *Toolbox, c *config) (*Tool, error) {
	workers, maxSize := c.workers, c.maxFileSize
	return makeTool("grep", grepDescription, Annotations{ReadOnly: true, Idempotent: true},
		func(s *jsonschema.Schema) {
			one := 1.0
			s.Properties["limit"].Minimum = &one
		},
		func(ctx context.Context, w *workspace, in *grepArgs, p Progress) (string, error) {
			return w.grep(ctx, in, workers, maxSize, p)
		})
}

// lineMatch is one matching line.
type lineMatch struct {
	n    int
	text string
}

// fileMatches is every matching line of one file, in order.
type fileMatches struct {
	path  string // relative to the searched directory, slash-separated
	lines []lineMatch
	count int // matching lines, kept or not (only the first limit are kept)
}

func (w *workspace) grep(ctx context.Context, in *grepArgs, workers int, maxSize int64, p Progress) (string, error) {
	expr := in.Pattern
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return "", invalidf("grep: pattern %q is not a valid Go regular expression: %v. Escape regex metacharacters such as ( [ { . * + ? with a backslash to match them literally", in.Pattern, err)
	}
	in.Glob = globPattern(in.Glob, runtime.GOOS == "windows")
	if in.Glob != "" && !doublestar.ValidatePattern(in.Glob) {
		return "", invalidf("grep: glob %q is not a valid pattern; use * for any name, ** for any depth and {a,b} for alternatives", in.Glob)
	}
	r, dir, single, ancestors, err := w.searchRoot(ctx, "grep", in.Path)
	if err != nil {
		return "", err
	}
	defer r.Close()
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultGrepLimit
	}
	var found []fileMatches
	var skipped int
	if single != "" {
		d := &dirHandle{root: r}
		d.acquire() // never released: r is closed above
		data, err := readInto(d, single, nil, maxSize)
		switch {
		case errors.Is(err, errTooLarge):
			skipped = 1
		case err != nil:
			return "", err
		default:
			lines, n, err := grepLines(ctx, re, data, limit, MaxOutputBytes, searchWindow)
			if err != nil {
				return "", err
			}
			if n > 0 {
				found = []fileMatches{{path: single, lines: lines, count: n}}
			}
		}
	} else {
		found, skipped, err = searchTree(ctx, r, ancestors, re, in.Glob, workers, maxSize, limit, p)
		if err != nil {
			return "", err
		}
	}
	return w.renderGrep(dir, found, limit, skipped, maxSize), nil
}

// searchRoot runs the path guards on a grep or glob path and returns the directory to
// search, opened below the workspace base so that a link planted after the check cannot
// lead out of it (the caller closes it), its real path, the file name when the path is a
// regular file, and the .gitignore rules of the directories between the workspace base
// and the searched directory.
func (w *workspace) searchRoot(ctx context.Context, tool, p string) (r *os.Root, dir, single string, ancestors *ignoreSet, err error) {
	args := map[string]any{"path": p}
	if err := w.box.search.Check(tool, args, w.root); err != nil {
		return nil, "", "", nil, err
	}
	t, err := w.contained(p)
	if err != nil {
		return nil, "", "", nil, err
	}
	base, rel, err := openBase(t)
	if err != nil {
		return nil, "", "", nil, err
	}
	defer base.Close()
	fi, err := base.Stat(rel)
	if err != nil {
		return nil, "", "", nil, err
	}
	dir, drel := t.Real, rel
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return nil, "", "", nil, invalidf("%s: path %s is neither a directory nor a regular file", tool, p)
		}
		dir, single, drel = filepath.Dir(t.Real), filepath.Base(t.Real), filepath.Dir(rel)
	}
	if err := ctx.Err(); err != nil {
		return nil, "", "", nil, err
	}
	r, err = base.OpenRoot(drel)
	if err != nil {
		return nil, "", "", nil, err
	}
	return r, dir, single, loadAncestors(t, dir), nil
}

// loadAncestors reads the .gitignore files of the directories from the target's base down
// to dir's parent.
func loadAncestors(t pathguard.Target, dir string) *ignoreSet {
	rel, err := filepath.Rel(t.RealBase, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return nil
	}
	base, err := os.OpenRoot(t.RealBase)
	if err != nil {
		return nil
	}
	defer base.Close()
	segs := strings.Split(filepath.ToSlash(rel), "/")
	var set *ignoreSet
	for i := range segs {
		if data, err := readGitignore(base, path.Join(path.Join(segs[:i]...), ".gitignore")); err == nil {
			if rules := parseGitignore(data); len(rules) > 0 {
				set = &ignoreSet{prefix: strings.Join(segs[i:], "/"), rules: rules, parent: set}
			}
		}
	}
	return set
}

// searchTree greps every file below r that the ignore rules keep and glob matches, with
// workers goroutines reading and matching files while this one walks. All goroutines have
// ended when it returns. The result is sorted by path.
//
// Files larger than maxSize bytes are skipped and counted. Only what can be shown is kept:
// of each file the first keep matching lines, at most MaxOutputBytes of them, and of all
// files only those whose lines can still be shown after the files before them in path
// order (a matches collector); the other matching lines are counted.
func searchTree(ctx context.Context, r *os.Root, ancestors *ignoreSet, re *regexp.Regexp, glob string, workers int, maxSize int64, keep int, p Progress) ([]fileMatches, int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		d   *dirHandle
		rel string
	}
	jobs := make(chan job, 256)
	found := &matchCollector{keepLines: keep, keepBytes: MaxOutputBytes}
	skipped := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf []byte
			for j := range jobs {
				if ctx.Err() != nil {
					j.d.release() // drain
					continue
				}
				var err error
				buf, err = readInto(j.d, path.Base(j.rel), buf, maxSize)
				j.d.release()
				if errors.Is(err, errTooLarge) {
					skipped[w]++
					continue
				}
				if err != nil {
					continue // vanished or unreadable: skipped, as ripgrep does
				}
				if lines, n, _ := grepLines(ctx, re, buf, keep, MaxOutputBytes, searchWindow); n > 0 { // cancelled: reported below
					found.add(fileMatches{path: j.rel, lines: lines, count: n})
				}
			}
		})
	}
	files := 0
	walkErr := walkFiles(ctx, r, ".", ancestors, func(d *dirHandle, rel string) error {
		if glob != "" && !globMatch(glob, rel) {
			d.release()
			return nil
		}
		select {
		case jobs <- job{d, rel}:
		case <-ctx.Done():
			d.release()
			return ctx.Err()
		}
		files++
		if p != nil && files%progressEvery == 0 {
			p(float64(files), 0, fmt.Sprintf("grep: %d files searched", files))
		}
		return nil
	})
	close(jobs)
	wg.Wait()
	if walkErr != nil {
		return nil, 0, walkErr
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	n := 0
	for _, k := range skipped {
		n += k
	}
	return found.sorted(), n, nil
}

// matchCollector gathers the matches of the files of a search from its workers, keeping
// the lines only of the files that can be shown: once the lines kept exceed twice what one
// result shows, the files are sorted by path and the lines of every file that comes after
// keepLines lines or keepBytes bytes of earlier files are dropped (their count stays). So
// what a search keeps is bounded by about twice one result, whatever the limit and the
// number of matching files.
type matchCollector struct {
	mu                   sync.Mutex
	files                []fileMatches
	keptBytes            int
	keepLines, keepBytes int
}

func (c *matchCollector) add(f fileMatches) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files = append(c.files, f)
	c.keptBytes += f.size()
	if c.keptBytes > 2*c.keepBytes {
		c.trim()
	}
}

// trim sorts the files and drops the lines that cannot be shown.
func (c *matchCollector) trim() {
	slices.SortFunc(c.files, func(a, b fileMatches) int { return cmp.Compare(a.path, b.path) })
	lines, bytes := 0, 0
	for i := range c.files {
		f := &c.files[i]
		if lines >= c.keepLines || bytes >= c.keepBytes {
			c.keptBytes -= f.size()
			f.lines = nil
			continue
		}
		lines += len(f.lines)
		bytes += f.size()
	}
}

// sorted returns the files sorted by path, with only the lines that can be shown.
func (c *matchCollector) sorted() []fileMatches {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trim()
	return c.files
}

// size is about what f's kept lines take in a result: its path header and each line.
func (f *fileMatches) size() int {
	if len(f.lines) == 0 {
		return 0
	}
	n := len(f.path) + 3
	for _, l := range f.lines {
		n += l.size()
	}
	return n
}

// size is what l takes in a result: "  <n>: <text>\n".
func (l lineMatch) size() int { return len(l.text) + len(strconv.Itoa(l.n)) + 5 }

// globMatch matches a file filter the way ripgrep's -g does: a pattern without a slash
// against the file name, one with a slash against the whole relative path.
func globMatch(glob, rel string) bool {
	name := rel
	if !strings.Contains(glob, "/") {
		name = path.Base(rel)
	}
	ok, _ := doublestar.Match(glob, name)
	return ok
}

// grepBytes returns the lines of data that re matches, or nil for a file with a NUL byte
// (binary). It searches the whole buffer for the next match and then confirms it on its
// line alone, so a match never spans lines and the regexp runs once per matching line
// rather than once per line.
func grepBytes(re *regexp.Regexp, data []byte) []lineMatch {
	lines, _, _ := grepLines(context.Background(), re, data, math.MaxInt, math.MaxInt, searchWindow)
	return lines
}

// searchWindow is how many bytes (extended to the end of a line) grep hands the regexp at
// once. The context is checked between windows: a slow pattern on long lines takes about
// a second per window at worst, so cancellation stops it soon.
const searchWindow = 4 << 10

// grepLines is grepBytes keeping only the first keep matching lines, and no more once
// they take keepBytes in a result (lineMatch.size), and counting all: a file where every
// line matches costs memory for what can be shown, not for its size or the limit asked.
// It searches window bytes of whole lines at a time and stops with ctx.Err() when ctx
// is done.
func grepLines(ctx context.Context, re *regexp.Regexp, data []byte, keep, keepBytes, window int) ([]lineMatch, int, error) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, 0, nil
	}
	count := 0
	// Every match starts with the literal prefix (if any): finding it with bytes.Index and
	// checking its line is much faster than running the regexp over the whole buffer.
	prefix, _ := re.LiteralPrefix()
	var out []lineMatch
	kept := 0         // bytes of the kept lines in a result
	pos, line := 0, 1 // line is the number of the line that starts at pos
	for pos < len(data) {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		// Whole lines from pos, at least window bytes, without the final newline: a
		// line that matches on its own matches here too.
		end := len(data)
		if pos+window < len(data) {
			if i := bytes.IndexByte(data[pos+window:], '\n'); i >= 0 {
				end = pos + window + i
			}
		}
		var loc []int
		if prefix != "" {
			if i := bytes.Index(data[pos:end], []byte(prefix)); i >= 0 {
				loc = []int{i, i + len(prefix)}
			}
		} else {
			loc = re.FindIndex(data[pos:end])
		}
		if loc == nil {
			if end == len(data) {
				break
			}
			line += bytes.Count(data[pos:end], []byte{'\n'}) + 1
			pos = end + 1
			continue
		}
		start := pos + loc[0]
		if start == len(data) && data[start-1] == '\n' {
			break // an empty match after the final newline: there is no line there
		}
		// The line holding the match start.
		ls := bytes.LastIndexByte(data[pos:start], '\n')
		if ls < 0 {
			ls = pos
		} else {
			ls += pos + 1
		}
		line += bytes.Count(data[pos:ls], []byte{'\n'})
		le := bytes.IndexByte(data[start:], '\n')
		next := len(data)
		if le < 0 {
			le = len(data)
		} else {
			le += start
			next = le + 1
		}
		text := data[ls:le]
		if re.Match(text) {
			if count < keep && kept < keepBytes {
				m := lineMatch{n: line, text: cutLine(string(bytes.TrimSuffix(text, []byte{'\r'})))}
				out = append(out, m)
				kept += m.size()
			}
			count++
		}
		if next == len(data) && le == len(data) {
			break
		}
		pos, line = next, line+1
	}
	return out, count, nil
}

// cutLine shortens a line for display.
func cutLine(s string) string {
	if len(s) <= DefaultMaxLineRune {
		return s
	}
	r := []rune(s)
	if len(r) <= DefaultMaxLineRune {
		return s
	}
	return string(r[:DefaultMaxLineRune]) + " … [line cut]"
}

func (w *workspace) renderGrep(dir string, found []fileMatches, limit, skipped int, maxSize int64) string {
	total := 0
	for _, f := range found {
		total += f.count
	}
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf("(%d files larger than %d bytes were not searched.)\n", skipped, maxSize)
	}
	if total == 0 {
		return "No matches found.\n" + note
	}
	var body strings.Builder
	shown := 0
files:
	for _, f := range found {
		if shown == limit {
			break
		}
		head := fmt.Sprintf("\n%s:\n", w.display(filepath.Join(dir, filepath.FromSlash(f.path))))
		for i, l := range f.lines {
			text := fmt.Sprintf("  %d: %s\n", l.n, l.text)
			if i == 0 {
				text = head + text
			}
			if shown == limit || (shown > 0 && body.Len()+len(text) > MaxOutputBytes) {
				break files
			}
			body.WriteString(text)
			shown++
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Found %d matching lines in %d files", total, len(found))
	switch {
	case shown == limit && total > limit:
		fmt.Fprintf(&sb, " (showing the first %d; narrow the pattern, path or glob, or raise limit)", limit)
	case shown < total:
		fmt.Fprintf(&sb, " (showing the first %d, all that fit in %d bytes; narrow the pattern, path or glob)", shown, MaxOutputBytes)
	}
	sb.WriteString("\n")
	sb.WriteString(body.String())
	if note != "" {
		sb.WriteString("\n" + note)
	}
	return sb.String()
}
