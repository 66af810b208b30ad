package wfstest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
)

// A Writer is the write path [Metadata] checks: one edit of one existing file, as the package
// under test makes it (a patch applied, a file formatted, a rewrite applied, a host's save).
type Writer struct {
	// Name is the base name of the file each case edits; its extension matters to a
	// formatter. Default "file.txt".
	Name string
	// Before is the file's content before the edit; the edit must change it.
	Before []byte
	// Edit makes the edit of the file name (an absolute path directly in dir, a fresh
	// directory the writer may use as its root) and returns the error the writer reports. It
	// runs on a goroutine of its own (so that a blocked edit fails the case): report failures
	// by the error, not with t.Fatal.
	Edit func(t *testing.T, dir, name string) error
	// Plan, when set, is Edit split in two: it reads and plans, and the function it returns
	// commits. The grown-file case grows the file between the two, past Limit.
	Plan func(t *testing.T, dir, name string) (commit func() error)
	// Limit is the writer's size limit, for the grown-file case.
	Limit int64
}

// editDeadline bounds one edit of the table.
const editDeadline = 30 * time.Second

// A metaCase is one row of the table: setup prepares the file (and returns the name to pass
// to Edit, which may be a link to it), check inspects the outcome.
type metaCase struct {
	name  string
	setup func(t *testing.T, w *Writer, dir, file string) (edit string)
	check func(t *testing.T, w *Writer, dir, file string, err error)
}

// Metadata runs w over every case of the metadata table that applies on this system and to
// this process (the owner case needs a superuser, the attribute cases a file system with
// extended attributes; a case that does not apply is logged and not run), each in a fresh
// temporary directory:
//
//   - owner: a file owned by 1000:1000 keeps its owner and group;
//   - xattr: a user.* extended attribute is kept;
//   - acl: a POSIX access ACL (system.posix_acl_access, Linux) is kept;
//   - hard_link: a file with a second hard link is written in place: both names see the new
//     content and stay one file;
//   - setuid_setgid_sticky: the whole mode is kept;
//   - read_only_0444: the edit is refused, the file untouched;
//   - symlink: an edit through a symbolic link changes its target and leaves the link a link;
//   - fifo: an edit of a FIFO returns an error within seconds (it is never opened);
//   - name_243_bytes: a file whose name has 243 bytes can be edited;
//   - grown_past_limit (with Plan and Limit): a file that grows past the limit between plan
//     and commit is refused, and the grown content stays.
//
// After every case the directory holds no temporary (wfs.IsLeftover) and no journal.
func Metadata(t *testing.T, w Writer) {
	t.Helper()
	if w.Name == "" {
		w.Name = "file.txt"
	}
	for _, c := range append(commonCases(), systemCases()...) {
		t.Run(c.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, w.Name)
			if err := os.WriteFile(file, w.Before, 0o644); err != nil {
				t.Fatal(err)
			}
			edit := c.setup(t, &w, dir, file)
			if edit == "" {
				return // the case does not apply here; setup said why
			}
			var err2 error
			if c.name != "grown_past_limit" {
				// An edit that blocks (a FIFO opened) fails the case instead of the run.
				done := make(chan error, 1)
				go func() { done <- w.Edit(t, dir, edit) }()
				select {
				case err2 = <-done:
				case <-time.After(editDeadline):
					t.Fatalf("the edit of %s did not return within %v", filepath.Base(edit), editDeadline)
				}
			}
			c.check(t, &w, dir, file, err2)
			noLeftovers(t, dir)
		})
	}
}

func commonCases() []metaCase {
	return []metaCase{
		{name: "read_only_0444", setup: func(t *testing.T, w *Writer, dir, file string) string {
			must(t, os.Chmod(file, 0o444))
			return file
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			if err == nil {
				t.Errorf("the edit of a 0444 file succeeded; want it refused")
			}
			unchanged(t, w, file)
			wantMode(t, file, 0o444)
		}},
		{name: "symlink", setup: func(t *testing.T, w *Writer, dir, file string) string {
			link := filepath.Join(dir, "link-"+w.Name)
			if err := os.Symlink(w.Name, link); err != nil {
				t.Logf("symbolic links unavailable: %v", err)
				return ""
			}
			if _, err := os.Readlink(link); err != nil && testenv.Wine() {
				t.Skipf("skipped under Wine: its CreateSymbolicLinkW reports success and makes no link, so there is no link to edit through (%v)", err)
			}
			return link
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			edited(t, w, file, err)
			link := filepath.Join(dir, "link-"+w.Name)
			fi, lerr := os.Lstat(link)
			target, rerr := os.Readlink(link)
			if lerr != nil || fi.Mode()&fs.ModeSymlink == 0 || rerr != nil || target != w.Name {
				t.Errorf("the link was replaced: Lstat %v, %v; Readlink %q, %v", fi, lerr, target, rerr)
			}
		}},
		{name: "name_243_bytes", setup: func(t *testing.T, w *Writer, dir, file string) string {
			ext := filepath.Ext(w.Name)
			long := filepath.Join(dir, strings.Repeat("n", 243-len(ext))+ext)
			must(t, os.Rename(file, long))
			return long
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			ext := filepath.Ext(w.Name)
			long := filepath.Join(dir, strings.Repeat("n", 243-len(ext))+ext)
			edited(t, w, long, err)
		}},
		{name: "grown_past_limit", setup: func(t *testing.T, w *Writer, dir, file string) string {
			if w.Plan == nil || w.Limit <= 0 || w.Limit > 256<<20 {
				t.Logf("the writer has no plan/commit split or no small limit (Limit %d)", w.Limit)
				return ""
			}
			return file
		}, check: func(t *testing.T, w *Writer, dir, file string, _ error) {
			commit := w.Plan(t, dir, file)
			grown := bytes.Repeat([]byte("g"), int(w.Limit)+1)
			must(t, os.WriteFile(file, grown, 0o644))
			if err := commit(); err == nil {
				t.Fatalf("the commit of a file grown past the limit succeeded")
			}
			got, err := os.ReadFile(file)
			if err != nil || !bytes.Equal(got, grown) {
				t.Errorf("the grown file was changed (%d bytes, %v)", len(got), err)
			}
		}},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// edited asserts that the edit succeeded and changed file.
func edited(t *testing.T, w *Writer, file string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("edit of %s: %v", filepath.Base(file), err)
	}
	changed(t, w, file)
}

func changed(t *testing.T, w *Writer, file string) {
	t.Helper()
	got, err := os.ReadFile(file)
	if err != nil || bytes.Equal(got, w.Before) {
		t.Errorf("%s = %q, %v; want the edit's new content", filepath.Base(file), got, err)
	}
}

func unchanged(t *testing.T, w *Writer, file string) {
	t.Helper()
	got, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(got, w.Before) {
		t.Errorf("%s = %q, %v; want it untouched", filepath.Base(file), got, err)
	}
}

func wantMode(t *testing.T, file string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(file)
	if err != nil || fi.Mode()&(fs.ModeType|wfs.ModeBits) != want {
		t.Errorf("%s: mode %v, %v; want %v", filepath.Base(file), fi.Mode(), err, want)
	}
}

// noLeftovers fails when dir holds a temporary of a writer, a journal, or a directory's lock
// file (".hkwfs.lock", Windows: its holder removes it).
func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if wfs.IsLeftover(d.Name()) || d.Name() == wfs.JournalDir || d.Name() == ".hkwfs.lock" {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}
