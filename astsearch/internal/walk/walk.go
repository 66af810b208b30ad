// Package walk lists the files of an fs.FS as ripgrep does: sorted, hidden entries and
// ignored paths skipped, .gitignore honoured inside a git repository only, .ignore
// everywhere, and override globs on top. It reads only through the fs.FS it is given.
package walk

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Options turn the ripgrep rules off or add overrides.
type Options struct {
	Hidden         bool     // also walk hidden files and directories
	NoIgnore       bool     // ignore .gitignore, .git/info/exclude and .ignore
	FollowSymlinks bool     // follow symbolic links (loops are cut)
	Globs          []string // overrides: "!" excludes, the last matching glob wins
	// Want selects the files to report among those the rules keep (the extension filter).
	Want func(name string) bool
}

// rule is one line of an ignore file.
type rule struct {
	dir      string // directory of the ignore file, "." for the root
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool // contains a '/': matched against the path relative to dir
}

func (r *rule) matches(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	sub := rel
	if r.dir != "." {
		var ok bool
		sub, ok = strings.CutPrefix(rel, r.dir+"/")
		if !ok {
			return false
		}
	}
	if r.anchored {
		ok, _ := doublestar.Match(r.pattern, sub)
		return ok
	}
	ok, _ := doublestar.Match(r.pattern, path.Base(sub))
	return ok
}

func parseRules(dir string, data []byte) []rule {
	var out []rule
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimRight(line, " ")
		r := rule{dir: dir}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if strings.Contains(line, "/") {
			r.anchored, line = true, strings.TrimPrefix(line, "/")
		}
		if line == "" {
			continue
		}
		r.pattern = line
		out = append(out, r)
	}
	return out
}

// state is the ignore context of one directory.
type state struct {
	inRepo bool
	rules  []rule // ancestors first, later rules win
}

type walker struct {
	ctx     context.Context
	fsys    fs.FS
	opt     Options
	globs   []rule
	hasWant bool // some override glob whitelists
	fn      func(string) error
	stack   []string // real paths of the directories being walked, outermost first
}

// Walk calls fn for each file kept under the given roots (slash paths relative to the fs
// root, "." for all), in sorted order. A root that is a file is reported if Want accepts
// it, even when it is hidden or ignored. Errors reading a directory below a root are
// skipped; fn's error, the context's error or an error for a root stop the walk.
func Walk(ctx context.Context, fsys fs.FS, roots []string, opt Options, fn func(name string) error) error {
	w := &walker{ctx: ctx, fsys: fsys, opt: opt, fn: fn}
	for _, g := range opt.Globs {
		rs := parseRules(".", []byte(g))
		if len(rs) == 1 {
			w.globs = append(w.globs, rs[0])
			if !rs[0].negate {
				w.hasWant = true
			}
		}
	}
	for _, root := range roots {
		info, err := fs.Stat(fsys, root)
		if err != nil {
			return err
		}
		if !info.IsDir() {
			if opt.Want == nil || opt.Want(root) {
				if err := fn(root); err != nil {
					return err
				}
			}
			continue
		}
		st, err := w.ancestors(root)
		if err != nil {
			return err
		}
		if err := w.dir(root, root, st); err != nil {
			return err
		}
	}
	return nil
}

// ancestors builds the ignore state of root from the fs root down.
func (w *walker) ancestors(root string) (state, error) {
	var st state
	if root == "." {
		return w.load(".", st), nil
	}
	parts := strings.Split(root, "/")
	st = w.load(".", st)
	for i := range parts {
		st = w.load(strings.Join(parts[:i+1], "/"), st)
	}
	return st, nil
}

func (w *walker) load(dir string, parent state) state {
	st := state{inRepo: parent.inRepo, rules: parent.rules}
	if w.opt.NoIgnore {
		return st
	}
	join := func(n string) string {
		if dir == "." {
			return n
		}
		return dir + "/" + n
	}
	if _, err := fs.Stat(w.fsys, join(".git")); err == nil {
		st.inRepo = true
		if b, err := fs.ReadFile(w.fsys, join(".git/info/exclude")); err == nil {
			st.rules = append(slices.Clip(st.rules), parseRules(dir, b)...)
		}
	}
	if st.inRepo {
		if b, err := fs.ReadFile(w.fsys, join(".gitignore")); err == nil {
			st.rules = append(slices.Clip(st.rules), parseRules(dir, b)...)
		}
	}
	if b, err := fs.ReadFile(w.fsys, join(".ignore")); err == nil {
		st.rules = append(slices.Clip(st.rules), parseRules(dir, b)...)
	}
	return st
}

func ignored(rules []rule, rel string, isDir bool) bool {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].matches(rel, isDir) {
			return !rules[i].negate
		}
	}
	return false
}

