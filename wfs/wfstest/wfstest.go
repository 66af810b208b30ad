// Package wfstest checks an implementation of the write interface [wfs.FS] against the
// behaviour of the os package, as testing/fstest.TestFS does for io/fs.FS, and checks a
// writer built on package wfs against the metadata rules of its documentation.
//
// [TestFS] runs one sub-test per behaviour: exclusive creation, writing, reading, syncing and
// closing, Stat of an open file, truncation and appending, renames (replacing a file, refusing
// a directory), removal of files, symbolic links and empty directories, directory creation,
// permission changes, Stat versus Lstat on symbolic links, Readlink, and the not-exist,
// exists and not-a-directory errors, which must be [*fs.PathError]s ([*os.LinkError]s for
// Rename and Link) naming the absolute path the caller passed; the optional extensions
// (hard links, locks) when the FS has them; and a [wfs.Tx] commit over the FS. For a confined
// file system (an [wfs.OSFS]) it also checks that names outside the bases, names with "..",
// and symbolic links leaving the bases are refused.
//
// [Metadata] runs a writer (patch, astsearch, format, a webfetch save, or a host's own) over
// a table of files on a real directory — owner, extended attribute, POSIX ACL, hard link,
// setuid and setgid, mode 0444, symbolic link, FIFO, a 243-byte name, a file that grows past
// the size limit between plan and commit — and checks that each is kept or refused as the
// write layer promises, with nothing left behind.
package wfstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
)

// Subject is one file system under test, made fresh for every sub-test.
type Subject struct {
	// FS is the file system under test.
	FS wfs.FS
	// Root is an existing, empty directory of FS (absolute, OS-native) in which the checks
	// create their files.
	Root string
	// Symlink creates name as a symbolic link to target; the FS interface has no such
	// method, so the harness supplies it (os.Symlink for a real directory).
	Symlink func(target, name string) error
}

// Config says which optional behaviours the file systems under test have; the checks for a
// behaviour a file system does not have are not run.
type Config struct {
	// Confined: names outside the bases are refused (an OSFS whose only base is
	// Subject.Root). Enables the refusal checks.
	Confined bool
	// Permissions: permission bits are enforced for the caller (MemFS always; a real
	// directory unless the test runs as root). Enables the permission checks.
	Permissions bool
}

// TestFS runs every conformance check that applies under cfg on file systems made by newFS,
// one fresh subject per check.
func TestFS(t *testing.T, cfg Config, newFS func(t *testing.T) Subject) {
	t.Helper()
	// The extensions the file system has, and whether links can be made, decide which
	// checks run. They are found here, not in a sub-test, so that a -run filter that leaves
	// such a sub-test out does not change which checks run.
	s := newFS(t)
	_, isLink := s.FS.(wfs.LinkFS)
	_, isLock := s.FS.(wfs.LockFS)
	noSymlinks := symlinksMissing(s)
	t.Logf("%T: LinkFS %v, LockFS %v, symbolic links %v", s.FS, isLink, isLock, noSymlinks == "")
	for _, c := range checks {
		if c.confined && !cfg.Confined || c.permissions && !cfg.Permissions || c.link && !isLink || c.lock && !isLock {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if c.symlink && noSymlinks != "" {
				t.Skip(noSymlinks)
			}
			c.run(t, &h{T: t, s: newFS(t)})
		})
	}
}

// symlinksMissing makes a symbolic link with s.Symlink and reads it back with s.FS.Readlink.
// It returns "" when that works, and otherwise why the checks that need links are skipped:
// under Wine, whose CreateSymbolicLinkW reports success and makes no link, or on Windows
// without the privilege to make links. Anywhere else a link that does not read back is a
// failure of the file system under test, and the checks that need links run and say so.
func symlinksMissing(s Subject) string {
	name := filepath.Join(s.Root, "probe-link")
	err := s.Symlink("probe-target", name)
	if err == nil {
		var got string
		got, err = s.FS.Readlink(name)
		_ = s.FS.Remove(name)
		if err == nil && got != "probe-target" {
			err = fmt.Errorf("Readlink = %q, want %q", got, "probe-target")
		}
	}
	switch {
	case err == nil:
		return ""
	case testenv.Wine():
		return fmt.Sprintf("skipped under Wine: its CreateSymbolicLinkW reports success and makes no link, so os.Symlink cannot make the links this check needs (%v)", err)
	case runtime.GOOS == "windows":
		return fmt.Sprintf("skipped: this process may not make symbolic links (Windows needs SeCreateSymbolicLinkPrivilege or developer mode): %v", err)
	}
	return ""
}

// h wraps a sub-test with helpers over its subject.
type h struct {
	*testing.T
	s Subject
}

