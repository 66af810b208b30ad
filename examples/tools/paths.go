package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/pathguard"
)

// contained resolves a path the model gave (absolute, or relative to the root) and
// requires it to lie inside the root or a worktree, symlinks resolved.
func (b *Toolbox) contained(p string) (pathguard.Target, error) {
	if p == "" {
		p = "."
	}
	return b.contain.Check(p)
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
func (b *Toolbox) display(abs string) string {
	rel, err := filepath.Rel(b.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}
