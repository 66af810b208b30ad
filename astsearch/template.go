package astsearch

import (
	"bytes"
	"strings"
)

// maxLookBehind bounds the search for a line's indentation, as in ast-grep.
const maxLookBehind = 512

// indentAt returns the indentation (spaces only) of the line holding offset len(b): the
// number of spaces at the start of that line, when only spaces and other text precede
// offset on it. It looks back at most 512 bytes, like ast-grep.
func indentAt(b []byte) int {
	look := 0
	if len(b) > maxLookBehind {
		look = len(b) - maxLookBehind
	}
	n := 0
	for i := len(b) - 1; i >= look; i-- {
		switch b[i] {
		case '\n':
			return n
		case ' ':
			n++
		default:
			n = 0
		}
	}
	if look == 0 {
		return n
	}
	return 0
}

// reindent changes the indentation of every line after the first of a multi-line text from
// have to want spaces: lines lose have-want leading spaces (when they have them) or gain
// want-have.
func reindent(text []byte, have, want int) []byte {
	if !bytes.Contains(text, []byte{'\n'}) || have == want {
		return text
	}
	lines := bytes.Split(text, []byte{'\n'})
	if have > want {
		pre := bytes.Repeat([]byte{' '}, have-want)
		for i, l := range lines {
			lines[i] = bytes.TrimPrefix(l, pre)
		}
		return bytes.Join(lines, []byte{'\n'})
	}
	pad := bytes.Repeat([]byte{' '}, want-have)
	var out bytes.Buffer
	for i, l := range lines {
		if i > 0 {
			out.WriteByte('\n')
			out.Write(pad)
		}
		out.Write(l)
	}
	return out.Bytes()
}

// span is a captured byte range of the source.
type span struct{ start, end int }

// bindings are the captures a template can use.
type bindings struct {
	single map[string]span
	multi  map[string]span // first to last captured node; absent when empty
}

func bindingsOf(m *Match) bindings {
	b := bindings{single: map[string]span{}, multi: map[string]span{}}
	if m.MetaVariables == nil {
		return b
	}
	for k, c := range m.MetaVariables.Single {
		b.single[k] = span{c.Range.ByteOffset.Start, c.Range.ByteOffset.End}
	}
	for k, cs := range m.MetaVariables.Multi {
		if len(cs) > 0 {
			b.multi[k] = span{cs[0].Range.ByteOffset.Start, cs[len(cs)-1].Range.ByteOffset.End}
		}
	}
	return b
}

// ExpandTemplate expands a rewrite template for a match of src, as ast-grep does: $NAME
// and $$NAME insert the captured node's text, $$$NAME the source from the first to the
// last captured node; an unbound name (including $_ and an empty $$$NAME) inserts nothing;
// `$lower`, `$1` and a lone `$` stay literal. A multi-line capture keeps its indentation
// relative to the line it starts on and takes the column of the variable in the template;
// every line after the first of the result is indented like the line where the match
// starts. A line break from the template is written as that line's own line ending, so a
// CRLF line stays CRLF.
func ExpandTemplate(tmpl string, m Match, src []byte) string {
	return string(expand(tmpl, bindingsOf(&m), src, m.Range.ByteOffset.Start))
}

func expand(tmpl string, b bindings, src []byte, start int) []byte {
	crlf := false
	if e := lineEnd(src, start); e > 0 && e < len(src) && src[e-1] == '\r' {
		crlf = true
	}
	var out []byte
	frag := func(s string) {
		if crlf {
			s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
		}
		out = append(out, s...)
	}
	i, last := 0, 0
	for i < len(tmpl) {
		if tmpl[i] != '$' {
			i++
			continue
		}
		j, dollars := i, 0
		for j < len(tmpl) && tmpl[j] == '$' && dollars < 3 {
			j++
			dollars++
		}
		k := j
		for k < len(tmpl) && (tmpl[k] >= 'A' && tmpl[k] <= 'Z' || tmpl[k] == '_' || k > j && tmpl[k] >= '0' && tmpl[k] <= '9') {
			k++
		}
		if k == j {
			i++
			continue
		}
		frag(tmpl[last:i])
		name := tmpl[j:k]
		var sp span
		var ok bool
		if dollars == 3 {
			sp, ok = b.multi[name]
		} else {
			sp, ok = b.single[name]
		}
		if ok {
			text := src[sp.start:sp.end]
			if bytes.Contains(text, []byte{'\n'}) {
				text = reindent(text, indentAt(src[:sp.start]), indentAt([]byte(tmpl[:i])))
			}
			out = append(out, text...)
		}
		i, last = k, k
	}
	frag(tmpl[last:])
	return reindent(out, 0, indentAt(src[:start]))
}
