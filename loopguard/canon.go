package loopguard

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is the nesting limit of canonical JSON, the same as encoding/json's: deeper
// input is treated as undecodable (and fingerprinted by its raw bytes).
const maxDepth = 10000

// maxVerbatimDigits is the longest integer literal copied as it is: up to six digits an
// integer is exact in a float64 and strconv.FormatFloat(f, 'g', -1, 64) prints it in
// plain decimal (from 1000000 on, it switches to the exponent form 1e+06).
const maxVerbatimDigits = 6

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

// member is one object member while its object is canonicalised: its decoded key (a
// slice of the source when the key has no escapes, else of parser.keys) and the
// serialised "key":value at dst[start:end].
type member struct {
	key        []byte
	start, end int
}

type canonParser struct {
	src     []byte
	i       int
	depth   int
	keys    []byte   // decoded keys of the open objects
	members []member // members of the open objects
	tmp     []byte   // one decoded string
	scratch []byte   // copy of an object's members while they are reordered

	// slow turns off the verbatim copies of strings and numbers that are already in
	// canonical form, so that every token is decoded and re-serialised. Only tests set
	// it, to check that both ways give the same bytes.
	slow bool
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
		end := p.plainString()
		if end == 0 {
			end, _, _ = p.verbatimString()
		}
		if end > 0 {
			dst = append(dst, p.src[p.i:end]...)
			p.i = end
			return dst, true
		}
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
	intStart := i
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
	intEnd := i
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
	if !p.slow && i == intEnd && i-intStart <= maxVerbatimDigits && (s[intStart] != '0' || start == intStart) {
		// A plain integer of at most maxVerbatimDigits digits, other than -0, is its
		// own canonical form: copy it instead of parsing and printing it.
		return append(dst, s[start:i]...), true
	}
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

// maxInsertion is the number of members of an object kept in key order as they are
// parsed (an insertion sort); the members of larger objects are sorted once at the end.
const maxInsertion = 16

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
	// The members are kept in key order, ties in input order: the first maxInsertion
	// by insertion as they come, the rest appended in input order and sorted at the
	// end if needed. moved: the order is not the input order; dup: two keys are equal.
	moved, dup := false, false
	for {
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return dst, false
		}
		m := member{start: len(dst)}
		end := p.plainString()
		if end == 0 {
			if e, escaped, ok := p.verbatimString(); ok && !escaped {
				end = e // non-ASCII but no escapes: still its own decoded form
			}
		}
		if end > 0 {
			// The key needs no decoding: compare it in place and copy it as it is.
			m.key = p.src[p.i+1 : end-1]
			dst = append(dst, p.src[p.i:end]...)
			p.i = end
		} else {
			if !p.str() {
				return dst, false
			}
			k := len(p.keys)
			p.keys = append(p.keys, p.tmp...)
			m.key = p.keys[k:len(p.keys):len(p.keys)]
			dst = appendQuoted(dst, p.tmp)
		}
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
		if ms := p.members[memBase:]; len(ms) > 1 {
			j := len(ms) - 1
			for j > 0 {
				c := bytes.Compare(ms[j-1].key, m.key)
				if c <= 0 {
					dup = dup || c == 0
					break
				}
				if len(ms) > maxInsertion {
					moved = true // sorted at the end
					break
				}
				ms[j] = ms[j-1]
				j--
			}
			if j != len(ms)-1 && len(ms) <= maxInsertion {
				ms[j] = m
				moved = true
			}
		}
		p.skipSpace()
		if p.i >= len(p.src) {
			return dst, false
		}
		if p.src[p.i] == ',' {
			p.i++
			dst = append(dst, ',')
			continue
		}
		if p.src[p.i] != '}' {
			return dst, false
		}
		p.i++
		break
	}
	if ms := p.members[memBase:]; moved || dup {
		if len(ms) > maxInsertion {
			slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
			dup = true // not tracked beyond maxInsertion: look for equal keys
		}
		dst = p.rebuild(dst, start, ms, dup)
	}
	clear(p.members[memBase:]) // drop the references to src and keys
	p.keys = p.keys[:keyBase]
	p.members = p.members[:memBase]
	p.depth--
	return append(dst, '}'), true
}

