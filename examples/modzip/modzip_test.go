package modzip_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// repoRoot is the directory of the root module, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.Contains(data, []byte("module github.com/harnesskit/harnesskit\n")) {
		t.Fatalf("%s is not the root of github.com/harnesskit/harnesskit (go.mod: %v)", root, err)
	}
	return root
}

// repoFiles lists the files a commit of the work tree would hold, slash-separated and
// relative to root: in a Git checkout, what git lists as tracked or as untracked and not
// ignored (so a file added but not yet committed is checked too, and an installed
// node_modules is not); without Git, every file under root but .git and node_modules.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
		cmd.Dir = root
		if out, err := cmd.Output(); err == nil {
			var files []string
			for _, p := range strings.Split(string(out), "\x00") {
				if p == "" {
					continue
				}
				// A file deleted from the work tree but still in the index is not
				// going to be committed.
				if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
					files = append(files, p)
				}
			}
			slices.Sort(files)
			return slices.Compact(files)
		}
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// osFile is a modzip.File over a file of the work tree.
type osFile struct{ rel, abs string }

func (f osFile) Path() string                 { return f.rel }
func (f osFile) Lstat() (fs.FileInfo, error)  { return os.Lstat(f.abs) }
func (f osFile) Open() (io.ReadCloser, error) { return os.Open(f.abs) }

// memFile is a modzip.File with a name only, for the checker's own tests.
type memFile string

func (f memFile) Path() string                 { return string(f) }
func (f memFile) Lstat() (fs.FileInfo, error)  { return memInfo(f), nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }

type memInfo string

func (i memInfo) Name() string     { return path.Base(string(i)) }
func (memInfo) Size() int64        { return 1 }
func (memInfo) Mode() fs.FileMode  { return 0o644 }
func (memInfo) ModTime() time.Time { return time.Time{} }
func (memInfo) IsDir() bool        { return false }
func (memInfo) Sys() any           { return nil }

// TestModulesZip zips every module of the repository (the root, examples and any other
// directory with a go.mod outside testdata) with golang.org/x/mod/zip, the code the Go
// command and the module proxy use, and fails on any file the zip refuses: a name Windows
// reserves, a character it forbids, two names that differ only in case, a file too large.
// A module that cannot be zipped cannot be fetched with "go get" once a version is tagged.
func TestModulesZip(t *testing.T) {
	root := repoRoot(t)
	files := repoFiles(t, root)
	var mods []string
	for _, p := range files {
		if path.Base(p) == "go.mod" && !slices.Contains(strings.Split(p, "/"), "testdata") {
			mods = append(mods, path.Dir(p))
		}
	}
	if !slices.Contains(mods, ".") || !slices.Contains(mods, "examples") {
		t.Fatalf("modules found: %q; want at least the root and examples", mods)
	}
	for _, dir := range mods {
		modPath := "github.com/harnesskit/harnesskit"
		if dir != "." {
			modPath += "/" + dir
		}
		t.Run(modPath, func(t *testing.T) {
			var zf []modzip.File
			for _, p := range files {
				rel := p
				if dir != "." {
					var ok bool
					if rel, ok = strings.CutPrefix(p, dir+"/"); !ok {
						continue
					}
				}
				zf = append(zf, osFile{rel: rel, abs: filepath.Join(root, filepath.FromSlash(p))})
			}
			checked, err := modzip.CheckFiles(zf)
			for _, fe := range checked.Invalid {
				t.Errorf("%s: %s: %v", modPath, path.Join(dir, fe.Path), fe.Err)
			}
			if err != nil && len(checked.Invalid) == 0 {
				t.Errorf("%s: %v", modPath, err)
			}
			if len(checked.Valid) == 0 {
				t.Fatalf("%s: no file would be zipped", modPath)
			}
			var buf bytes.Buffer
			m := module.Version{Path: modPath, Version: "v1.0.0"}
			if err := modzip.Create(&buf, m, zf); err != nil {
				t.Fatalf("zipping %s as the module proxy does: %v", modPath, err)
			}
			t.Logf("%s: %d files, zip of %d bytes (limit %d)", modPath, len(checked.Valid), buf.Len(), modzip.MaxZipFile)
		})
	}
}