func (h *h) p(rel string) string { return filepath.Join(h.s.Root, filepath.FromSlash(rel)) }

func (h *h) write(rel, data string, perm fs.FileMode) {
	h.Helper()
	f, err := h.s.FS.OpenFile(h.p(rel), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		h.Fatalf("setup: create %s: %v", rel, err)
	}
	if _, err := f.Write([]byte(data)); err != nil {
		h.Fatalf("setup: write %s: %v", rel, err)
	}
	if err := f.Close(); err != nil {
		h.Fatalf("setup: close %s: %v", rel, err)
	}
	if err := h.s.FS.Chmod(h.p(rel), perm); err != nil {
		h.Fatalf("setup: chmod %s: %v", rel, err)
	}
}

func (h *h) mkdir(rel string) {
	h.Helper()
	if err := h.s.FS.Mkdir(h.p(rel), 0o700); err != nil {
		h.Fatalf("setup: mkdir %s: %v", rel, err)
	}
	if err := h.s.FS.Chmod(h.p(rel), 0o755); err != nil {
		h.Fatalf("setup: chmod %s: %v", rel, err)
	}
}

func (h *h) symlink(target, rel string) {
	h.Helper()
	if err := h.s.Symlink(target, h.p(rel)); err != nil {
		h.Fatalf("setup: symlink %s -> %s: %v", rel, target, err)
	}
}

// content asserts that rel is a regular file holding want.
func (h *h) content(rel, want string) {
	h.Helper()
	b, err := h.s.FS.ReadFile(h.p(rel))
	if err != nil {
		h.Fatalf("ReadFile(%s): %v", rel, err)
	}
	if string(b) != want {
		h.Fatalf("ReadFile(%s) = %q, want %q", rel, b, want)
	}
}

// absent asserts that nothing (not even a symbolic link) exists at rel.
func (h *h) absent(rel string) {
	h.Helper()
	if fi, err := h.s.FS.Lstat(h.p(rel)); !errors.Is(err, fs.ErrNotExist) {
		h.Fatalf("Lstat(%s) = %v, %v; want it absent (fs.ErrNotExist)", rel, fi, err)
	}
}

// mode asserts the permission bits and type of rel (Lstat).
func (h *h) mode(rel string, want fs.FileMode) {
	h.Helper()
	fi, err := h.s.FS.Lstat(h.p(rel))
	if err != nil {
		h.Fatalf("Lstat(%s): %v", rel, err)
	}
	// A Windows volume keeps only a read-only attribute: the owner's write bit is all there
	// is to compare.
	mask := fs.ModeType | permMask(fi)
	if got := fi.Mode() & mask; got != want&mask {
		h.Fatalf("Lstat(%s).Mode() = %v, want %v", rel, got, want)
	}
}

// pathErr asserts that err is an *fs.PathError for op on rel matching target (an
// fs.Err… sentinel or a syscall.Errno, or a [native] pair).
func (h *h) pathErr(err error, op, rel string, target error) {
	h.Helper()
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		h.Fatalf("error %v (%T) is not an *fs.PathError; want %s %s: %v", err, err, op, rel, target)
	}
	if pe.Op != op || pe.Path != h.p(rel) {
		h.Fatalf("error %q names op %q path %q; want op %q path %q", err, pe.Op, pe.Path, op, h.p(rel))
	}
	if !matches(err, target) {
		h.Fatalf("error %q does not match %v", err, target)
	}
}

// linkErr asserts that err is an *os.LinkError of a rename of old to new matching target.
func (h *h) linkErr(err error, old, new string, target error) {
	h.Helper()
	var le *os.LinkError
	if !errors.As(err, &le) {
		h.Fatalf("error %v (%T) is not an *os.LinkError; want rename: %v", err, err, target)
	}
	if le.Op != "rename" || le.Old != h.p(old) || le.New != h.p(new) {
		h.Fatalf("error %q: want op rename, old %q, new %q", err, h.p(old), h.p(new))
	}
	if !errors.Is(err, target) {
		h.Fatalf("error %q does not match %v", err, target)
	}
}

// outside asserts that err refuses a name outside the bases.
func (h *h) outside(err error, what string) {
	h.Helper()
	if !errors.Is(err, wfs.ErrOutside) || !errors.Is(err, fs.ErrPermission) {
		h.Fatalf("%s: error %v; want a refusal matching wfs.ErrOutside and fs.ErrPermission", what, err)
	}
}

type check struct {
	name        string
	confined    bool // needs Config.Confined
	permissions bool // needs Config.Permissions
	link        bool // needs wfs.LinkFS
	lock        bool // needs wfs.LockFS
	symlink     bool // needs Subject.Symlink to make links
	run         func(t *testing.T, h *h)
}

