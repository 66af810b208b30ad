package tools

import (
	"bufio"
	"bytes"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	pattern  string // a doublestar pattern
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": directories only
	anchored bool   // the pattern has a slash: matched against the path below the file's directory
}

// ignoreSet is the rules of one .gitignore file, chained to the files of the directories
// above it. dir is the directory of the file relative to the walk's start ("" for the
// start itself); prefix is the walk's start relative to the file's directory, for files
// above the start ("" for the others).
type ignoreSet struct {
	dir, prefix string
	rules       []ignoreRule
	parent      *ignoreSet
}

// parseGitignore reads .gitignore text. Blank lines and comments are skipped, a
// backslash escapes a leading '#' or '!' and a trailing space, and a line whose pattern
// doublestar cannot compile is ignored (git ignores what it cannot use, too).
func parseGitignore(data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		// Trailing spaces are dropped unless escaped with a backslash.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
			line = line[:len(line)-1]
		}
		if line == "" || line[0] == '#' {
			continue
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored, line = true, strings.TrimPrefix(line, "/")
		}
		// Braces are literal in gitignore but alternation in doublestar.
		line = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(line)
		if !doublestar.ValidatePattern(line) {
			continue
		}
		r.pattern = line
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether rel (a slash path relative to the walk's start) is ignored:
// the last matching rule of the innermost file that has one decides.
func (s *ignoreSet) ignored(rel string, isDir bool) bool {
	for ; s != nil; s = s.parent {
		sub := rel
		switch {
		case s.prefix != "":
			sub = s.prefix + "/" + rel
		case s.dir != "":
			sub = strings.TrimPrefix(rel, s.dir+"/")
		}
		base := path.Base(sub)
		for i := len(s.rules) - 1; i >= 0; i-- {
			r := &s.rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			name := base
			if r.anchored {
				name = sub
			}
			if ok, _ := doublestar.Match(r.pattern, name); ok {
				return !r.negate
			}
		}
	}
	return false
}