// TestRepoNamesPortable checks every file of the repository (inside a module or not: CI
// scripts, docs, fuzz corpora) against the names a Windows or macOS checkout cannot keep:
// the rules of nameProblem, and two paths that fold to the same name in one directory —
// by case (NTFS, APFS and HFS+ by default) or by Unicode normalisation (APFS and HFS+ see
// "é" precomposed and decomposed as one name).
func TestRepoNamesPortable(t *testing.T) {
	root := repoRoot(t)
	files := repoFiles(t, root)
	if len(files) < 100 {
		t.Fatalf("only %d files listed under %s", len(files), root)
	}
	for _, p := range files {
		for _, elem := range strings.Split(p, "/") {
			if err := nameProblem(elem); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	}
	for _, c := range collisions(files) {
		t.Errorf("%s and %s are one name on a case-insensitive or normalising file system", c[0], c[1])
	}
}

// nameProblem reports why a single path element cannot be checked out under its own name
// on Windows: a DOS device name, bare or with any extension and in any case ("nul",
// "Con.txt", "COM1.tar.gz"; COM0, LPT0 and the superscript digits count on current
// Windows), a trailing dot or space (stripped), a character Windows forbids (a control
// character or one of <>:"/\|?*, ':' also starting an alternate data stream), or invalid
// UTF-8.
func nameProblem(elem string) error {
	switch {
	case elem == "":
		return errors.New("empty path element")
	case !utf8.ValidString(elem):
		return errors.New("name is not valid UTF-8")
	case strings.HasSuffix(elem, ".") || strings.HasSuffix(elem, " "):
		return errors.New("name ends with a dot or a space, which Windows strips")
	}
	for _, r := range elem {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`<>:"/\|?*`, r) {
			return errors.New("name contains " + stringQuote(r) + ", which Windows does not allow in a file name")
		}
	}
	stem, _, _ := strings.Cut(elem, ".")
	stem = strings.ToUpper(strings.TrimRight(stem, " "))
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return errors.New("name is the DOS device " + stem + ", which Windows opens instead of a file")
	}
	if len(stem) >= 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) {
		switch stem[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return errors.New("name is the DOS device " + stem + ", which Windows opens instead of a file")
		}
	}
	return nil
}

func stringQuote(r rune) string {
	if r < 0x20 || r == 0x7f {
		return "a control character"
	}
	return "'" + string(r) + "'"
}

var fold = cases.Fold()

// collisions returns the pairs of distinct paths (files or the directories above them)
// whose names are equal once NFC-normalised and case-folded.
func collisions(files []string) [][2]string {
	seen := map[string]string{}
	var out [][2]string
	for _, p := range files {
		elems := strings.Split(p, "/")
		for i := range elems {
			prefix := strings.Join(elems[:i+1], "/")
			key := fold.String(norm.NFC.String(prefix))
			if other, ok := seen[key]; ok {
				if other != prefix {
					out = append(out, [2]string{other, prefix})
				}
				continue
			}
			seen[key] = prefix
		}
	}
	return out
}

// TestNameChecksCatch shows that both checks refuse what they must: x/mod/zip and
// nameProblem on every reserved device name with and without extensions and in mixed
// case, on trailing dots and spaces and on ':'; collisions on names that differ only by
// case or by Unicode normalisation, also in a directory above the file.
func TestNameChecksCatch(t *testing.T) {
	var bad []string
	for _, dev := range []string{"CON", "PRN", "AUX", "NUL"} {
		bad = append(bad, dev, strings.ToLower(dev), dev[:1]+strings.ToLower(dev[1:])+".txt", strings.ToLower(dev)+".tar.gz")
	}
	for d := '1'; d <= '9'; d++ {
		bad = append(bad, "COM"+string(d), "lpt"+string(d)+".log", "Com"+string(d)+".x.y", "LPT"+string(d))
	}
	t.Run("device names", func(t *testing.T) {
		for _, name := range bad {
			for _, p := range []string{name, "testdata/fuzz/FuzzX/" + name, name + "/child.go"} {
				if err := nameProblem(path.Base(strings.TrimSuffix(p, "/child.go"))); err == nil {
					t.Errorf("nameProblem(%q) = nil", p)
				}
				checked, _ := modzip.CheckFiles([]modzip.File{memFile("go.mod"), memFile(p)})
				if len(checked.Invalid) != 1 || checked.Invalid[0].Path != p {
					t.Errorf("x/mod/zip accepted %q (invalid: %v)", p, checked.Invalid)
				}
			}
		}
		for _, name := range []string{"COM0", "lpt0.txt", "COM¹", "conin$", "CONOUT$.log", "nul .txt"} {
			if err := nameProblem(name); err == nil {
				t.Errorf("nameProblem(%q) = nil", name)
			}
		}
	})
	t.Run("dots, spaces and colons", func(t *testing.T) {
		for _, name := range []string{"x.", "x ", "x. ", "a:b", "a<b", `a\b`, "a|b", "a?b", "a*b", `a"b`, "a\tb", "bad\xffname"} {
			if err := nameProblem(name); err == nil {
				t.Errorf("nameProblem(%q) = nil", name)
			}
		}
		for _, name := range []string{"x.", "a:b"} {
			if checked, _ := modzip.CheckFiles([]modzip.File{memFile(name)}); len(checked.Invalid) != 1 {
				t.Errorf("x/mod/zip accepted %q", name)
			}
		}
	})
	t.Run("allowed", func(t *testing.T) {
		for _, name := range []string{"nul_byte", "console.go", "com10", "COM", "lpt", "auxiliary.md", "a.b.c", ".gitattributes", "x.nul", "é.txt"} {
			if err := nameProblem(name); err != nil {
				t.Errorf("nameProblem(%q) = %v", name, err)
			}
		}
	})
	t.Run("collisions", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			files []string
			want  int
		}{
			{name: "case", files: []string{"a/README.md", "a/readme.md"}, want: 1},
			{name: "case of a directory", files: []string{"Docs/a.md", "docs/b.md"}, want: 1},
			{name: "NFC and NFD", files: []string{"caf\u00e9.txt", "cafe\u0301.txt"}, want: 1},
			{name: "different directories", files: []string{"a/x.md", "b/X.md"}, want: 0},
			{name: "same file twice", files: []string{"a/x.md", "a/x.md"}, want: 0},
		} {
			if got := collisions(tc.files); len(got) != tc.want {
				t.Errorf("%s: collisions(%q) = %q, want %d", tc.name, tc.files, got, tc.want)
			}
		}
		checked, _ := modzip.CheckFiles([]modzip.File{memFile("a/README.md"), memFile("a/readme.md")})
		if len(checked.Invalid) != 1 {
			t.Errorf("x/mod/zip accepted a case collision: %v", checked.Invalid)
		}
	})
}

