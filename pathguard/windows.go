package pathguard

import "strings"

// windowsFlavor is Node's path.win32 with an injected working directory and per-drive
// working directories.
type windowsFlavor struct {
	cwd      string
	driveCwd func(drive string) (string, bool)
}

var _ Flavor = windowsFlavor{}

// Windows returns Node's path.win32 rules. cwd is the process's working directory;
// driveCwd, which may be nil, reports the current directory of a drive such as "C:" (what
// Windows keeps in the hidden "=C:" variable). [Flavor.Resolve] of a drive-relative path
// ("C:src") uses driveCwd, else cwd when it is on that drive, else the drive's root — what a
// Windows process with no per-drive directory does. An empty cwd is treated like a cwd on
// another drive.
//
// Both '\' and '/' separate; results use '\'. Out of scope: reserved
// device names with a colon ("COM1:") and the ".\" prefix newer Node versions add to
// colon-bearing relative results.
func Windows(cwd string, driveCwd func(drive string) (string, bool)) Flavor {
	return windowsFlavor{cwd: cwd, driveCwd: driveCwd}
}

func (windowsFlavor) Name() string      { return "windows" }
func (windowsFlavor) Sep() byte         { return '\\' }
func (windowsFlavor) isSep(c byte) bool { return c == '\\' || c == '/' }

func isWinSep(c byte) bool { return c == '\\' || c == '/' }

func isDriveLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// IsAbs implements [Flavor.IsAbs]: a leading separator, or "X:" and a separator.
func (windowsFlavor) IsAbs(p string) bool {
	if p == "" {
		return false
	}
	return isWinSep(p[0]) || len(p) > 2 && isDriveLetter(p[0]) && p[1] == ':' && isWinSep(p[2])
}

