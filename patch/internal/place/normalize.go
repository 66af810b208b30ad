package place

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isSpace is the package's notion of whitespace: unicode.IsSpace plus U+FEFF.
func isSpace(r rune) bool { return r == '\ufeff' || unicode.IsSpace(r) }

func trimEnd(s string) string  { return strings.TrimRightFunc(s, isSpace) }
func trimBoth(s string) string { return strings.TrimFunc(s, isSpace) }

// mapRune is the typographic mapping table of the ladder (the union of Codex's and Slim's). It returns
// "" for runes that are not mapped.
func mapRune(r rune) string {
	switch r {
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return "-"
	case '\u2018', '\u2019', '\u201A', '\u201B':
		return "'"
	case '\u201C', '\u201D', '\u201E', '\u201F':
		return `"`
	case '\u2026':
		return "..."
	case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008',
		'\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return " "
	}
	return ""
}

// mapUnicode applies the mapping table; invalid UTF-8 bytes are copied unchanged, so they
// compare byte-wise. It allocates only when something is mapped.
func mapUnicode(s string) string {
	first := -1
	for j := 0; j < len(s); {
		if s[j] < utf8.RuneSelf {
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if size > 1 && mapRune(r) != "" {
			first = j
			break
		}
		j += size
	}
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteString(s[:first])
	for j := first; j < len(s); {
		if s[j] < utf8.RuneSelf {
			b.WriteByte(s[j])
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if m := mapRune(r); size > 1 && m != "" {
			b.WriteString(m)
		} else {
			b.WriteString(s[j : j+size])
		}
		j += size
	}
	return b.String()
}

// Normalize returns s as compared at level l.
func Normalize(l Level, s string) string {
	switch l {
	case LevelTrimEnd:
		return trimEnd(s)
	case LevelUnicode:
		return mapUnicode(s)
	case LevelUnicodeTrimEnd:
		return trimEnd(mapUnicode(s))
	case LevelTrim:
		return trimBoth(s)
	case LevelUnicodeTrim:
		return trimBoth(mapUnicode(s))
	}
	return s
}