// rebuild rewrites the object that opens at dst[start] with its members in the order of
// ms, keeping only the last of equal keys when dup is set (ties are in input order), and
// returns dst without the closing brace.
func (p *canonParser) rebuild(dst []byte, start int, ms []member, dup bool) []byte {
	base := start + 1
	p.scratch = append(p.scratch[:0], dst[base:]...)
	dst = dst[:base]
	first := true
	for j, m := range ms {
		if dup && j+1 < len(ms) && bytes.Equal(m.key, ms[j+1].key) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, p.scratch[m.start-base:m.end-base]...)
	}
	return dst
}

// str decodes the JSON string at p.i into p.tmp as encoding/json does: invalid UTF-8 and
// unpaired surrogate escapes become U+FFFD; raw control characters are an error.
func (p *canonParser) str() bool {
	s := p.src
	i := p.i + 1
	p.tmp = p.tmp[:0]
	for {
		// Copy the run of plain bytes in one go.
		j := plainRun(s, i)
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

// plainRun returns the index of the first byte at or after i in s that is not plain
// string content, or len(s): plain bytes are printable ASCII other than '"' and '\\',
// the bytes a JSON string literal holds as they are. It tests eight bytes at a time.
func plainRun(s []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		// Each test sets the high bit of a byte that is below 0x20, '"' or '\\' (zero
		// after the XOR); x itself has it for a byte of 0x80 or more. A borrow can set
		// bits above the first such byte but never below it, so the lowest bit set
		// marks the first byte that is not plain.
		ctl := (x - ones*0x20) &^ x
		quote := x ^ (ones * '"')
		quote = (quote - ones) &^ quote
		bs := x ^ (ones * '\\')
		bs = (bs - ones) &^ bs
		if m := (ctl | quote | bs | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// plainString returns the index after the closing quote of the string literal at p.i
// if the literal is plain bytes only (see plainRun), or 0. A plain literal is canonical
// and has no escapes; most keys and values are plain, and this is their short way.
func (p *canonParser) plainString() int {
	if p.slow {
		return 0
	}
	end := plainRun(p.src, p.i+1)
	if end < len(p.src) && p.src[end] == '"' {
		return end + 1
	}
	return 0
}

// verbatimString reports whether the JSON string literal at p.i is already in canonical
// form, so that its bytes can be copied as they are: valid UTF-8 without raw control
// characters, U+2028 or U+2029, and every escape the one appendQuoted writes for its
// character (\" \\ \b \f \n \r \t, \u00xx in lower-case hex for the other control
// characters, \u2028 and \u2029). It returns the index after the closing quote and whether
// the literal has escapes (then its decoded bytes differ from its source). ok is false for
// anything else, including invalid strings: str decodes those.
func (p *canonParser) verbatimString() (end int, escaped, ok bool) {
	if p.slow {
		return 0, false, false
	}
	s := p.src
	i := p.i + 1
	for {
		i = plainRun(s, i)
		if i >= len(s) {
			return 0, false, false
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			if i+1 >= len(s) {
				return 0, false, false
			}
			switch s[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if !canonicalEscape(s[i+2:]) {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
			escaped = true
		default:
			r, size := utf8.DecodeRune(s[i:])
			if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
				return 0, false, false
			}
			i += size
		}
	}
}

// canonicalEscape reports whether the four hex digits that start s, after a \u, are the
// escape appendQuoted writes: a control character without a short escape, or U+2028 or
// U+2029, in lower-case hex.
func canonicalEscape(s []byte) bool {
	if len(s) < 4 {
		return false
	}
	switch string(s[:4]) {
	case "2028", "2029":
		return true
	}
	if s[0] != '0' || s[1] != '0' || (s[2] != '0' && s[2] != '1') {
		return false
	}
	var low byte
	switch c := s[3]; {
	case '0' <= c && c <= '9':
		low = c - '0'
	case 'a' <= c && c <= 'f':
		low = c - 'a' + 10
	default:
		return false
	}
	switch (s[2]-'0')<<4 | low {
	case '\b', '\f', '\n', '\r', '\t':
		return false // these have short escapes
	}
	return true
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
