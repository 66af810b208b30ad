package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/pathguard"
)

// contained resolves a path the model gave (absolute, or relative to the root) and
// requires it to lie inside the root or a worktree, symlinks resolved.
func (w *workspace) contained(p string) (pathguard.Target, error) {
	if p == "" {
		p = "."
	}
	return w.contain.Check(p)
}

// openBase opens an os.Root on the real base of t and returns it with t's real path
// relative to it, so that the I/O cannot leave the base even if a component is swapped
// for a symlink after the check.
func openBase(t pathguard.Target) (*os.Root, string, error) {
	rel, err := filepath.Rel(t.RealBase, t.Real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, "", fmt.Errorf("%s is not below %s", t.Real, t.RealBase)
	}
	r, err := os.OpenRoot(t.RealBase)
	if err != nil {
		return nil, "", err
	}
	return r, rel, nil
}

// display renders an absolute real path for the model: relative to the root
// ('/'-separated) when inside it, else absolute.
func (w *workspace) display(abs string) string {
	rel, err := filepath.Rel(w.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}

// errNotRegular: the name is a FIFO, a device or a socket, which the tools never read.
var errNotRegular = errors.New("not a regular file")

// openRegular opens name below r for reading, without blocking on a FIFO, and returns it
// only when it is a regular file (or a directory, for the caller to refuse): reading a
// FIFO would wait for a writer, a device such as /dev/zero would never end.
func openRegular(r *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		err = errNotRegular
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