var checks = []check{
	{name: "create_exclusive_write_sync_close", run: func(t *testing.T, h *h) {
		f, err := h.s.FS.OpenFile(h.p("new.txt"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatalf("OpenFile(O_CREATE|O_EXCL): %v", err)
		}
		for _, part := range []string{"hello ", "world\n"} {
			if n, err := f.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("Write(%q) = %d, %v", part, n, err)
			}
		}
		if err := f.Sync(); err != nil {
			t.Fatalf("Sync: %v", err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		h.content("new.txt", "hello world\n")
		h.mode("new.txt", 0o600)
		fi, err := h.s.FS.Stat(h.p("new.txt"))
		if err != nil || fi.Size() != 12 || fi.Name() != "new.txt" || !fi.Mode().IsRegular() {
			t.Fatalf("Stat = %v, %v; want a 12-byte regular file named new.txt", fi, err)
		}
	}},
	{name: "create_exclusive_refuses_existing_file", run: func(t *testing.T, h *h) {
		h.write("a.txt", "keep", 0o644)
		_, err := h.s.FS.OpenFile(h.p("a.txt"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		h.pathErr(err, "open", "a.txt", fs.ErrExist)
		h.content("a.txt", "keep")
		h.mode("a.txt", 0o644)
	}},
	{name: "create_exclusive_refuses_dangling_symlink", symlink: true, run: func(t *testing.T, h *h) {
		h.symlink("target.txt", "link")
		_, err := h.s.FS.OpenFile(h.p("link"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		h.pathErr(err, "open", "link", fs.ErrExist)
		h.absent("target.txt")
	}},
	{name: "create_follows_dangling_symlink", symlink: true, run: func(t *testing.T, h *h) {
		h.symlink("target.txt", "link")
		f, err := h.s.FS.OpenFile(h.p("link"), os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatalf("OpenFile(O_CREATE) through a dangling link: %v", err)
		}
		f.Write([]byte("x"))
		f.Close()
		h.content("target.txt", "x")
		h.mode("link", fs.ModeSymlink|0o777)
	}},
	{name: "open_missing_without_create", run: func(t *testing.T, h *h) {
		_, err := h.s.FS.OpenFile(h.p("missing.txt"), os.O_WRONLY, 0)
		h.pathErr(err, "open", "missing.txt", fs.ErrNotExist)
		h.absent("missing.txt")
	}},
	{name: "create_in_missing_directory", run: func(t *testing.T, h *h) {
		_, err := h.s.FS.OpenFile(h.p("no/dir/f.txt"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		h.pathErr(err, "open", "no/dir/f.txt", fs.ErrNotExist)
		h.absent("no")
	}},
	{name: "create_under_regular_file", run: func(t *testing.T, h *h) {
		h.write("file", "x", 0o644)
		_, err := h.s.FS.OpenFile(h.p("file/f.txt"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		h.pathErr(err, "open", "file/f.txt", syscall.ENOTDIR)
	}},
	{name: "open_directory_for_writing", run: func(t *testing.T, h *h) {
		h.mkdir("d")
		_, err := h.s.FS.OpenFile(h.p("d"), os.O_WRONLY, 0)
		h.pathErr(err, "open", "d", syscall.EISDIR)
	}},
	{name: "truncate_replaces_content_keeps_mode", run: func(t *testing.T, h *h) {
		h.write("a.txt", "old content", 0o640)
		f, err := h.s.FS.OpenFile(h.p("a.txt"), os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("new"))
		f.Close()
		h.content("a.txt", "new")
		h.mode("a.txt", 0o640)
	}},
	{name: "append_writes_at_end", run: func(t *testing.T, h *h) {
		h.write("a.txt", "one\n", 0o644)
		f, err := h.s.FS.OpenFile(h.p("a.txt"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("two\n"))
		f.Close()
		h.content("a.txt", "one\ntwo\n")
	}},
	{name: "write_without_truncate_overwrites_prefix", run: func(t *testing.T, h *h) {
		h.write("a.txt", "abcdef", 0o644)
		f, err := h.s.FS.OpenFile(h.p("a.txt"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("XY"))
		f.Close()
		h.content("a.txt", "XYcdef")
	}},
	{name: "write_on_read_only_handle_fails", run: func(t *testing.T, h *h) {
		h.write("a.txt", "abc", 0o644)
		f, err := h.s.FS.OpenFile(h.p("a.txt"), os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		_, err = f.Write([]byte("x"))
		h.pathErr(err, "write", "a.txt", native(syscall.EBADF, errWriteReadOnly))
		h.content("a.txt", "abc")
	}},
	{name: "use_after_close_fails", run: func(t *testing.T, h *h) {
		f, err := h.s.FS.OpenFile(h.p("a.txt"), os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		_, err = f.Write([]byte("x"))
		h.pathErr(err, "write", "a.txt", fs.ErrClosed)
		h.pathErr(f.Sync(), "sync", "a.txt", fs.ErrClosed)
		h.pathErr(f.Close(), "close", "a.txt", fs.ErrClosed)
		h.content("a.txt", "")
	}},
	{name: "handle_follows_renamed_file", run: func(t *testing.T, h *h) {
		f, err := h.s.FS.OpenFile(h.p(".a.tmp"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("one "))
		if err := h.s.FS.Rename(h.p(".a.tmp"), h.p("a.txt")); err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("two"))
		f.Close()
		h.content("a.txt", "one two")
		h.absent(".a.tmp")
	}},
	{name: "rename_replaces_file", run: func(t *testing.T, h *h) {
		h.write(".a.txt.1234.tmp", "new", 0o600)
		h.write("a.txt", "old", 0o644)
		if err := h.s.FS.Rename(h.p(".a.txt.1234.tmp"), h.p("a.txt")); err != nil {
			t.Fatalf("Rename over an existing file: %v", err)
		}
		h.content("a.txt", "new")
		h.mode("a.txt", 0o600)
		h.absent(".a.txt.1234.tmp")
	}},
	{name: "rename_to_new_name_keeps_mode", run: func(t *testing.T, h *h) {
		h.write("a.txt", "x", 0o750)
		if err := h.s.FS.Rename(h.p("a.txt"), h.p("b.txt")); err != nil {
			t.Fatal(err)
		}
		h.content("b.txt", "x")
		h.mode("b.txt", 0o750)
		h.absent("a.txt")
	}},
	{name: "rename_missing_source", run: func(t *testing.T, h *h) {
		err := h.s.FS.Rename(h.p("missing"), h.p("b.txt"))
		h.linkErr(err, "missing", "b.txt", fs.ErrNotExist)
		h.absent("b.txt")
	}},
	{name: "rename_onto_directory_refused", run: func(t *testing.T, h *h) {
		h.write("a.txt", "x", 0o644)
		h.mkdir("d")
		err := h.s.FS.Rename(h.p("a.txt"), h.p("d"))
		h.linkErr(err, "a.txt", "d", fs.ErrExist)
		h.content("a.txt", "x")
		h.mode("d", fs.ModeDir|0o755)
	}},
	{name: "rename_into_missing_directory", run: func(t *testing.T, h *h) {
		h.write("a.txt", "x", 0o644)
		err := h.s.FS.Rename(h.p("a.txt"), h.p("no/b.txt"))
		h.linkErr(err, "a.txt", "no/b.txt", fs.ErrNotExist)
		h.content("a.txt", "x")
	}},
	{name: "rename_symlink_moves_the_link", symlink: true, run: func(t *testing.T, h *h) {
		h.write("real.txt", "x", 0o644)
		h.symlink("real.txt", "l1")
		if err := h.s.FS.Rename(h.p("l1"), h.p("l2")); err != nil {
			t.Fatal(err)
		}
		h.mode("l2", fs.ModeSymlink|0o777)
		h.content("l2", "x")
		h.absent("l1")
	}},
	{name: "remove_file", run: func(t *testing.T, h *h) {
		h.write("a.txt", "x", 0o644)
		if err := h.s.FS.Remove(h.p("a.txt")); err != nil {
			t.Fatal(err)
		}
		h.absent("a.txt")
	}},
	{name: "remove_empty_directory", run: func(t *testing.T, h *h) {
		h.mkdir("d")
		if err := h.s.FS.Remove(h.p("d")); err != nil {
			t.Fatal(err)
		}
		h.absent("d")
	}},
	{name: "remove_non_empty_directory_refused", run: func(t *testing.T, h *h) {
		h.mkdir("d")
		h.write("d/a.txt", "x", 0o644)
		err := h.s.FS.Remove(h.p("d"))
		h.pathErr(err, "remove", "d", native(syscall.ENOTEMPTY, errDirNotEmpty))
		h.content("d/a.txt", "x")
	}},
	{name: "remove_missing", run: func(t *testing.T, h *h) {
		h.pathErr(h.s.FS.Remove(h.p("missing")), "remove", "missing", fs.ErrNotExist)
	}},
	{name: "remove_symlink_keeps_target", symlink: true, run: func(t *testing.T, h *h) {
		h.write("real.txt", "x", 0o644)
		h.symlink("real.txt", "l")
		if err := h.s.FS.Remove(h.p("l")); err != nil {
			t.Fatal(err)
		}
		h.absent("l")
		h.content("real.txt", "x")
	}},
	{name: "mkdir", run: func(t *testing.T, h *h) {
		if err := h.s.FS.Mkdir(h.p("d"), 0o700); err != nil {
			t.Fatal(err)
		}
		h.mode("d", fs.ModeDir|0o700)
		h.write("d/a.txt", "x", 0o644)
		h.content("d/a.txt", "x")
	}},
	{name: "mkdir_existing", run: func(t *testing.T, h *h) {
		h.mkdir("d")
		h.write("f", "x", 0o644)
		h.pathErr(h.s.FS.Mkdir(h.p("d"), 0o700), "mkdir", "d", fs.ErrExist)
		h.pathErr(h.s.FS.Mkdir(h.p("f"), 0o700), "mkdir", "f", fs.ErrExist)
	}},
	{name: "mkdir_on_dangling_symlink", symlink: true, run: func(t *testing.T, h *h) {
		h.symlink("missing", "dangling")
		h.pathErr(h.s.FS.Mkdir(h.p("dangling"), 0o700), "mkdir", "dangling", fs.ErrExist)
		h.absent("missing")
	}},
	{name: "mkdir_missing_parent", run: func(t *testing.T, h *h) {
		h.pathErr(h.s.FS.Mkdir(h.p("a/b"), 0o700), "mkdir", "a/b", fs.ErrNotExist)
		h.absent("a")
	}},
	{name: "mkdir_under_regular_file", run: func(t *testing.T, h *h) {
		h.write("f", "x", 0o644)
		h.pathErr(h.s.FS.Mkdir(h.p("f/d"), 0o700), "mkdir", "f/d", syscall.ENOTDIR)
	}},
	{name: "chmod", run: func(t *testing.T, h *h) {
		h.write("a.txt", "x", 0o644)
		h.mkdir("d")
		for _, c := range []struct {
			rel  string
			mode fs.FileMode
			want fs.FileMode
		}{
			{rel: "a.txt", mode: 0o600, want: 0o600},
			{rel: "a.txt", mode: 0o755, want: 0o755},
			{rel: "d", mode: 0o700, want: fs.ModeDir | 0o700},
		} {
			if err := h.s.FS.Chmod(h.p(c.rel), c.mode); err != nil {
				t.Fatalf("Chmod(%s, %v): %v", c.rel, c.mode, err)
			}
			h.mode(c.rel, c.want)
		}
		h.pathErr(h.s.FS.Chmod(h.p("missing"), 0o600), "chmod", "missing", fs.ErrNotExist)
	}},
	{name: "chmod_follows_symlink", symlink: true, run: func(t *testing.T, h *h) {
		h.write("real.txt", "x", 0o644)
		h.symlink("real.txt", "l")
		if err := h.s.FS.Chmod(h.p("l"), 0o600); err != nil {
			t.Fatal(err)
		}
		h.mode("real.txt", 0o600)
		h.mode("l", fs.ModeSymlink|0o777)
	}},
	{name: "stat_and_lstat_on_symlink", symlink: true, run: func(t *testing.T, h *h) {
		h.write("real.txt", "hello", 0o640)
		h.symlink("real.txt", "l")
		fi, err := h.s.FS.Stat(h.p("l"))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 || fi.Size() != 5 || fi.Name() != "l" {
			t.Fatalf("Stat(l) = %v, %v; want the target's info (regular, 0640, 5 bytes) named l", fi, err)
		}
		li, err := h.s.FS.Lstat(h.p("l"))
		if err != nil || li.Mode()&fs.ModeSymlink == 0 || li.Name() != "l" {
			t.Fatalf("Lstat(l) = %v, %v; want a symbolic link named l", li, err)
		}
		h.content("l", "hello")
		got, err := h.s.FS.Readlink(h.p("l"))
		if err != nil || got != "real.txt" {
			t.Fatalf("Readlink(l) = %q, %v; want %q", got, err, "real.txt")
		}
	}},
	{name: "readlink_of_regular_file", run: func(t *testing.T, h *h) {
		h.write("a.txt", "x", 0o644)
		_, err := h.s.FS.Readlink(h.p("a.txt"))
		h.pathErr(err, "readlink", "a.txt", native(syscall.EINVAL, errNotALink))
		_, err = h.s.FS.Readlink(h.p("missing"))
		h.pathErr(err, "readlink", "missing", fs.ErrNotExist)
	}},
	{name: "dangling_symlink", symlink: true, run: func(t *testing.T, h *h) {
		h.symlink("missing.txt", "l")
		_, err := h.s.FS.Stat(h.p("l"))
		h.pathErr(err, "stat", "l", fs.ErrNotExist)
		_, err = h.s.FS.ReadFile(h.p("l"))
		h.pathErr(err, "open", "l", fs.ErrNotExist)
		if _, err := h.s.FS.Lstat(h.p("l")); err != nil {
			t.Fatalf("Lstat of a dangling link: %v", err)
		}
	}},
	{name: "symlinked_directory_in_path", symlink: true, run: func(t *testing.T, h *h) {
		h.mkdir("d")
		h.mkdir("d/sub")
		h.write("d/sub/a.txt", "x", 0o644)
		h.symlink("d", "ld")
		h.content("ld/sub/a.txt", "x")
		f, err := h.s.FS.OpenFile(h.p("ld/sub/b.txt"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatalf("create through a symlinked directory: %v", err)
		}
		f.Close()
		h.content("d/sub/b.txt", "")
		// A relative target is read from the link's real directory (d/sub), not from ld/sub.
		h.write("d/a.txt", "in d", 0o644)
		h.symlink("../a.txt", "d/sub/up")
		h.content("ld/sub/up", "in d")
	}},
	{name: "symlink_loop", symlink: true, run: func(t *testing.T, h *h) {
		h.symlink("b", "a")
		h.symlink("a", "b")
		_, err := h.s.FS.Stat(h.p("a"))
		h.pathErr(err, "stat", "a", syscall.ELOOP)
		_, err = h.s.FS.OpenFile(h.p("a"), os.O_CREATE|os.O_WRONLY, 0o600)
		h.pathErr(err, "open", "a", syscall.ELOOP)
	}},
	{name: "not_exist_and_not_a_directory", run: func(t *testing.T, h *h) {
		h.write("f", "x", 0o644)
		for _, c := range []struct {
			rel  string
			want error
		}{
			{rel: "missing", want: fs.ErrNotExist},
			{rel: "missing/x", want: fs.ErrNotExist},
			{rel: "f/x", want: syscall.ENOTDIR},
		} {
			_, err := h.s.FS.Stat(h.p(c.rel))
			h.pathErr(err, "stat", c.rel, c.want)
			_, err = h.s.FS.Lstat(h.p(c.rel))
			h.pathErr(err, "lstat", c.rel, c.want)
			_, err = h.s.FS.ReadFile(h.p(c.rel))
			h.pathErr(err, "open", c.rel, c.want)
		}
	}},
	{name: "read_directory", run: func(t *testing.T, h *h) {
		h.mkdir("d")
		_, err := h.s.FS.ReadFile(h.p("d"))
		h.pathErr(err, "read", "d", native(syscall.EISDIR, errReadDir))
	}},
	{name: "relative_names_refused", run: func(t *testing.T, h *h) {
		h.write("a.txt", "x", 0o644)
		rel := "a.txt"
		_, err1 := h.s.FS.Stat(rel)
		_, err2 := h.s.FS.ReadFile(rel)
		_, err3 := h.s.FS.OpenFile(rel, os.O_CREATE|os.O_WRONLY, 0o600)
		for i, err := range []error{err1, err2, err3, h.s.FS.Remove(rel), h.s.FS.Mkdir("d", 0o700), h.s.FS.Chmod(rel, 0o600)} {
			if !errors.Is(err, wfs.ErrNotAbs) {
				t.Fatalf("call %d with a relative name: error %v; want wfs.ErrNotAbs", i, err)
			}
		}
		h.content("a.txt", "x")
	}},
	{name: "outside_bases_refused", confined: true, run: func(t *testing.T, h *h) {
		out := filepath.Join(filepath.Dir(h.s.Root), filepath.Base(h.s.Root)+"-outside", "f.txt")
		_, err := h.s.FS.Stat(out)
		h.outside(err, "Stat")
		_, err = h.s.FS.ReadFile(out)
		h.outside(err, "ReadFile")
		_, err = h.s.FS.OpenFile(out, os.O_CREATE|os.O_WRONLY, 0o600)
		h.outside(err, "OpenFile")
		h.outside(h.s.FS.Mkdir(filepath.Dir(out), 0o700), "Mkdir")
		h.outside(h.s.FS.Remove(out), "Remove")
		h.outside(h.s.FS.Chmod(out, 0o600), "Chmod")
		h.write("a.txt", "x", 0o644)
		h.outside(h.s.FS.Rename(h.p("a.txt"), out), "Rename")
		h.content("a.txt", "x")
		if _, err := h.s.FS.Lstat(filepath.Dir(out)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the outside directory was created: Lstat = %v", err)
		}
		// A sibling whose name extends the base's is outside too (segment-aware).
		_, err = h.s.FS.Stat(h.s.Root + "x")
		h.outside(err, "Stat of a sibling sharing the base's prefix")
	}},
	{name: "dotdot_traversal_refused", confined: true, run: func(t *testing.T, h *h) {
		h.mkdir("d")
		h.write("a.txt", "x", 0o644)
		for _, name := range []string{
			h.s.Root + string(filepath.Separator) + ".." + string(filepath.Separator) + "x.txt",
			h.p("d") + string(filepath.Separator) + ".." + string(filepath.Separator) + "a.txt",
		} {
			_, err := h.s.FS.ReadFile(name)
			h.outside(err, "ReadFile("+name+")")
			_, err = h.s.FS.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o600)
			h.outside(err, "OpenFile("+name+")")
			h.outside(h.s.FS.Remove(name), "Remove("+name+")")
		}
		h.content("a.txt", "x")
	}},
	{name: "symlink_escape_refused", confined: true, symlink: true, run: func(t *testing.T, h *h) {
		// The link leads out of the base; the FS must not follow it for content or writes.
		h.symlink(".."+string(filepath.Separator)+"..", "up")
		h.symlink(filepath.Dir(h.s.Root), "abs")
		for _, rel := range []string{"up/escaped.txt", "abs/escaped.txt"} {
			_, err := h.s.FS.OpenFile(h.p(rel), os.O_CREATE|os.O_WRONLY, 0o600)
			if err == nil {
				t.Fatalf("OpenFile(%s) followed a link out of the base", rel)
			}
			if _, err := h.s.FS.ReadFile(h.p(rel)); err == nil {
				t.Fatalf("ReadFile(%s) followed a link out of the base", rel)
			}
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(h.s.Root), "escaped.txt")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a file was created outside the base: %v", err)
		}
	}},
	{name: "concurrent_writers", run: func(t *testing.T, h *h) {
		// Writers in parallel, each staging a temporary and renaming it into place.
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() {
				tmp, final := h.p(fmt.Sprintf(".w%d.tmp", i)), h.p(fmt.Sprintf("w%d", i))
				f, err := h.s.FS.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
				if err == nil {
					_, err = f.Write([]byte(fmt.Sprint(i)))
					err = errors.Join(err, f.Sync(), f.Close(), h.s.FS.Rename(tmp, final))
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("writer %d: %v", i, err)
			}
			h.content(fmt.Sprintf("w%d", i), fmt.Sprint(i))
			h.absent(fmt.Sprintf(".w%d.tmp", i))
		}
	}},
	{name: "read_and_stat_open_file", run: func(t *testing.T, h *h) {
		h.write("a.txt", "hello, reader", 0o644)
		f, err := h.s.FS.OpenFile(h.p("a.txt"), os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil || string(b) != "hello, reader" {
			t.Fatalf("ReadAll = %q, %v", b, err)
		}
		fi, err := f.Stat()
		li, lerr := h.s.FS.Lstat(h.p("a.txt"))
		if err != nil || lerr != nil || fi.Size() != 13 || !fi.Mode().IsRegular() || !wfs.SameFile(fi, li) {
			t.Fatalf("File.Stat = %v, %v; want the 13-byte regular file Lstat describes (%v, %v)", fi, err, li, lerr)
		}
		w, err := h.s.FS.OpenFile(h.p("a.txt"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.Read(make([]byte, 1)); err == nil {
			t.Fatal("Read on a write-only handle succeeded")
		}
		// A handle follows its file, not the name.
		h.write("b.txt", "other", 0o644)
		if err := h.s.FS.Rename(h.p("b.txt"), h.p("a.txt")); err != nil {
			if testenv.Wine() && errors.Is(err, fs.ErrPermission) && windowsVolume(fi) {
				t.Skipf("skipped under Wine: it has no POSIX-semantics rename (FileRenameInformationEx), so a file open elsewhere cannot be replaced, as Windows 10 and later on NTFS can: %v", err)
			}
			t.Fatal(err)
		}
		if fi2, err := f.Stat(); err != nil || fi2.Size() != 13 {
			t.Fatalf("File.Stat after the name was replaced = %v, %v; want the opened file", fi2, err)
		}
	}},
	{name: "sync_directory", run: func(t *testing.T, h *h) {
		h.mkdir("d")
		h.write("d/a.txt", "x", 0o644)
		f, err := h.s.FS.OpenFile(h.p("d"), os.O_RDONLY, 0)
		if err != nil {
			t.Fatalf("open a directory read-only: %v", err)
		}
		if err := f.Sync(); err != nil && runtime.GOOS != "windows" {
			t.Fatalf("Sync of a directory: %v", err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}},
	{name: "hard_link", link: true, run: func(t *testing.T, h *h) {
		lf := h.s.FS.(wfs.LinkFS)
		h.write("a.txt", "shared", 0o640)
		if err := lf.Link(h.p("a.txt"), h.p("b.txt")); err != nil {
			t.Fatalf("Link: %v", err)
		}
		ai, _ := h.s.FS.Lstat(h.p("a.txt"))
		bi, _ := h.s.FS.Lstat(h.p("b.txt"))
		if !wfs.SameFile(ai, bi) {
			t.Fatal("the two names are not one file")
		}
		f, err := h.s.FS.OpenFile(h.p("b.txt"), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("changed"))
		f.Close()
		h.content("a.txt", "changed")
		h.write("c.txt", "keep", 0o644)
		err = lf.Link(h.p("a.txt"), h.p("c.txt"))
		var le *os.LinkError
		if !errors.As(err, &le) || !errors.Is(err, fs.ErrExist) || le.New != h.p("c.txt") {
			t.Fatalf("Link onto an existing name = %v; want an *os.LinkError naming it, matching fs.ErrExist", err)
		}
		h.content("c.txt", "keep")
		if err := h.s.FS.Remove(h.p("a.txt")); err != nil {
			t.Fatal(err)
		}
		h.content("b.txt", "changed")
	}},
	{name: "lock", lock: true, run: func(t *testing.T, h *h) {
		lf := h.s.FS.(wfs.LockFS)
		h.mkdir("d")
		unlock, err := lf.TryLock(h.p("d"))
		if err != nil {
			t.Fatalf("TryLock: %v", err)
		}
		if _, err := lf.TryLock(h.p("d")); !errors.Is(err, wfs.ErrLocked) {
			t.Fatalf("second TryLock = %v; want wfs.ErrLocked", err)
		}
		unlock()
		unlock() // twice is harmless
		u2, err := lf.TryLock(h.p("d"))
		if err != nil {
			t.Fatalf("TryLock after unlock: %v", err)
		}
		u2()
		if _, err := lf.TryLock(h.p("missing")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("TryLock of a missing name = %v; want fs.ErrNotExist", err)
		}
	}},
	{name: "transaction", run: func(t *testing.T, h *h) {
		ctx := context.Background()
		h.write("a.txt", "a", 0o640)
		h.write("c.txt", "c", 0o644)
		read := func(rel string) wfs.Snapshot {
			s, err := wfs.Read(ctx, h.s.FS, h.p(rel), wfs.DefaultMaxFileSize)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		a, c := read("a.txt"), read("c.txt")
		tx, err := wfs.Begin(h.s.FS, h.s.Root)
		if err != nil {
			t.Fatal(err)
		}
		tx.Write(a, []byte("A"))
		tx.Create(h.p("new/b.txt"), []byte("B"), 0o600)
		tx.Delete(c)
		if _, err := tx.Commit(ctx); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		h.content("a.txt", "A")
		h.mode("a.txt", 0o640)
		h.content("new/b.txt", "B")
		h.absent("c.txt")
		h.absent(wfs.JournalDir)
		tx, _ = wfs.Begin(h.s.FS, h.s.Root)
		tx.Write(a, []byte("stale"))
		if _, err := tx.Commit(ctx); !errors.Is(err, wfs.ErrChanged) {
			t.Fatalf("Commit of a stale snapshot = %v; want wfs.ErrChanged", err)
		}
		h.content("a.txt", "A")
	}},
	{name: "permission_denied", permissions: true, run: func(t *testing.T, h *h) {
		h.write("ro.txt", "x", 0o444)
		_, err := h.s.FS.OpenFile(h.p("ro.txt"), os.O_WRONLY, 0)
		h.pathErr(err, "open", "ro.txt", fs.ErrPermission)
		h.mkdir("locked")
		h.write("locked/a.txt", "x", 0o644)
		if err := h.s.FS.Chmod(h.p("locked"), 0o500); err != nil {
			t.Fatal(err)
		}
		_, err = h.s.FS.OpenFile(h.p("locked/b.txt"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		h.pathErr(err, "open", "locked/b.txt", fs.ErrPermission)
		h.pathErr(h.s.FS.Remove(h.p("locked/a.txt")), "remove", "locked/a.txt", fs.ErrPermission)
		if err := h.s.FS.Chmod(h.p("locked"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err = h.s.FS.Stat(h.p("locked/a.txt"))
		h.pathErr(err, "stat", "locked/a.txt", fs.ErrPermission)
		if err := h.s.FS.Chmod(h.p("locked"), 0o755); err != nil {
			t.Fatal(err)
		}
		h.content("locked/a.txt", "x")
	}},
}

// Names lists the conformance checks in the order TestFS runs them.
func Names() []string {
	out := make([]string, 0, len(checks))
	for _, c := range checks {
		out = append(out, c.name)
	}
	return slices.Clip(out)
}