// override returns +1 (whitelisted), -1 (excluded) or 0 (no glob matched).
func (w *walker) override(rel string, isDir bool) int {
	for i := len(w.globs) - 1; i >= 0; i-- {
		if w.globs[i].matches(rel, isDir) {
			if w.globs[i].negate {
				return -1
			}
			return 1
		}
	}
	return 0
}

// dir walks dir, whose symlink-free path is real (both relative to the fs root).
func (w *walker) dir(dir, real string, st state) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.stack = append(w.stack, real)
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()
	ents, err := fs.ReadDir(w.fsys, dir)
	if err != nil {
		return nil // unreadable directory below a root: skipped, as ripgrep does
	}
	for _, e := range ents { // fs.ReadDir sorts by name
		name := e.Name()
		rel := name
		if dir != "." {
			rel = dir + "/" + name
		}
		if !w.opt.Hidden && strings.HasPrefix(name, ".") {
			continue
		}
		isDir := e.IsDir()
		childReal := path.Join(real, name)
		if e.Type()&fs.ModeSymlink != 0 {
			if !w.opt.FollowSymlinks {
				continue
			}
			// Follow a link only to a regular file or a directory whose real path, every
			// link on the way resolved, is inside the fs root; a directory only if it is
			// not the directory being walked or one of its ancestors (a loop).
			target, err := fs.ReadLink(w.fsys, rel)
			if err != nil || path.IsAbs(target) {
				continue
			}
			hops := 0
			to, ok := w.resolve(path.Join(real, target), &hops)
			if !ok {
				continue
			}
			info, err := fs.Stat(w.fsys, to)
			if err != nil {
				continue
			}
			isDir = info.IsDir()
			if !isDir && !info.Mode().IsRegular() {
				continue
			}
			if isDir {
				if slices.ContainsFunc(w.stack, func(anc string) bool { return within(anc, to) }) || strings.Count(rel, "/") > maxLinkDepth {
					continue
				}
				childReal = to
			}
		} else if !isDir && !e.Type().IsRegular() {
			continue
		}
		ov := w.override(rel, isDir)
		if ov < 0 {
			continue
		}
		ign := ignored(st.rules, rel, isDir)
		if isDir {
			if ign {
				continue
			}
			if err := w.dir(rel, childReal, w.load(rel, st)); err != nil {
				return err
			}
			continue
		}
		if ov == 0 && (ign || w.hasWant) {
			continue
		}
		if w.opt.Want != nil && !w.opt.Want(rel) {
			continue
		}
		if err := w.fn(rel); err != nil {
			return err
		}
	}
	return nil
}

// maxHops bounds the links followed while resolving one path.
const maxHops = 40

// ErrLinkOut: a symbolic link on a path is absolute, leads above the fs root, or is one
// of too many links (a loop).
var ErrLinkOut = errors.New("a symbolic link on the path leads outside the search root (absolute, above the root, or a loop)")

// Resolve returns the real path of the slash path p (relative to the fs root): every
// symbolic link on the way resolved through the fs. The error is ErrLinkOut for a link
// that is absolute, climbs above the fs root or loops, else the fs error of a missing
// component. On an fs.FS that cannot report links, p is returned as it is.
func Resolve(fsys fs.FS, p string) (string, error) {
	hops := 0
	return (&walker{fsys: fsys}).resolveErr(path.Clean(p), &hops)
}

// resolve is Resolve for the walker: false on any error.
func (w *walker) resolve(p string, hops *int) (string, bool) {
	r, err := w.resolveErr(p, hops)
	return r, err == nil
}

func (w *walker) resolveErr(p string, hops *int) (string, error) {
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", ErrLinkOut
	}
	cur := "."
	if p == "." {
		return cur, nil
	}
	for _, c := range strings.Split(p, "/") {
		next := path.Join(cur, c)
		if next == ".." || strings.HasPrefix(next, "../") {
			return "", ErrLinkOut
		}
		info, err := fs.Lstat(w.fsys, next)
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if *hops++; *hops > maxHops {
			return "", ErrLinkOut
		}
		target, err := fs.ReadLink(w.fsys, next)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			return "", ErrLinkOut
		}
		r, err := w.resolveErr(path.Join(cur, target), hops)
		if err != nil {
			return "", err
		}
		cur = r
	}
	return cur, nil
}

// maxLinkDepth bounds the depth at which directory links are still followed, in case a
// chain of links escapes the lexical loop check.
const maxLinkDepth = 64

// within reports whether dir lies inside (or is) anc; "." contains everything.
func within(dir, anc string) bool {
	return anc == "." || dir == anc || strings.HasPrefix(dir, anc+"/")
}
