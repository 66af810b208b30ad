package webfetch

import (
	"io/fs"
	"net/http"
	"os"
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

// TestAttackSavedFileStaysInside saves a binary whose server-chosen name collides with an
// existing file, a symlink leading out of the directory, or a sub-directory, or tries to
// climb out through Content-Disposition: the file lands inside the directory under a fresh
// name and nothing existing is touched.
func TestAttackSavedFileStaysInside(t *testing.T) {
	cases := []struct {
		name        string
		disposition string
		prepare     func(t *testing.T, dir, outside string)
	}{
		{name: "existing_file", disposition: `attachment; filename="report.pdf"`, prepare: func(t *testing.T, dir, _ string) {
			writeFile(t, filepath.Join(dir, "report.pdf"), "mine")
		}},
		{name: "symlink_out", disposition: `attachment; filename="report.pdf"`, prepare: func(t *testing.T, dir, outside string) {
			if err := os.Symlink(filepath.Join(outside, "victim.pdf"), filepath.Join(dir, "report.pdf")); err != nil {
				t.Skip("symlinks unavailable:", err)
			}
		}},
		{name: "directory_named_like_file", disposition: `attachment; filename="report.pdf"`, prepare: func(t *testing.T, dir, _ string) {
			if err := os.Mkdir(filepath.Join(dir, "report.pdf"), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "encoded_traversal", disposition: `attachment; filename*=UTF-8''..%2F..%2Fvictim.pdf`},
		{name: "quoted_traversal", disposition: `attachment; filename="../../victim.pdf"`},
		{name: "absolute", disposition: `attachment; filename="/tmp/victim.pdf"`},
		{name: "device", disposition: `attachment; filename="NUL .pdf"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dir, outside := filepath.Join(parent, "bin"), filepath.Join(parent, "outside")
			for _, d := range []string{dir, outside} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if tc.prepare != nil {
				tc.prepare(t, dir, outside)
			}
			before := snapshot(t, parent)
			s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/pdf")
				w.Header().Set("Content-Disposition", tc.disposition)
				_, _ = w.Write([]byte("%PDF-1.7\nattack body\x00\x01"))
			})
			f, _, _ := testFetcher(t, WithBinaryDir(dir))
			r := fetch(t, f, Request{URL: s.URL + "/file", SaveBinary: true, LLMS: LLMSNever})
			if r.Binary == nil || !r.Binary.Saved {
				t.Fatalf("not saved: %+v", r.Binary)
			}
			p := r.Binary.SavedPath
			if filepath.Dir(p) != dir || windowsReserved(filepath.Base(p)) {
				t.Errorf("saved at %q, want a plain name directly inside %q", p, dir)
			}
			if _, isOld := before[p]; isOld {
				t.Errorf("saved over an existing entry %q", p)
			}
			after := snapshot(t, parent)
			for name, content := range before {
				if after[name] != content {
					t.Errorf("%s changed: %q -> %q", name, content, after[name])
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok && name != p {
					t.Errorf("unexpected new entry %s", name)
				}
			}
		})
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every path under root (symlinks not followed) to its content or kind.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			dest, _ := os.Readlink(p)
			m[p] = "symlink:" + dest
		case d.IsDir():
			m[p] = "dir"
		case !d.Type().IsRegular():
			m[p] = "special:" + d.Type().String() // never opened: a FIFO would block
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
