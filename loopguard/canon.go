package loopguard

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is the nesting limit of canonical JSON, the same as encoding/json's: deeper
// input is treated as undecodable (and fingerprinted by its raw bytes).
const maxDepth = 10000

// Canonical appends the canonical serialisation of the raw JSON value src to dst and
// returns the extended buffer. It is the identity the guard hashes (spec L3):
//
//   - nil or empty src → the token undefined (an absent argument object);
//   - objects with keys sorted byte-wise, duplicate keys resolved last-wins, no whitespace;
//   - arrays in order; strings re-escaped as encoding/json does without HTML escaping;
//   - numbers as float64 printed by strconv.FormatFloat(f, 'g', -1, 64), -0 as 0;
//   - anything encoding/json would not decode into an interface value (bad syntax,
//     trailing data, a number out of float64 range, nesting deeper than 10000) → the token
//     raw: followed by src unchanged.
//
// Canonical never fails. Two inputs get the same serialisation exactly when they decode
// to equal values, so key order and spacing never matter.
func Canonical(dst, src []byte) []byte {
	if len(src) == 0 {
		return append(dst, "undefined"...)
	}
	var p canonParser
	return p.canonical(dst, src)
}

// canonical is Canonical with the parser's buffers reused from earlier calls.
func (p *canonParser) canonical(dst, src []byte) []byte {
	if len(src) == 0 {
		return append(dst, "undefined"...)
	}
	start := len(dst)
	p.src, p.i, p.depth = src, 0, 0
	p.keys, p.members = p.keys[:0], p.members[:0]
	out, ok := p.value(dst)
	if ok {
		p.skipSpace()
		ok = p.i == len(p.src)
	}
	if !ok {
		out = append(out[:start], "raw:"...)
		return append(out, src...)
	}
	return out
}

// member is one object member while its object is canonicalised: the decoded key in
// parser.keys and the serialised "key":value in dst.
type member struct {
	keyStart, keyEnd int
	start, end       int
}

type canonParser struct {
	src     []byte
	i       int
	depth   int
	keys    []byte   // decoded keys of the open objects
	members []member // members of the open objects
	tmp     []byte   // one decoded string
	scratch []byte   // copy of an object's members while they are reordered
}

func (p *canonParser) skipSpace() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *canonParser) value(dst []byte) ([]byte, bool) {
	p.skipSpace()
	if p.i >= len(p.src) {
		return dst, false
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(dst)
	case c == '[':
		return p.array(dst)
	case c == '"':
		if !p.str() {
			return dst, false
		}
		return appendQuoted(dst, p.tmp), true
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number(dst)
	case c == 't':
		return p.literal(dst, "true")
	case c == 'f':
		return p.literal(dst, "false")
	case c == 'n':
		return p.literal(dst, "null")
	}
	return dst, false
}

func (p *canonParser) literal(dst []byte, word string) ([]byte, bool) {
	if !bytes.HasPrefix(p.src[p.i:], []byte(word)) {
		return dst, false
	}
	p.i += len(word)
	return append(dst, word...), true
}

func (p *canonParser) number(dst []byte) ([]byte, bool) {
	s := p.src
	start := p.i
	i := p.i
	if s[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return dst, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return dst, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return dst, false
		}
	}
	p.i = i
	f, err := strconv.ParseFloat(string(s[start:i]), 64)
	if err != nil {
		return dst, false // out of float64 range: encoding/json refuses it too
	}
	if f == 0 {
		return append(dst, '0'), true
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64), true
}

func (p *canonParser) array(dst []byte) ([]byte, bool) {
	if p.depth++; p.depth > maxDepth {
		return dst, false
	}
	p.i++ // [
	dst = append(dst, '[')
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		p.depth--
		return append(dst, ']'), true
	}
	for {
		var ok bool
		if dst, ok = p.value(dst); !ok {
			return dst, false
		}
		p.skipSpace()
		if p.i >= len(p.src) {
			return dst, false
		}
		switch p.src[p.i] {
		case ',':
			p.i++
			dst = append(dst, ',')
		case ']':
			p.i++
			p.depth--
			return append(dst, ']'), true
		default:
			return dst, false
		}
	}
}

