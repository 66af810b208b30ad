package loopguard

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// digest is a SHA-256 hash: the only trace of arguments and outputs the guard keeps.
type digest = [sha256.Size]byte

// maxKept is the longest task id or task state the guard keeps, in bytes. Longer ones are
// cut to this length (at a character boundary), so two ids that share their first 256
// bytes are one task to the guard.
const maxKept = 256

// callInfo is what the guard needs to know about a call, computed outside the lock.
type callInfo struct {
	session, callID string
	tool            string // lower-cased
	class           class
	block           bool   // an ordinary tool that may be refused
	key             digest // call key (ordinary tools only)
	argTask         string // task_id from the arguments (supervision tools only), a copy
}

// describe classifies a call; withKey also computes its call key and argument task id
// (Before and Preview need them; After uses what Before recorded, so a call's arguments
// are canonicalised and hashed once).
func (cfg *config) describe(c Call, withKey bool) callInfo {
	tool := strings.ToLower(c.Tool)
	kind := cfg.kindOf(tool)
	ci := callInfo{session: c.Session, callID: c.CallID, tool: tool, class: kind.class}
	switch ci.class {
	case classOrdinary:
		ci.block = kind.block
		if withKey {
			ci.key = callKey(tool, c.Args)
		}
	case classSupervision:
		if withKey {
			ci.argTask = keep(argTaskID(c.Args))
		}
	}
	return ci
}

// callKey is SHA-256 of tool + ":" + the canonical arguments.
func callKey(tool string, args json.RawMessage) digest {
	buf := append([]byte(tool+":"), Canonical(nil, args)...)
	return sha256.Sum256(buf)
}

// outputKey fingerprints an output. A text output and a structured output that is a JSON
// string with the same text get the same key, as they do in the reference plugin, where a
// string result is serialised as its JSON string literal. The text is hashed raw after a
// NUL byte instead of as a literal: no canonical JSON serialisation starts with NUL, so
// the keys tell outputs apart exactly as the literal would, without escaping (copying) a
// large output first. Structured outputs are hashed as tool + ":" + canonical JSON.
func outputKey(tool string, o Output) digest {
	if o.Value == nil {
		return textKey(tool, o.Text)
	}
	canon := Canonical(nil, o.Value)
	if canon[0] == '"' {
		var s string
		if json.Unmarshal(canon, &s) == nil { // a canonical string literal always decodes
			return textKey(tool, s)
		}
	}
	return sha256.Sum256(append([]byte(tool+":"), canon...))
}

// textKey hashes tool + ":" + NUL + text, copying the text into the hash through a buffer
// of at most 32 KiB rather than converting it whole.
func textKey(tool, text string) digest {
	h := sha256.New()
	h.Write([]byte(tool + ":\x00"))
	buf := make([]byte, min(len(text), 32<<10))
	for len(text) > 0 {
		n := copy(buf, text)
		h.Write(buf[:n])
		text = text[n:]
	}
	return digest(h.Sum(nil))
}

// argTaskID returns the trimmed string value of the top-level "task_id" member of a
// supervision call's JSON object arguments (the last one if repeated), or "" when there is
// none, it is not a string, or the arguments are not a JSON object.
func argTaskID(args []byte) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	s, _ := m["task_id"].(string)
	return strings.TrimSpace(s)
}

// keep returns a copy of s cut to at most maxKept bytes at a character boundary: what the
// guard stores of a task id or state, so that nothing it keeps shares memory with (or
// grows with) a tool's output or arguments.
func keep(s string) string {
	if len(s) > maxKept {
		n := maxKept
		for i := 1; i < utf8.UTFMax && !utf8.RuneStart(s[n]); i++ {
			n-- // back to the start of a character cut in two
		}
		s = s[:n]
	}
	return strings.Clone(s)
}

// outputText is the text a supervision output is read from: the text of a text output, or
// the string of a structured output that is a JSON string ("" otherwise).
func outputText(o Output) string {
	if o.Value == nil {
		return o.Text
	}
	var s string
	if json.Unmarshal(o.Value, &s) != nil {
		return ""
	}
	return s
}
