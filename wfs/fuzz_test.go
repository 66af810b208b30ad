package wfs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/wfs"
)

// seeds follow the shapes of the conformance checks (keep in sync with wfstest).
var nameSeeds = []string{
	"a.txt", "d/sub/a.txt", "ld/sub/a.txt", "l", "loop", "..", "../x", "d/../a.txt", "./a.txt",
	"d//a.txt", "a.txt/", "", ".", "d/./sub", "..cache/x", "d/sub/up", "\x00", "a.txt/x",
}

// FuzzMemFSNames: whatever name is passed (joined under the root, or raw), MemFS neither panics
// nor returns an error that is not the os package's shape naming that exact input.
func FuzzMemFSNames(f *testing.F) {
	for _, s := range nameSeeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, rel string, raw bool) {
		m := newMem(t)
		m.WriteFile(p("a.txt"), []byte("a"), 0o644)
		m.WriteFile(p("d/sub/a.txt"), []byte("s"), 0o644)
		m.Symlink("d", p("ld"))
		m.Symlink("../a.txt", p("d/sub/up"))
		m.Symlink("loop", p("loop"))
		name := rel
		if !raw {
			name = memRoot() + string(filepath.Separator) + rel
		}
		check := func(op string, err error) {
			if err == nil {
				return
			}
			if errors.Is(err, wfs.ErrNotAbs) && !filepath.IsAbs(name) {
				return
			}
			var pe *fs.PathError
			var le *os.LinkError
			switch {
			case errors.As(err, &pe):
				if pe.Path != name {
					t.Fatalf("%s(%q): error names %q", op, name, pe.Path)
				}
			case errors.As(err, &le):
				if le.Old != name && le.New != name {
					t.Fatalf("%s(%q): error names %q, %q", op, name, le.Old, le.New)
				}
			default:
				t.Fatalf("%s(%q): error %v (%T) is not an *fs.PathError or *os.LinkError", op, name, err, err)
			}
		}
		_, err := m.Stat(name)
		check("Stat", err)
		_, err = m.Lstat(name)
		check("Lstat", err)
		_, err = m.Readlink(name)
		check("Readlink", err)
		_, err = m.ReadFile(name)
		check("ReadFile", err)
		if fh, err := m.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			_, err = fh.Write([]byte("x"))
			check("Write", err)
			check("Close", fh.Close())
		} else {
			check("OpenFile", err)
		}
		check("Chmod", m.Chmod(name, 0o755))
		check("Rename", m.Rename(name, p("moved")))
		check("Rename", m.Rename(p("a.txt"), name))
		check("Mkdir", m.Mkdir(name, 0o755))
		check("Remove", m.Remove(name))
		m.Tree()
	})
}

// FuzzOSFSConfined: whatever name is passed, OSFS creates nothing outside its base.
func FuzzOSFSConfined(f *testing.F) {
	for _, s := range nameSeeds {
		f.Add(s)
	}
	top := f.TempDir()
	base := filepath.Join(top, "base")
	if err := os.MkdirAll(filepath.Join(base, "d", "sub"), 0o755); err != nil {
		f.Fatal(err)
	}
	os.Symlink("..", filepath.Join(base, "up"))
	os.Symlink(top, filepath.Join(base, "abs"))
	o, err := wfs.NewOSFS(base)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { o.Close() })
	f.Fuzz(func(t *testing.T, rel string) {
		if strings.ContainsRune(rel, 0) {
			return // the OS refuses NUL bytes before any of our code matters
		}
		name := base + string(filepath.Separator) + rel
		if fh, err := o.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fh.Close()
		}
		o.Mkdir(name, 0o755)
		o.Rename(filepath.Join(base, "d", "sub"), name)
		ents, err := os.ReadDir(top)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].Name() != "base" {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("OSFS created %v next to its base for the name %q", names, name)
		}
	})
}
