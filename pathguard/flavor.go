package pathguard

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Flavor is one set of path rules: Node's path.posix or path.win32, reimplemented in pure
// Go so that both can be exercised on any operating system. A Flavor never touches the file
// system or the environment; the current directories it needs were injected when it was
// built ([POSIX], [Windows]).
//
// The interface is sealed: its only implementations are the ones [POSIX], [Windows] and
// [Native] return. Every method is pure, deterministic and safe for concurrent use.
type Flavor interface {
	// Name is "posix" or "windows".
	Name() string
	// Sep is the separator the flavour writes: '/' or '\\'.
	Sep() byte
	// IsAbs reports whether p is absolute in Node's sense (path.isAbsolute).
	IsAbs(p string) bool
	// Normalize folds "." and ".." and doubled separators like Node's path.normalize,
	// keeping a trailing separator. Normalize("") is ".".
	Normalize(p string) string
	// Join joins the non-empty elements with the separator and normalises the result
	// like Node's path.join, keeping a trailing separator.
	Join(elem ...string) string
	// Resolve works from right to left until an absolute path is formed, falling back to
	// the injected current directory, like Node's path.resolve; the result is normalised
	// and has no trailing separator except at a root.
	Resolve(elem ...string) string
	// Within reports whether p is base or lies below it, comparing whole segments (so
	// "/w/rootx" is not within "/w/root"). Both paths are normalised first and must be
	// absolute; otherwise Within reports false. POSIX compares bytes; Windows compares
	// names after simple upper-casing (so `C:\Work` is within `c:\work`, while the
	// Kelvin sign U+212A is not "k").
	Within(base, p string) bool
	// Rel returns p relative to base with the flavour's separator ("." when equal, ".."
	// segments when p is not below base), like Node's path.relative on two absolute
	// paths, comparing names as Within does. ok is false when either path is relative or
	// the two have different roots (another drive or share), where no relative path
	// exists.
	Rel(base, p string) (rel string, ok bool)

	// splitVolume returns the root prefix of p ("/" for an absolute POSIX path; `C:\`,
	// `\\server\share\`, `\\?\` or `\` for an absolute Windows path; "C:" for a
	// drive-relative one; "" for a relative path), the rest after it, and whether p is
	// absolute. Containment needs it to walk a path component by component.
	splitVolume(p string) (vol, rest string, abs bool)
	isSep(c byte) bool
}

// Native returns the flavour of the running operating system: [Windows] on windows, with
// the process's working directory and per-drive directories (as reported by
// filepath.Abs("X:")); [POSIX] everywhere else, with the process's working directory.
// It reads the working directory once, when called.
func Native() Flavor {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = ""
	}
	if runtime.GOOS == "windows" {
		return Windows(cwd, nativeDriveCwd)
	}
	return POSIX(cwd)
}

// nativeDriveCwd asks Windows for the current directory of drive ("C:"). It only answers
// when the answer is on that drive.
func nativeDriveCwd(drive string) (string, bool) {
	p, err := filepath.Abs(drive)
	if err != nil || len(p) < 3 || !strings.EqualFold(p[:2], drive) {
		return "", false
	}
	return p, true
}

