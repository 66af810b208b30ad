package loopguard

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
)

// digest is a SHA-256 hash: the only trace of arguments and outputs the guard keeps.
type digest = [sha256.Size]byte

// callInfo is what the guard needs to know about a call, computed outside any lock.
type callInfo struct {
	session, callID string
	tool            string // lower-cased
	class           class
	block           bool   // an ordinary tool that may be refused
	key             digest // call key (ordinary tools only)
	argTask         string // task_id from the arguments (supervision tools only)
}

func (cfg *config) describe(c Call) callInfo {
	tool := strings.ToLower(c.Tool)
	ci := callInfo{session: c.Session, callID: c.CallID, tool: tool, class: cfg.classOf(tool)}
	if c.Session == "" {
		return ci
	}
	switch ci.class {
	case classOrdinary:
		ci.block = cfg.block[tool]
		ci.key = callKey(tool, c.Args)
	case classSupervision:
		ci.argTask = argTaskID(c.Args)
	}
	return ci
}

// callKey is SHA-256 of tool + ":" + canonical arguments (spec L2, L3).
func callKey(tool string, args json.RawMessage) digest {
	var stack [1024]byte
	buf := append(stack[:0], tool...)
	buf = append(buf, ':')
	buf = Canonical(buf, args)
	return sha256.Sum256(buf)
}

// outputKey fingerprints an output (spec L2, L4). A text output and a structured output
// that is a JSON string with the same text get the same key, as they do in the plugin,
// where a string result is serialised as its JSON string literal. Instead of escaping the
// text into a literal (a copy of the whole output), the text is hashed raw after a NUL
// byte, a byte no canonical JSON serialisation starts with: the keys partition outputs
// exactly as the literal would, at the cost of one pass of SHA-256 over the output.
func outputKey(tool string, o Output) digest {
	if o.Value == nil {
		return textKey(tool, o.Text)
	}
	canon := Canonical(nil, o.Value)
	if canon[0] == '"' {
		var p canonParser
		p.src = canon
		p.str() // canon is a valid literal
		return textKey(tool, string(p.tmp))
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{':'})
	h.Write(canon)
	var d digest
	h.Sum(d[:0])
	return d
}

func textKey(tool, text string) digest {
	var d digest
	var chunk [2048]byte
	if len(tool)+2+len(text) <= len(chunk) {
		buf := append(chunk[:0], tool...)
		buf = append(buf, ':', 0)
		buf = append(buf, text...)
		return sha256.Sum256(buf)
	}
	h := sha256.New()
	buf := append(chunk[:0], tool...)
	buf = append(buf, ':', 0)
	h.Write(buf)
	for len(text) > 0 {
		n := copy(chunk[:], text)
		h.Write(chunk[:n])
		text = text[n:]
	}
	h.Sum(d[:0])
	return d
}

// argTaskID returns the trimmed task_id string of a supervision call's arguments, or "".
func argTaskID(args json.RawMessage) string {
	if len(args) == 0 {
		return ""
	}
	var a struct {
		TaskID any `json:"task_id"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	s, _ := a.TaskID.(string)
	return strings.TrimSpace(s)
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