func (p *canonParser) object(dst []byte) ([]byte, bool) {
	if p.depth++; p.depth > maxDepth {
		return dst, false
	}
	p.i++ // {
	start := len(dst)
	dst = append(dst, '{')
	keyBase, memBase := len(p.keys), len(p.members)
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		p.depth--
		return append(dst, '}'), true
	}
	for {
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != '"' || !p.str() {
			return dst, false
		}
		m := member{keyStart: len(p.keys), start: len(dst)}
		p.keys = append(p.keys, p.tmp...)
		m.keyEnd = len(p.keys)
		dst = appendQuoted(dst, p.tmp)
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return dst, false
		}
		p.i++
		dst = append(dst, ':')
		var ok bool
		if dst, ok = p.value(dst); !ok {
			return dst, false
		}
		m.end = len(dst)
		p.members = append(p.members, m)
		p.skipSpace()
		if p.i >= len(p.src) {
			return dst, false
		}
		if p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.src[p.i] != '}' {
			return dst, false
		}
		p.i++
		break
	}
	ms := p.members[memBase:]
	keys := p.keys
	slices.SortStableFunc(ms, func(a, b member) int {
		return bytes.Compare(keys[a.keyStart:a.keyEnd], keys[b.keyStart:b.keyEnd])
	})
	// Rebuild the object from a copy of its members, in key order, keeping the last of
	// equal keys (the stable sort keeps their input order).
	p.scratch = append(p.scratch[:0], dst[start+1:]...)
	dst = dst[:start+1]
	base := start + 1
	first := true
	for j, m := range ms {
		if j+1 < len(ms) && bytes.Equal(keys[m.keyStart:m.keyEnd], keys[ms[j+1].keyStart:ms[j+1].keyEnd]) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, p.scratch[m.start-base:m.end-base]...)
	}
	p.keys = p.keys[:keyBase]
	p.members = p.members[:memBase]
	p.depth--
	return append(dst, '}'), true
}

// str decodes the JSON string at p.i into p.tmp as encoding/json does: invalid UTF-8 and
// unpaired surrogate escapes become U+FFFD; raw control characters are an error.
func (p *canonParser) str() bool {
	s := p.src
	i := p.i + 1
	p.tmp = p.tmp[:0]
	for {
		// Copy the run of plain bytes in one go.
		j := i
		for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] >= 0x20 && s[j] < utf8.RuneSelf {
			j++
		}
		p.tmp = append(p.tmp, s[i:j]...)
		i = j
		if i >= len(s) {
			return false
		}
		c := s[i]
		switch {
		case c == '"':
			p.i = i + 1
			return true
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				p.tmp = utf8.AppendRune(p.tmp, utf8.RuneError)
			} else {
				p.tmp = append(p.tmp, s[i:i+size]...)
			}
			i += size
		default: // backslash
			if i+1 >= len(s) {
				return false
			}
			switch s[i+1] {
			case '"', '\\', '/':
				p.tmp = append(p.tmp, s[i+1])
			case 'b':
				p.tmp = append(p.tmp, '\b')
			case 'f':
				p.tmp = append(p.tmp, '\f')
			case 'n':
				p.tmp = append(p.tmp, '\n')
			case 'r':
				p.tmp = append(p.tmp, '\r')
			case 't':
				p.tmp = append(p.tmp, '\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					return false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if len(s) >= i+6 && s[i] == '\\' && s[i+1] == 'u' {
						if r2, ok := hex4(s[i+2:]); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								i += 6
								p.tmp = utf8.AppendRune(p.tmp, dec)
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				p.tmp = utf8.AppendRune(p.tmp, r)
				continue
			default:
				return false
			}
			i += 2
		}
	}
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s (valid UTF-8) as a JSON string literal, escaped as encoding/json
// does with HTML escaping off.
func appendQuoted(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == '\u2028' || r == '\u2029' || (r == utf8.RuneError && size == 1) {
			dst = append(dst, s[start:i]...)
			if r == utf8.RuneError {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
