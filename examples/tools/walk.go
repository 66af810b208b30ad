package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"sync/atomic"
)

// dirHandle is an open directory of a walk, shared by the walk and the readers of its
// files: the last one to release it closes it.
type dirHandle struct {
	root *os.Root
	refs atomic.Int32
}

func (d *dirHandle) acquire() { d.refs.Add(1) }

func (d *dirHandle) release() {
	if d.refs.Add(-1) == 0 {
		d.root.Close()
	}
}

// walkFiles calls visit with the slash path (relative to r) of every regular file below
// dir, in lexical order, and the open directory holding it (acquired for visit, which must
// release it, possibly later from another goroutine). It skips .git directories, symbolic
// links and everything the .gitignore files of the walked directories (and those in start,
// for directories above) ignore. An unreadable directory below dir is skipped; dir itself
// must be readable. Cancelling ctx stops the walk with ctx.Err().
//
// Each directory is opened once, as an os.Root below its parent's, so a file is opened
// with one single-name lookup and nothing can lead outside r.
func walkFiles(ctx context.Context, r *os.Root, dir string, start *ignoreSet, visit func(d *dirHandle, rel string) error) error {
	sub, err := r.OpenRoot(dir)
	if err != nil {
		return err
	}
	// The .gitignore files of r's directories above dir apply too.
	if dir != "." {
		segs := strings.Split(dir, "/")
		for i := range segs {
			above := path.Join(segs[:i]...)
			if above == "" {
				above = "."
			}
			if data, err := readGitignore(r, path.Join(above, ".gitignore")); err == nil {
				if rules := parseGitignore(data); len(rules) > 0 {
					d := above
					if d == "." {
						d = ""
					}
					start = &ignoreSet{dir: d, rules: rules, parent: start}
				}
			}
		}
	}
	return walkDir(ctx, sub, dir, start, visit, true)
}

// readDirNames lists a directory, sorted by name.
func readDirNames(r *os.Root) ([]os.DirEntry, error) {
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// walkDir walks the directory r (at rel), then releases it.
func walkDir(ctx context.Context, r *os.Root, rel string, set *ignoreSet, visit func(*dirHandle, string) error, top bool) error {
	d := &dirHandle{root: r}
	d.acquire()
	defer d.release()
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := readDirNames(r)
	if err != nil {
		if top {
			return err
		}
		if len(entries) == 0 {
			return nil // unreadable: skipped
		}
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if data, err := readGitignore(r, ".gitignore"); err == nil {
				if rules := parseGitignore(data); len(rules) > 0 {
					dir := rel
					if dir == "." {
						dir = ""
					}
					set = &ignoreSet{dir: dir, rules: rules, parent: set}
				}
			}
			break
		}
	}
	for _, e := range entries {
		p := path.Join(rel, e.Name())
		switch {
		case e.IsDir():
			if e.Name() == ".git" || set.ignored(p, true) {
				continue
			}
			sub, err := r.OpenRoot(e.Name())
			if err != nil {
				continue // unreadable or vanished: skipped
			}
			if err := walkDir(ctx, sub, p, set, visit, false); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if set.ignored(p, false) {
				continue
			}
			d.acquire()
			if err := visit(d, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxGitignoreSize bounds what is read of one .gitignore file; rules past it are ignored.
const maxGitignoreSize = 1 << 20

// readGitignore reads the .gitignore file name below r: a regular file only (never a
// FIFO, a device, or a link leading out of r), at most maxGitignoreSize bytes.
func readGitignore(r *os.Root, name string) ([]byte, error) {
	f, fi, err := openRegular(r, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.IsDir() {
		return nil, errNotRegular
	}
	return io.ReadAll(io.LimitReader(f, maxGitignoreSize))
}

// errTooLarge: a file over the search size limit, which grep skips.
var errTooLarge = errors.New("file too large to search")

// readInto reads the file name of d into buf (grown as needed) and returns the content,
// or errTooLarge for a file over maxSize bytes.
func readInto(d *dirHandle, name string, buf []byte, maxSize int64) ([]byte, error) {
	f, fi, err := openRegular(d.root, name)
	if err == nil && fi.IsDir() {
		f.Close()
		err = errNotRegular
	}
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	if fi.Size() > maxSize {
		return buf[:0], errTooLarge
	}
	if int64(cap(buf)) < fi.Size()+1 {
		buf = make([]byte, 0, fi.Size()+512)
	}
	buf = buf[:0]
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if int64(len(buf)) > maxSize {
			return buf[:0], errTooLarge // grew while being read
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
	}
}