// normalizeTail folds "." and ".." in a path with its root removed, like Node's internal
// normalizeString: empty and "." segments vanish; ".." removes the previous segment when
// there is one that is not ".."; otherwise it is kept when allowAboveRoot (a relative path)
// and dropped when not (an absolute path). The result has no leading or trailing
// separator.
func normalizeTail(p string, allowAboveRoot bool, sep byte, isSep func(byte) bool) string {
	var buf [16]string
	segs := buf[:0]
	for i := 0; i < len(p); {
		for i < len(p) && isSep(p[i]) {
			i++
		}
		j := i
		for j < len(p) && !isSep(p[j]) {
			j++
		}
		seg := p[i:j]
		i = j
		switch seg {
		case "", ".":
			continue
		case "..":
			if n := len(segs); n > 0 && segs[n-1] != ".." {
				segs = segs[:n-1]
			} else if allowAboveRoot {
				segs = append(segs, "..")
			}
			continue
		}
		segs = append(segs, seg)
	}
	switch len(segs) {
	case 0:
		return ""
	case 1:
		return segs[0]
	}
	n := len(segs) - 1
	for _, s := range segs {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for k, s := range segs {
		if k > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(s)
	}
	return b.String()
}

// nextSegment returns the first non-empty segment of p at or after i and the index after
// it; seg is "" at the end of p.
func nextSegment(p string, i int, isSep func(byte) bool) (seg string, next int) {
	for i < len(p) && isSep(p[i]) {
		i++
	}
	j := i
	for j < len(p) && !isSep(p[j]) {
		j++
	}
	return p[i:j], j
}

func equalSeg(a, b string, fold bool) bool {
	if fold {
		return foldEqual(a, b)
	}
	return a == b
}

// foldEqual compares two names the way NTFS does: rune by rune after a simple upper-case
// mapping, with no Unicode case-folding orbits. A rune is upper-cased only when it is the
// lower-case form of its upper-case letter, so the Kelvin sign (U+212A) stays distinct from
// "k" and the long s (U+017F) from "s". Invalid UTF-8 compares byte for byte.
func foldEqual(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra == utf8.RuneError && na == 1 || rb == utf8.RuneError && nb == 1 {
			if a[0] != b[0] {
				return false
			}
			a, b = a[1:], b[1:]
			continue
		}
		if ra != rb && upperRune(ra) != upperRune(rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b == ""
}

// upperRune is the simple upper-case mapping of r, restricted to runes that are the
// lower-case form of their upper-case letter.
func upperRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - ('a' - 'A')
		}
		return r
	}
	u := unicode.ToUpper(r)
	if u != r && unicode.ToLower(u) != r {
		return r
	}
	return u
}

// withinNormalized is Within for two paths the flavour has already normalised.
func withinNormalized(f Flavor, base, p string, fold bool) bool {
	bv, brest, babs := f.splitVolume(base)
	pv, prest, pabs := f.splitVolume(p)
	if !babs || !pabs || !equalVolume(bv, pv) {
		return false
	}
	i, j := 0, 0
	for {
		var bs, ps string
		bs, i = nextSegment(brest, i, f.isSep)
		if bs == "" {
			return true
		}
		ps, j = nextSegment(prest, j, f.isSep)
		if ps == "" || !equalSeg(bs, ps, fold) {
			return false
		}
	}
}

// equalVolume compares two volume prefixes. Volumes always compare without regard to case
// (simple upper-casing, see foldEqual): only Windows has letters in them, and Windows drive
// letters and share names are case-insensitive.
func equalVolume(a, b string) bool {
	if len(a) != len(b) {
		return foldEqual(strings.ReplaceAll(a, "/", `\`), strings.ReplaceAll(b, "/", `\`))
	}
	return foldEqual(a, b)
}

// relNormalized is Rel for two paths the flavour has already normalised.
func relNormalized(f Flavor, base, p string, fold bool) (string, bool) {
	bv, brest, babs := f.splitVolume(base)
	pv, prest, pabs := f.splitVolume(p)
	if !babs || !pabs || !equalVolume(bv, pv) {
		return "", false
	}
	bsegs := splitSegments(brest, f.isSep)
	psegs := splitSegments(prest, f.isSep)
	common := 0
	for common < len(bsegs) && common < len(psegs) && equalSeg(bsegs[common], psegs[common], fold) {
		common++
	}
	parts := make([]string, 0, len(bsegs)-common+len(psegs)-common)
	for range len(bsegs) - common {
		parts = append(parts, "..")
	}
	parts = append(parts, psegs[common:]...)
	if len(parts) == 0 {
		return ".", true
	}
	return strings.Join(parts, string(f.Sep())), true
}

// splitSegments returns the non-empty segments of p.
func splitSegments(p string, isSep func(byte) bool) []string {
	var segs []string
	for i := 0; ; {
		var s string
		s, i = nextSegment(p, i, isSep)
		if s == "" {
			return segs
		}
		segs = append(segs, s)
	}
}
