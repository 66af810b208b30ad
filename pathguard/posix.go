package pathguard

import "strings"

// posixFlavor is Node's path.posix with an injected working directory.
type posixFlavor struct{ cwd string }

var _ Flavor = posixFlavor{}

// POSIX returns Node's path.posix rules. cwd is the directory [Flavor.Resolve] falls back
// to when no element is absolute (Node uses process.cwd()). A relative cwd is itself taken
// against "/", and an empty one means "/", so Resolve always returns an absolute path.
//
// Only '/' separates; a backslash or a colon is an ordinary character.
func POSIX(cwd string) Flavor {
	return posixFlavor{cwd: cwd}
}

func (posixFlavor) Name() string        { return "posix" }
func (posixFlavor) Sep() byte           { return '/' }
func (posixFlavor) isSep(c byte) bool   { return c == '/' }
func (posixFlavor) IsAbs(p string) bool { return len(p) > 0 && p[0] == '/' }

func (posixFlavor) splitVolume(p string) (vol, rest string, abs bool) {
	if len(p) > 0 && p[0] == '/' {
		return "/", p[1:], true
	}
	return "", p, false
}

func isSlash(c byte) bool { return c == '/' }

// Normalize implements [Flavor.Normalize].
func (posixFlavor) Normalize(p string) string {
	if p == "" {
		return "."
	}
	abs := p[0] == '/'
	trailing := p[len(p)-1] == '/'
	s := normalizeTail(p, !abs, '/', isSlash)
	switch {
	case s == "" && abs:
		return "/"
	case s == "" && trailing:
		return "./"
	case s == "":
		return "."
	}
	if trailing {
		s += "/"
	}
	if abs {
		return "/" + s
	}
	return s
}

// Join implements [Flavor.Join].
func (f posixFlavor) Join(elem ...string) string {
	var b strings.Builder
	for _, e := range elem {
		if e == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(e)
	}
	if b.Len() == 0 {
		return "."
	}
	return f.Normalize(b.String())
}

// Resolve implements [Flavor.Resolve].
func (f posixFlavor) Resolve(elem ...string) string {
	var parts []string
	abs := false
	for i := len(elem) - 1; i >= 0 && !abs; i-- {
		if elem[i] == "" {
			continue
		}
		parts = append(parts, elem[i])
		abs = elem[i][0] == '/'
	}
	if !abs {
		// The working directory; a relative one is taken against "/".
		parts = append(parts, "/"+f.cwd)
	}
	var joined string
	if len(parts) == 1 {
		joined = parts[0]
	} else {
		n := len(parts)
		for _, p := range parts {
			n += len(p)
		}
		var b strings.Builder
		b.Grow(n)
		for i := len(parts) - 1; i >= 0; i-- {
			b.WriteString(parts[i])
			if i > 0 {
				b.WriteByte('/')
			}
		}
		joined = b.String()
	}
	s := normalizeTail(joined, false, '/', isSlash)
	return "/" + s
}

// Within implements [Flavor.Within]; POSIX compares bytes.
func (f posixFlavor) Within(base, p string) bool {
	if !f.IsAbs(base) || !f.IsAbs(p) {
		return false
	}
	return withinNormalized(f, f.Normalize(base), f.Normalize(p), false)
}

// Rel implements [Flavor.Rel]; POSIX compares bytes.
func (f posixFlavor) Rel(base, p string) (string, bool) {
	if !f.IsAbs(base) || !f.IsAbs(p) {
		return "", false
	}
	return relNormalized(f, f.Normalize(base), f.Normalize(p), false)
}
