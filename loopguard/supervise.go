package loopguard

import (
	"strings"
	"unicode/utf8"
)

// This file reads the task id and the lifecycle state out of a task_status / task_result
// output. The rules are the reference plugin's regular expressions, which are JavaScript
// expressions: \s is JavaScript's whitespace, \w is ASCII, /i folds ASCII only, and "."
// and multi-line ^ know four line terminators. They are read here by one forward scan of
// at most the first maxParsed bytes of the output; every look-ahead the scan makes is
// over bytes no other look-ahead of the same kind visits again, so the work is linear in
// the bytes read whatever the output holds.

// maxParsed is how much of an output is read for a task id and state.
const maxParsed = 64 << 10

// isJSSpace reports whether r is whitespace for a JavaScript regular expression.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word, ignoring ASCII case.
func hasPrefixFold(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// spaceEnd returns the index of the first non-whitespace character of s at or after i.
func spaceEnd(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isJSSpace(r) {
			break
		}
		i += size
	}
	return i
}

// idRun returns the length of the run of characters at the start of s that are neither
// whitespace nor ')'.
func idRun(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if r == ')' || isJSSpace(r) {
			break
		}
		n += size
	}
	return n
}

// lineStart reports whether s[i] starts a line: i is 0 or follows "\n", "\r", U+2028 or
// U+2029.
func lineStart(s string, i int) bool {
	if i == 0 || s[i-1] == '\n' || s[i-1] == '\r' {
		return true
	}
	return i >= 3 && (s[i-3:i] == "\u2028" || s[i-3:i] == "\u2029")
}

// lineEnd reports whether s[i:] is empty or starts with a line terminator.
func lineEnd(s string, i int) bool {
	if i == len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
}

func isWordOrDash(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// readStatus returns the task id and the lifecycle state of a status output, each "" when
// the output (its first maxParsed bytes) has none. The strings returned may be slices of
// out: the caller copies what it keeps.
//
// The task id is at the leftmost place where "task_id:" and optional whitespace, or
// "task", whitespace, characters other than "\n" and "(" and then "(", are followed by a
// run of characters that are neither whitespace nor ")"; that run is the id.
//
// The state is on the first line that starts with "state:": optional whitespace (which
// may cross line breaks), then a run of [A-Za-z0-9_-], lower-cased; "busy" reads as
// "running". It gets the suffix ":uncertain" when the output has "state:", optional
// whitespace and then "(unconfirmed)" before the next "\n", or a line that is
// "status_uncertain:", optional whitespace and "true". Words match in any ASCII case.
func readStatus(out string) (id, state string) {
	s := out[:min(len(out), maxParsed)]
	var (
		idFound   bool
		paren     = -1 // the first "(" at or after parenFrom, or len(s) if none
		parenFrom = -1
		parenNL   = -1 // the last "\n" in s[parenFrom:paren], or -1
		lastNL    = -1 // the last "\n" before i
		stateW    = -1 // where the text after the latest "state:" and its spaces starts
		unconf    bool
		uncertain bool
	)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			lastNL = i
		case 't', 'T':
			if idFound || !hasPrefixFold(s[i:], "task") {
				break
			}
			if hasPrefixFold(s[i+4:], "_id:") {
				w := spaceEnd(s, i+8)
				if n := idRun(s[w:]); n > 0 {
					id, idFound = s[w:w+n], true
				}
				break
			}
			// "task", at least one space, then anything but "\n" and "(" up to "(": the
			// spaces may hold line breaks, the text after them may not.
			w := spaceEnd(s, i+4)
			if w == i+4 {
				break
			}
			if paren < i+4 {
				parenFrom = i + 4
				paren = len(s)
				if p := strings.IndexByte(s[parenFrom:], '('); p >= 0 {
					paren = parenFrom + p
				}
				parenNL = -1
				if nl := strings.LastIndexByte(s[parenFrom:paren], '\n'); nl >= 0 {
					parenNL = parenFrom + nl
				}
			}
			if paren < len(s) && parenNL < w {
				if n := idRun(s[paren+1:]); n > 0 {
					id, idFound = s[paren+1:paren+1+n], true
				}
			}
		case 's', 'S':
			switch {
			case hasPrefixFold(s[i:], "state:"):
				stateW = spaceEnd(s, i+6)
				if state == "" && lineStart(s, i) {
					n := 0
					for stateW+n < len(s) && isWordOrDash(s[stateW+n]) {
						n++
					}
					state = s[stateW : stateW+n]
				}
			case !uncertain && hasPrefixFold(s[i:], "status_uncertain:") && lineStart(s, i):
				w := spaceEnd(s, i+len("status_uncertain:"))
				uncertain = hasPrefixFold(s[w:], "true") && lineEnd(s, w+4)
			}
		case '(':
			// "(unconfirmed)" counts when a "state:" comes before it with no "\n" between
			// the text after that state's spaces and here. The latest "state:" is the one
			// to test: an earlier one has the same "\n" in between, or an earlier one.
			if !unconf && stateW >= 0 && stateW <= i && lastNL < stateW && hasPrefixFold(s[i:], "(unconfirmed)") {
				unconf = true
			}
		}
	}
	if state == "" {
		return id, ""
	}
	state = strings.ToLower(state)
	if state == "busy" {
		state = "running"
	}
	if unconf || uncertain {
		state += ":uncertain"
	}
	return id, state
}