// TestCheckoutByteExact: with core.autocrlf=true (Git for Windows' default), Git rewrites
// the line endings of files it takes for text, and the byte-exact tests (golden files,
// patch inputs, fuzz seeds, some with CRLF on purpose) break. Every file must be marked
// -text (the root .gitattributes does that) or text with eol=lf (checked out as committed
// when committed with LF). The check itself is shown to catch a repository without the
// attribute.
func TestCheckoutByteExact(t *testing.T) {
	root := repoRoot(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: install git to check the checkout attributes")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skipf("%s is not a Git work tree (%v): nothing to check out", root, err)
	}
	for _, p := range convertedOnCheckout(t, root, repoFiles(t, root)) {
		t.Errorf("%s: a checkout with core.autocrlf=true would change its bytes; mark it -text (or text eol=lf)", p)
	}
	t.Run("caught", func(t *testing.T) {
		dir := t.TempDir()
		if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		for name, data := range map[string]string{"a.golden": "x\r\n", "sub/b.patch": "y\n"} {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		files := []string{"a.golden", "sub/b.patch"}
		if got := convertedOnCheckout(t, dir, files); len(got) != 2 {
			t.Errorf("without .gitattributes: %q, want both files", got)
		}
		os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* -text\n"), 0o644)
		if got := convertedOnCheckout(t, dir, files); len(got) != 0 {
			t.Errorf("with * -text: %q, want none", got)
		}
		os.WriteFile(filepath.Join(dir, "sub", ".gitattributes"), []byte("*.patch text=auto\n"), 0o644)
		if got := convertedOnCheckout(t, dir, files); len(got) != 1 || got[0] != "sub/b.patch" {
			t.Errorf("with a text=auto override: %q, want sub/b.patch", got)
		}
	})
}

// convertedOnCheckout returns the files of the work tree root whose bytes Git may change on
// checkout under core.autocrlf: those neither -text nor text with eol=lf.
func convertedOnCheckout(t *testing.T, root string, files []string) []string {
	t.Helper()
	cmd := exec.Command("git", "check-attr", "-z", "--stdin", "text", "eol")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join(files, "\x00") + "\x00")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git check-attr: %v", err)
	}
	// The output is path NUL attribute NUL value NUL, one triple per file and attribute.
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(f) != 3*2*len(files) {
		t.Fatalf("git check-attr gave %d fields for %d files", len(f), len(files))
	}
	attrs := map[string]map[string]string{}
	for i := 0; i+2 < len(f); i += 3 {
		if attrs[f[i]] == nil {
			attrs[f[i]] = map[string]string{}
		}
		attrs[f[i]][f[i+1]] = f[i+2]
	}
	var bad []string
	for _, p := range files {
		a := attrs[p]
		if a["text"] == "unset" || a["text"] == "set" && a["eol"] == "lf" {
			continue
		}
		bad = append(bad, p)
	}
	return bad
}
