package loopguard

import (
	"crypto/sha256"
	"encoding/json"
	"hash"
	"strings"
	"unsafe"
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

// scratch holds the buffers of one fingerprinting at a time, so that steady-state calls
// allocate nothing for canonicalisation. Core owns one; Guard keeps a pool of them.
type scratch struct {
	buf []byte
	p   canonParser
	h   hash.Hash // SHA-256 of text outputs, created on first use and reset for each
	sum []byte    // h's last result
}

// maxKeptScratch bounds the buffers a scratch keeps between calls.
const maxKeptScratch = 64 << 10

func (sc *scratch) trim() {
	if cap(sc.buf) > maxKeptScratch {
		sc.buf = nil
	}
	if cap(sc.p.tmp) > maxKeptScratch {
		sc.p.tmp = nil
	}
	if cap(sc.p.scratch) > maxKeptScratch {
		sc.p.scratch = nil
	}
	if cap(sc.p.keys) > maxKeptScratch {
		sc.p.keys = nil
	}
	if cap(sc.p.members) > maxKeptScratch/32 {
		sc.p.members = nil
	}
	sc.p.src = nil // do not keep the caller's arguments alive
}

// describe classifies a call; withKey also computes its call key (Before and Preview need
// it; After uses the key recorded at Before, so a call's arguments are canonicalised and
// hashed once).
func (cfg *config) describe(c Call, sc *scratch, withKey bool) callInfo {
	tool := strings.ToLower(c.Tool)
	kind := cfg.kindOf(tool)
	ci := callInfo{session: c.Session, callID: c.CallID, tool: tool, class: kind.class}
	if c.Session == "" {
		return ci
	}
	switch ci.class {
	case classOrdinary:
		ci.block = kind.block
		if withKey {
			ci.key = sc.callKey(tool, c.Args)
		}
	case classSupervision:
		if withKey {
			ci.argTask = sc.argTaskID(c.Args)
		}
	}
	return ci
}

// callKey is SHA-256 of tool + ":" + canonical arguments (spec L2, L3).
func (sc *scratch) callKey(tool string, args json.RawMessage) digest {
	buf := append(sc.buf[:0], tool...)
	buf = append(buf, ':')
	buf = sc.p.canonical(buf, args)
	sc.buf = buf
	return sha256.Sum256(buf)
}

// outputKey fingerprints an output (spec L2, L4). A text output and a structured output
// that is a JSON string with the same text get the same key, as they do in the plugin,
// where a string result is serialised as its JSON string literal. Instead of escaping the
// text into a literal (a copy of the whole output), the text is hashed raw after a NUL
// byte, a byte no canonical JSON serialisation starts with: the keys partition outputs
// exactly as the literal would, at the cost of one pass of SHA-256 over the output.
func (sc *scratch) outputKey(tool string, o Output) digest {
	if o.Value == nil {
		return sc.textKey(tool, stringBytes(o.Text))
	}
	buf := append(sc.buf[:0], tool...)
	buf = append(buf, ':')
	buf = sc.p.canonical(buf, o.Value)
	sc.buf = buf
	if buf[len(tool)+1] == '"' {
		sc.p.src, sc.p.i = buf, len(tool)+1
		sc.p.str() // a canonical string literal always decodes
		return sc.textKey(tool, sc.p.tmp)
	}
	return sha256.Sum256(buf)
}

// textKey hashes tool + ":" + NUL + text. A text output reaches it as the string's own
// memory (see stringBytes), never copied: in a Before+After pair with a 4 KiB output,
// the copy cost about a third of what canonicalising the 200-byte arguments costs.
func (sc *scratch) textKey(tool string, text []byte) digest {
	if sc.h == nil {
		sc.h = sha256.New()
	}
	h := sc.h
	h.Reset()
	buf := append(sc.buf[:0], tool...)
	buf = append(buf, ':', 0)
	sc.buf = buf
	h.Write(buf)
	h.Write(text)
	sc.sum = h.Sum(sc.sum[:0])
	return digest(sc.sum)
}

// stringBytes returns the bytes of s without copying them. The slice aliases the
// string's immutable memory, so it must never be written: it is only passed to a
// hash.Hash's Write, which reads its argument and keeps no reference to it (the io.Writer
// and hash.Hash contracts).
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// argTaskID returns the trimmed string value of the top-level "task_id" member of a
// supervision call's JSON object arguments (the last one if repeated), or "" when there is
// none, it is not a string, or the arguments are not a JSON object.
func (sc *scratch) argTaskID(args []byte) string {
	p := &sc.p
	p.src, p.i, p.depth = args, 0, 0
	p.keys, p.members = p.keys[:0], p.members[:0]
	defer func() { p.src = nil }()
	p.skipSpace()
	if p.i >= len(args) || args[p.i] != '{' {
		return ""
	}
	p.i++
	p.skipSpace()
	if p.i < len(args) && args[p.i] == '}' {
		return ""
	}
	val := ""
	for {
		p.skipSpace()
		if p.i >= len(args) || args[p.i] != '"' || !p.str() {
			return ""
		}
		match := string(p.tmp) == "task_id"
		p.skipSpace()
		if p.i >= len(args) || args[p.i] != ':' {
			return ""
		}
		p.i++
		p.skipSpace()
		if match && p.i < len(args) && args[p.i] == '"' {
			if !p.str() {
				return ""
			}
			val = strings.TrimSpace(string(p.tmp))
		} else {
			if match {
				val = ""
			}
			var ok bool
			if sc.buf, ok = p.value(sc.buf[:0]); !ok {
				return ""
			}
		}
		p.skipSpace()
		if p.i >= len(args) {
			return ""
		}
		if args[p.i] == ',' {
			p.i++
			continue
		}
		if args[p.i] != '}' {
			return ""
		}
		p.i++
		break
	}
	p.skipSpace()
	if p.i != len(args) {
		return ""
	}
	return val
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