// winRoot parses the root of p: device is "C:", "\\server\share", "\\." or "\\?"
// (always written with backslashes) or ""; rootEnd is where the tail starts; abs reports
// whether the root is absolute.
func winRoot(p string) (device string, rootEnd int, abs bool) {
	n := len(p)
	if n == 0 {
		return "", 0, false
	}
	if n == 1 {
		if isWinSep(p[0]) {
			return "", 1, true
		}
		return "", 0, false
	}
	if isWinSep(p[0]) {
		if !isWinSep(p[1]) {
			return "", 1, true
		}
		// Two leading separators: maybe \\server\share or \\.\ or \\?\.
		j := 2
		last := j
		for j < n && !isWinSep(p[j]) {
			j++
		}
		if j < n && j != last {
			server := p[last:j]
			last = j
			for j < n && isWinSep(p[j]) {
				j++
			}
			if j < n && j != last {
				last = j
				for j < n && !isWinSep(p[j]) {
					j++
				}
				if server == "." || server == "?" {
					return `\\` + server, 4, true
				}
				return `\\` + server + `\` + p[last:j], j, true
			}
		}
		return "", 0, true
	}
	if isDriveLetter(p[0]) && p[1] == ':' {
		if n > 2 && isWinSep(p[2]) {
			return p[:2], 3, true
		}
		return p[:2], 2, false
	}
	return "", 0, false
}

func (windowsFlavor) splitVolume(p string) (vol, rest string, abs bool) {
	device, rootEnd, abs := winRoot(p)
	if abs {
		return device + `\`, p[rootEnd:], true
	}
	return device, p[rootEnd:], false
}

// Normalize implements [Flavor.Normalize].
func (windowsFlavor) Normalize(p string) string {
	n := len(p)
	if n == 0 {
		return "."
	}
	if n == 1 {
		if isWinSep(p[0]) {
			return `\`
		}
		return p
	}
	device, rootEnd, abs := winRoot(p)
	tail := ""
	if rootEnd < n {
		tail = normalizeTail(p[rootEnd:], !abs, '\\', isWinSep)
	}
	if tail == "" && !abs {
		tail = "."
	}
	if tail != "" && isWinSep(p[n-1]) {
		tail += `\`
	}
	if abs {
		return device + `\` + tail
	}
	return device + tail
}

// Join implements [Flavor.Join].
func (f windowsFlavor) Join(elem ...string) string {
	var b strings.Builder
	first := ""
	for _, e := range elem {
		if e == "" {
			continue
		}
		if b.Len() == 0 {
			first = e
		} else {
			b.WriteByte('\\')
		}
		b.WriteString(e)
	}
	if b.Len() == 0 {
		return "."
	}
	joined := b.String()
	// Do not let the joined string start with two separators unless the first element
	// was meant as a UNC path (exactly two separators and then a name): normalize would
	// take it for one.
	intendedUNC := len(first) > 2 && isWinSep(first[0]) && isWinSep(first[1]) && !isWinSep(first[2])
	if !intendedUNC {
		k := 0
		for k < len(joined) && isWinSep(joined[k]) {
			k++
		}
		if k >= 2 {
			joined = `\` + joined[k:]
		}
	}
	return f.Normalize(joined)
}

// Resolve implements [Flavor.Resolve].
func (f windowsFlavor) Resolve(elem ...string) string {
	var (
		resolvedDevice string
		tails          []string // collected right to left
		resolvedAbs    bool
	)
	for i := len(elem) - 1; i >= -1; i-- {
		var p string
		switch {
		case i >= 0:
			p = elem[i]
			if p == "" {
				continue
			}
		case resolvedDevice == "":
			p = f.cwd
		default:
			p = ""
			if f.driveCwd != nil {
				if d, ok := f.driveCwd(resolvedDevice); ok {
					p = d
				}
			}
			if p == "" {
				p = f.cwd
			}
			// A directory on another drive (or none at all) means the drive's root.
			if p == "" || len(p) > 2 && !strings.EqualFold(p[:2], resolvedDevice) && p[2] == '\\' {
				p = resolvedDevice + `\`
			}
		}
		device, rootEnd, abs := winRoot(p)
		if device != "" {
			if resolvedDevice != "" {
				if !strings.EqualFold(device, resolvedDevice) {
					continue // another device: not applicable
				}
			} else {
				resolvedDevice = device
			}
		}
		if resolvedAbs {
			if resolvedDevice != "" {
				break
			}
			continue
		}
		tails = append(tails, p[rootEnd:])
		resolvedAbs = abs
		if abs && resolvedDevice != "" {
			break
		}
	}
	var joined string
	if len(tails) == 1 {
		joined = tails[0]
	} else {
		var b strings.Builder
		for i := len(tails) - 1; i >= 0; i-- {
			b.WriteString(tails[i])
			b.WriteByte('\\')
		}
		joined = b.String()
	}
	tail := normalizeTail(joined, !resolvedAbs, '\\', isWinSep)
	if resolvedAbs {
		return resolvedDevice + `\` + tail
	}
	if s := resolvedDevice + tail; s != "" {
		return s
	}
	return "."
}

// Within implements [Flavor.Within]; Windows compares names after simple upper-casing.
func (f windowsFlavor) Within(base, p string) bool {
	if !f.IsAbs(base) || !f.IsAbs(p) {
		return false
	}
	return withinNormalized(f, f.Normalize(base), f.Normalize(p), true)
}

// Rel implements [Flavor.Rel]; Windows compares names after simple upper-casing.
func (f windowsFlavor) Rel(base, p string) (string, bool) {
	if !f.IsAbs(base) || !f.IsAbs(p) {
		return "", false
	}
	return relNormalized(f, f.Normalize(base), f.Normalize(p), true)
}

// dosPath rewrites a path in the Win32 device namespaces that names a drive or a UNC share
// into its usual form: `\\?\C:\x` and `\\.\C:\x` become `C:\x`, `\\?\UNC\srv\share\x`
// becomes `\\srv\share\x`. verbatim reports a `\\?\` prefix (backslashes only; `//?/` is
// normalised like `\\.\`), under which Windows hands the
// rest to the file system as it is: "." and ".." are names there, and trailing dots and
// spaces are kept. Any other path (a volume GUID path, a named pipe, `\\?\C:` without a
// separator, which is the volume device itself) is returned unchanged.
func dosPath(p string) (dos string, verbatim bool) {
	if len(p) < 4 || !isWinSep(p[0]) || !isWinSep(p[1]) || p[2] != '?' && p[2] != '.' || !isWinSep(p[3]) {
		return p, false
	}
	rest := p[4:]
	switch {
	case len(rest) >= 3 && isDriveLetter(rest[0]) && rest[1] == ':' && isWinSep(rest[2]):
		return rest, p[:4] == `\\?\`
	case len(rest) > 4 && strings.EqualFold(rest[:3], "UNC") && isWinSep(rest[3]):
		return `\\` + rest[4:], p[:4] == `\\?\`
	}
	return p, false
}
