package loopguard

import (
	"strings"
	"unicode/utf8"
)

// This file reads task ids and lifecycle states out of task_status / task_result outputs,
// with the reference plugin's regular expressions re-implemented by hand (they are
// JavaScript expressions: \s is JavaScript's whitespace, \w is ASCII, /i folds ASCII only,
// and "." and ^/$ in multi-line mode know four line terminators).

// isJSSpace reports whether r is whitespace for a JavaScript regular expression.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// isLineTerminator reports whether r ends a line for JavaScript.
func isLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
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

// skipJSSpace returns s without its leading whitespace (line breaks included).
func skipJSSpace(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if !isJSSpace(r) {
			break
		}
		s = s[size:]
	}
	return s
}

// parseTaskID finds the task id in a status output: the leftmost place where "task_id:"
// and optional whitespace, or "Task", whitespace, characters other than "\n" and "(" and
// then "(", is followed by a run of characters that are neither whitespace nor ")".
// It returns "" when there is none.
func parseTaskID(out string) string {
	for i := 0; i+4 <= len(out); i++ {
		if c := out[i]; c != 't' && c != 'T' {
			continue
		}
		if !hasPrefixFold(out[i:], "task") {
			continue
		}
		rest := out[i+4:]
		if hasPrefixFold(rest, "_id:") {
			v := skipJSSpace(rest[4:])
			if n := idRun(v); n > 0 {
				return v[:n]
			}
			continue
		}
		if id, ok := taskParen(rest); ok {
			return id
		}
	}
	return ""
}

// taskParen matches \s+[^\n(]*\((id) against rest: one or more whitespace characters
// (line breaks included), then characters other than "\n" and "(" up to the first "(".
// Only "\n" ends the line here, as in the plugin's expression: "\r", U+2028 and U+2029 do
// not.
func taskParen(rest string) (string, bool) {
	r, size := utf8.DecodeRuneInString(rest)
	if size == 0 || !isJSSpace(r) {
		return "", false
	}
	p := strings.IndexByte(rest, '(')
	if p < 0 {
		return "", false
	}
	// Everything before the last "\n" of rest[:p] must be whitespace (taken by \s+).
	if nl := strings.LastIndexByte(rest[:p], '\n'); nl >= 0 {
		for _, r := range rest[:nl] {
			if !isJSSpace(r) {
				return "", false
			}
		}
	}
	v := rest[p+1:]
	if n := idRun(v); n > 0 {
		return v[:n], true
	}
	return "", false
}

// lineStarts calls yield with every suffix of s that starts a line (multi-line ^), until
// yield returns true. It scans bytes: U+2028 and U+2029 are the only line terminators
// outside ASCII, and their encodings (E2 80 A8, E2 80 A9) cannot start inside another
// character, valid or not.
func lineStarts(s string, yield func(line string) bool) {
	if yield(s) {
		return
	}
	if strings.IndexByte(s, '\r') < 0 && strings.IndexByte(s, 0xE2) < 0 {
		// Only '\n' ends lines: jump from one to the next.
		for rest := s; ; {
			i := strings.IndexByte(rest, '\n')
			if i < 0 {
				return
			}
			rest = rest[i+1:]
			if yield(rest) {
				return
			}
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n' || c == '\r':
			if yield(s[i+1:]) {
				return
			}
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9):
			i += 2
			if yield(s[i+1:]) {
				return
			}
		}
	}
}

// parseTaskState finds the lifecycle state: the first line starting with "state:", then
// optional whitespace (across line breaks), then a run of [A-Za-z0-9_-]. The run is
// lower-cased, "busy" reads as "running", and ":uncertain" is added when the output marks
// the state as unconfirmed. It returns "" when there is none.
func parseTaskState(out string) string {
	state := ""
	lineStarts(out, func(line string) bool {
		if !hasPrefixFold(line, "state:") {
			return false
		}
		v := skipJSSpace(line[len("state:"):])
		n := 0
		for n < len(v) && isWordOrDash(v[n]) {
			n++
		}
		if n == 0 {
			return false
		}
		state = strings.ToLower(v[:n])
		return true
	})
	if state == "" {
		return ""
	}
	if state == "busy" {
		state = "running"
	}
	if uncertain(out) {
		state += ":uncertain"
	}
	return state
}

func isWordOrDash(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// uncertain reports whether out has "state:", optional whitespace (line breaks included),
// then "(unconfirmed)" before the next "\n" (the plugin's state:\s*[^\n]*\(unconfirmed\),
// so "\r", U+2028 and U+2029 do not end the line here), or a line that is
// "status_uncertain:", optional whitespace (line breaks included) and "true".
func uncertain(out string) bool {
	for i := 0; i+6 <= len(out); i++ {
		if c := out[i]; (c != 's' && c != 'S') || !hasPrefixFold(out[i:], "state:") {
			continue
		}
		rest := skipJSSpace(out[i+6:])
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		for j := strings.IndexByte(rest, '('); j >= 0; {
			if hasPrefixFold(rest[j:], "(unconfirmed)") {
				return true
			}
			k := strings.IndexByte(rest[j+1:], '(')
			if k < 0 {
				break
			}
			j += 1 + k
		}
	}
	found := false
	lineStarts(out, func(line string) bool {
		if !hasPrefixFold(line, "status_uncertain:") {
			return false
		}
		v := skipJSSpace(line[len("status_uncertain:"):])
		if !hasPrefixFold(v, "true") {
			return false
		}
		v = v[4:]
		r, size := utf8.DecodeRuneInString(v)
		found = size == 0 || isLineTerminator(r)
		return found
	})
	return found
}
