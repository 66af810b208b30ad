package webfetch

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// windowsReserved reports names Windows maps to a device whatever their directory: the base
// (up to the first '.' or ':', trailing spaces ignored) is CON, PRN, AUX, NUL, CONIN$,
// CONOUT$, or COM/LPT followed by a digit or a superscript 1–3, in any case.
func windowsReserved(name string) bool {
	base := name
	if i := strings.IndexAny(base, ".:"); i >= 0 {
		base = base[:i]
	}
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if rest, ok := strings.CutPrefix(base, "COM"); ok {
		base = rest
	} else if rest, ok := strings.CutPrefix(base, "LPT"); ok {
		base = rest
	} else {
		return false
	}
	switch base {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// TestAttackSanitizeFilename holds file names a server may send (Content-Disposition or the
// URL path) to escape the binary directory, hit a device, hide as a dot file, or disguise
// the extension with bidirectional controls.
func TestAttackSanitizeFilename(t *testing.T) {
	inputs := []string{
		"../../etc/passwd", `..\..\windows\win.ini`, "/etc/passwd", "..", ".", "...",
		".bashrc", "a/../../b.pdf", "C:evil.pdf", `\\server\share\x.pdf`, "x\x00.pdf",
		"con", "CON.txt", "nul .txt", "NUL  .tar.gz", "aux:stream", "com1", "COM¹.pdf",
		"lpt³", "Lpt0.bin", "CONIN$", "conout$.log", "prn . pdf",
		"invoice\u202Efdp.exe", "a\u200Fb.pdf", "\u2066x\u2069.pdf", "\ufeffbom.pdf",
		strings.Repeat("a", 400) + ".pdf", strings.Repeat("é", 300), "\xff\xfe.pdf",
	}
	for _, in := range inputs {
		got := sanitizeFilename(in)
		switch {
		case got == "" || got == "." || got == "..":
			t.Errorf("sanitizeFilename(%q) = %q: empty or a directory name", in, got)
		case strings.ContainsAny(got, `/\:`) || !filepath.IsLocal(got):
			t.Errorf("sanitizeFilename(%q) = %q: not a plain local name", in, got)
		case strings.HasPrefix(got, "."):
			t.Errorf("sanitizeFilename(%q) = %q: hidden file", in, got)
		case windowsReserved(got):
			t.Errorf("sanitizeFilename(%q) = %q: a Windows device name", in, got)
		case !utf8.ValidString(got) || utf8.RuneCountInString(got) > maxFilenameLen:
			t.Errorf("sanitizeFilename(%q) = %q: invalid UTF-8 or too long", in, got)
		case strings.IndexFunc(got, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0:
			t.Errorf("sanitizeFilename(%q) = %q: control or format character", in, got)
		}
	}
}
