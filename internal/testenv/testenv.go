// Package testenv tells the module's tests what the platform under them can do, so that a
// check that cannot mean anything there is skipped with the reason instead of failing,
// and helps them over what Wine lacks. Only tests import it.
//
// Wine (Debian's 8.0, which CI uses to run the windows/amd64 test binaries) differs from
// Windows in four ways that matter here: os.Root's Remove and os.RemoveAll fail with
// "Invalid function" (Go deletes through NtSetInformationFile with
// FileDispositionInformationEx, which Wine does not implement), so [TempDir] empties its
// directory with os.Remove first; CreateSymbolicLinkW reports success and creates nothing,
// so [Symlinks] skips; junctions cannot be created ([Junction] fails); and a rename has no
// POSIX semantics (FileRenameInformationEx), so a file another handle holds open cannot be
// replaced even when that handle shares delete access (the checks that need it skip under
// [Wine], saying so).
package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// Wine reports whether the process is a Windows program running under Wine.
func Wine() bool { return wine() }

// SkipIfWine skips t under Wine; why says what Wine cannot do that t needs.
func SkipIfWine(t testing.TB, why string) {
	t.Helper()
	if Wine() {
		t.Skip("skipped under Wine: " + why)
	}
}

// TempDir returns t.TempDir(). Under Wine it also registers a cleanup, run before
// TempDir's own, that deletes the directory and everything below it with os.Remove
// (DeleteFileW and RemoveDirectoryW, which Wine has), so that TempDir's os.RemoveAll finds
// nothing left to delete but its own empty parent. Every temporary directory of a test
// that runs under Wine must come from here: one left to t.TempDir fails its cleanup.
func TempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if Wine() {
		t.Cleanup(func() { RemoveAll(dir, true) })
	}
	return dir
}

// RemoveAll removes everything below dir, and dir itself when self is true, one entry at a
// time with os.Remove, deepest first; it is os.RemoveAll for tests that run under Wine. It
// makes read-only entries writable first and returns the first error.
func RemoveAll(dir string, self bool) error {
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (p != dir || self) {
			paths = append(paths, p)
		}
		return nil
	})
	var first error
	for _, p := range slices.Backward(paths) {
		err := os.Remove(p)
		if err != nil {
			if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&0o200 == 0 {
				os.Chmod(p, fi.Mode()|0o200)
				err = os.Remove(p)
			}
		}
		if err != nil && !os.IsNotExist(err) && first == nil {
			first = err
		}
	}
	return first
}

// Symlinks skips t when os.Symlink cannot make a working symbolic link in a temporary
// directory: on Windows without the privilege or developer mode, and under Wine, whose
// CreateSymbolicLinkW reports success and creates nothing.
func Symlinks(t testing.TB) {
	t.Helper()
	dir := TempDir(t)
	link := filepath.Join(dir, "link")
	err := os.Symlink("target", link)
	if err == nil {
		var got string
		if got, err = os.Readlink(link); err == nil && got != "target" {
			err = &fs.PathError{Op: "readlink", Path: link, Err: fs.ErrInvalid}
		}
	}
	if err != nil {
		switch {
		case Wine():
			t.Skipf("skipped under Wine: it cannot create symbolic links (os.Symlink reports success, the link does not exist): %v", err)
		case runtime.GOOS == "windows":
			t.Skipf("skipped: symbolic links need the SeCreateSymbolicLinkPrivilege or developer mode on Windows: %v", err)
		default:
			t.Fatalf("cannot create a symbolic link: %v", err)
		}
	}
}

// Abs turns the slash-separated absolute path of a test ("/w/root/a.txt", a MemFS root, say)
// into one the operating system takes as absolute: on Windows it gets the drive C: and
// backslashes (`C:\w\root\a.txt`), since Windows takes "/w/root" as relative to the current
// drive; elsewhere it is returned as it is.
func Abs(slash string) string {
	if runtime.GOOS != "windows" {
		return slash
	}
	return "C:" + filepath.FromSlash(slash)
}
