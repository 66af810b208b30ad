package tools

import (
	"context"
	"io/fs"
	"path"
)

// walkFiles calls visit with the slash path (relative to fsys's root) of every regular
// file below dir, in lexical order. It skips .git directories, symbolic links and
// everything the .gitignore files of the walked directories (and those in start, for
// directories above) ignore. An unreadable directory below dir is skipped; dir itself
// must be readable. Cancelling ctx stops the walk with ctx.Err().
func walkFiles(ctx context.Context, fsys fs.FS, dir string, start *ignoreSet, visit func(rel string) error) error {
	return walkDir(ctx, fsys, dir, start, visit, true)
}

func walkDir(ctx context.Context, fsys fs.FS, dir string, set *ignoreSet, visit func(string) error, top bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if top {
			return err
		}
		return nil
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if data, err := fs.ReadFile(fsys, path.Join(dir, ".gitignore")); err == nil {
				if rules := parseGitignore(data); len(rules) > 0 {
					d := dir
					if d == "." {
						d = ""
					}
					set = &ignoreSet{dir: d, rules: rules, parent: set}
				}
			}
			break
		}
	}
	for _, e := range entries {
		rel := path.Join(dir, e.Name())
		switch {
		case e.IsDir():
			if e.Name() == ".git" || set.ignored(rel, true) {
				continue
			}
			if err := walkDir(ctx, fsys, rel, set, visit, false); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if set.ignored(rel, false) {
				continue
			}
			if err := visit(rel); err != nil {
				return err
			}
		}
	}
	return nil
}
