package astsearch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/internal/fmtreport"
	"github.com/harnesskit/harnesskit/wfs"
)

// Apply writes the plan through w, where root is the absolute OS directory the plan's paths
// are relative to (the directory the searched fs.FS was rooted at), as one [wfs.Tx]: all files
// or none. Each file is read again (a symbolic link is followed to its target, which must lie
// inside root: the target is written, the link stays) and compared with the content it was
// planned from ([ErrConflict] if one changed, or is no longer a regular file); a file the
// process may not write (0444, also for a superuser), a FIFO, socket or device, and a file
// over the size limit are refused before anything is written. The transaction then locks the
// files' directories against every other harnesskit writer in any process, checks each file
// again, journals, stages the new contents next to their targets keeping each file's whole
// mode, owner, group, extended attributes and ACLs (a file with several hard links is
// written in place), switches them in and syncs; a failure restores every file, and a crash
// is finished or undone by the next commit or [wfs.Recover] on root. [WithFormatter] formats
// each new content before it is written. The files written are dropped from the request's
// [TreeCache], if it had one.
//
// Errors: [ErrBlocked] (root not absolute, a link leading out of root), ErrConflict (changed,
// not a regular file, two paths of one file), a [*FileError] wrapping the write layer's
// refusal (errors.Is with wfs.ErrBusy, wfs.ErrReadOnly and fs.ErrPermission, wfs.ErrTooLarge,
// wfs.ErrSpecial) or an I/O failure (its message says whether everything was rolled back),
// ctx.Err() before anything was written.
func (p *Plan) Apply(ctx context.Context, w wfs.FS, root string, opts ...ApplyOption) (*Applied, error) {
	var cfg applyConfig
	for _, o := range opts {
		o(&cfg)
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("%w: Apply needs the absolute directory of the searched tree, got %q", ErrBlocked, root)
	}
	root = filepath.Clean(root)
	realRoot, err := wfs.Follow(w, root)
	if err != nil {
		return nil, &FileError{Op: "resolve", Path: root, Err: err}
	}
	tx, err := wfs.Begin(w, root)
	if err != nil {
		return nil, err
	}
	defer tx.Abort()
	applied := &Applied{}
	byReal := map[string]string{} // real path → the plan path that named it
	var written []*FilePlan
	defer func() {
		// Whatever the commit did: the trees of these files are stale or soon will be.
		for _, fp := range written {
			p.cache.Forget(cacheName(p.dir, fp.Path))
		}
	}()
	for i := range p.Files {
		fp := &p.Files[i]
		abs := filepath.Join(root, filepath.FromSlash(fp.Path))
		real, err := wfs.Follow(w, abs)
		if err != nil {
			return nil, &FileError{Op: "resolve", Path: fp.Path, Err: err}
		}
		if !inside(realRoot, real) && !inside(root, real) {
			return nil, fmt.Errorf("%w: %s is a symbolic link to %s, outside the searched tree %s; nothing was written", ErrBlocked, fp.Path, real, root)
		}
		if first, ok := byReal[real]; ok {
			return nil, fmt.Errorf("%w: %s and %s are the same file (through a symbolic link); nothing was written. Rewrite one of the two names", ErrConflict, first, fp.Path)
		}
		byReal[real] = fp.Path
		snap, err := wfs.Read(ctx, w, real, wfs.DefaultMaxFileSize)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return nil, &FileError{Op: "read", Path: fp.Path, Err: err}
		case snap.Type == wfs.TypeSpecial:
			return nil, &FileError{Op: "write", Path: fp.Path, Err: fmt.Errorf("%w; nothing was written", wfs.ErrSpecial)}
		case snap.Type != wfs.TypeFile:
			return nil, fmt.Errorf("%w: %s is no longer a regular file (%s); nothing was written. Plan the rewrite again", ErrConflict, fp.Path, snap.Type)
		case snap.Large:
			return nil, &FileError{Op: "write", Path: fp.Path, Err: fmt.Errorf("%w (%d bytes; the limit is %d bytes); nothing was written", wfs.ErrTooLarge, snap.Info.Size(), wfs.DefaultMaxFileSize)}
		case !bytes.Equal(snap.Data, fp.original):
			return nil, fmt.Errorf("%w: %s changed since the rewrite was planned; nothing was written. Plan the rewrite again", ErrConflict, fp.Path)
		case !snap.Writable():
			return nil, &FileError{Op: "write", Path: fp.Path, Err: fmt.Errorf("%w (no write permission); nothing was written. Make it writable first if it is meant to be edited", wfs.ErrReadOnly)}
		}
		data := fp.Content
		if cfg.formatter != nil {
			o := fmtreport.Run(ctx, cfg.formatter.Format, abs, fp.Path, "rewrite", data)
			applied.Formatted = append(applied.Formatted, FormatReport{Path: fp.Path, Formatter: o.Formatter, Diff: o.Diff, Note: o.Note})
			data = o.Out
		}
		tx.Write(snap, data)
		written = append(written, fp)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := tx.Commit(ctx); err != nil {
		return nil, applyErr(err, root, written)
	}
	for _, fp := range written {
		applied.Files = append(applied.Files, fp.Path)
		applied.Edits += len(fp.Edits)
	}
	return applied, nil
}

// inside reports whether the clean absolute path p is dir or lies below it.
func inside(dir, p string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// applyErr turns a failed commit into the package's errors, naming the file as the plan
// does.
func applyErr(err error, root string, written []*FilePlan) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if !errors.As(err, new(*wfs.Error)) {
			return err
		}
	}
	path := ""
	var we *wfs.Error
	if errors.As(err, &we) {
		path = we.Name
		if rel, rerr := filepath.Rel(root, we.Name); rerr == nil && !strings.HasPrefix(rel, "..") {
			path = filepath.ToSlash(rel)
		}
	}
	if errors.Is(err, wfs.ErrChanged) {
		return fmt.Errorf("%w: %s changed while applying; nothing was written. Plan the rewrite again", ErrConflict, path)
	}
	var names []string
	for _, fp := range written {
		names = append(names, fp.Path)
	}
	return &FileError{Op: "write", Path: path, Err: fmt.Errorf("%w (files of the rewrite: %s)", err, strings.Join(names, ", "))}
}
