package tools

import (
	"path/filepath"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/patch"
)

// WithTreeCache sets the budget, in bytes, of the syntax-tree cache the Toolbox's
// ast_grep_search and ast_grep_replace share (an [astsearch.TreeCache]): a search that
// repeats parses only the files changed since. Default: astsearch.DefaultTreeCacheBytes;
// 0 or less turns the cache off. The cache never changes results (each tree is used only
// for the very bytes it was parsed from); the Toolbox drops the trees of the files its own
// tools write (apply_patch, edit, multi_edit, ast_grep_replace), and a host that writes
// files by other means calls Toolbox.TreeCache().Forget with their paths to free the
// memory of their stale trees at once.
func WithTreeCache(maxBytes int64) Option {
	return func(c *config) { c.treeCache = max(maxBytes, 0) }
}

// TreeCache returns the Toolbox's syntax-tree cache (see WithTreeCache), for its stats and
// for Forget after the host writes files itself. Its entries are named by real absolute
// paths.
func (b *Toolbox) TreeCache() *astsearch.TreeCache { return b.trees }

// forgetWritten drops the trees of the files a patch or an edit wrote, under the names a
// search gave them: the absolute path, and the path with its directory's links resolved
// (searches run in the real base directory).
func (b *Toolbox) forgetWritten(changes []patch.FileChange) {
	for _, c := range changes {
		for _, p := range []string{c.Abs, c.FromAbs} {
			if p == "" {
				continue
			}
			b.trees.Forget(p)
			if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				b.trees.Forget(filepath.Join(dir, filepath.Base(p)))
			}
		}
	}
}
