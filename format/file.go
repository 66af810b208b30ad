package format

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/harnesskit/harnesskit/wfs"
)

// DefaultMaxFileSize is the largest file [Runner.File] formats: the write layer's limit. A
// larger one is refused before it is read, and so is one that grows past it before the
// formatted file is written back.
const DefaultMaxFileSize = wfs.DefaultMaxFileSize

func (r *Runner) maxFileSize() int64 {
	if r.MaxFileSize > 0 {
		return r.MaxFileSize
	}
	return DefaultMaxFileSize
}

// File formats the file at path (absolute, or relative to env.Root; it must be inside the
// root) and writes the result back through the write layer (package wfs) on an os.Root of
// env.Root: only if it differs, as one transaction that every harnesskit writer in any
// process respects (a lock on the file's directory, a re-check that the file still holds what
// was read — size, mode, time and identity first, then the content — a journal, fsync of the
// file and the directory), keeping the file's whole mode (setuid, setgid, sticky), owner and
// group where the process may set them, extended attributes and ACLs; a file with several hard
// links is written in place, so the links stay one file. When the file changed meanwhile the
// other writer's bytes stay and Result.Err is [ErrConcurrentChange] (also when another writer
// holds the lock past the wait). Before it reads, File finishes or undoes the commits that
// dead writers left interrupted in the tree (Result.Recovered). Result.After is what is on
// disk afterwards. A formatting failure leaves the file untouched.
//
// A symbolic link is followed inside the root: the file it names is formatted and the link
// stays a link. Refused before anything is written, with an [ErrIO] error that says why and
// also matches the write layer's sentinel: a FIFO, socket or device (wfs.ErrSpecial; never
// opened, so File never blocks on one), a file the process may not write (wfs.ErrReadOnly and
// fs.ErrPermission: no write bit for the caller's class, or none at all, as in 0444, also for
// root), a file over MaxFileSize ([DefaultMaxFileSize]; wfs.ErrTooLarge). Reading honours
// ctx.
func (r *Runner) File(ctx context.Context, env Env, cfg Config, reg []Def, file string) Result {
	_, abs, inside := env.locate(file)
	if !inside {
		return Result{Path: file, Err: &Error{Kind: ErrOutside, Path: file, Msg: "the file is outside the root " + env.Root + "; format only files inside it"}}
	}
	fsys, err := wfs.NewOSFS(env.Root)
	if err != nil {
		return Result{Path: file, Err: &Error{Kind: ErrIO, Path: file, Err: err}}
	}
	defer fsys.Close()
	recovered, rerr := wfs.Recover(ctx, fsys, env.Root)
	fail := func(e *Error) Result {
		e.Path = file
		return Result{Path: file, Err: e, Recovered: recovered}
	}
	if rerr != nil {
		return fail(&Error{Kind: ErrIO, Err: rerr, Msg: "could not finish an interrupted commit in the tree first: " + rerr.Error()})
	}
	real, err := wfs.Follow(fsys, abs)
	if err != nil {
		return fail(readError(err, env.Root))
	}
	if r, err := filepath.Rel(env.Root, real); err != nil || !filepath.IsLocal(r) {
		return fail(&Error{Kind: ErrOutside, Msg: "the path leads, through a symbolic link, to " + real + ", outside the root " + env.Root + "; format the file inside the root instead"})
	}
	limit := r.maxFileSize()
	snap, err := wfs.Read(ctx, fsys, real, limit)
	if err != nil {
		return fail(readError(err, env.Root))
	}
	if e := refuse(snap, limit); e != nil {
		return fail(e)
	}
	tx, err := wfs.Begin(fsys, env.Root, wfs.WithMaxFileSize(limit))
	if err != nil {
		return fail(&Error{Kind: ErrIO, Err: err, Msg: err.Error()})
	}
	defer tx.Abort()
	named := file // the formatter is chosen by the name of the file a link leads to
	if real != abs {
		named = real
	}
	res := r.run(ctx, env, cfg, reg, named, snap.Data, tx.Scratch)
	res.Path, res.Recovered = file, recovered
	if res.Err != nil || !res.Changed {
		return res
	}
	tx.Write(snap, res.After)
	if _, err := tx.Commit(ctx); err != nil {
		res.Err = commitError(err).at(file, res.Formatter)
		res.After = snap.Data
		if now, rerr := wfs.Read(context.WithoutCancel(ctx), fsys, real, limit); rerr == nil && now.Type == wfs.TypeFile && !now.Large {
			res.After = now.Data
		}
		res.Changed = !bytes.Equal(snap.Data, res.After)
		res.Diff = ""
	}
	return res
}

// at sets e's path and, when unset, its formatter.
func (e *Error) at(path, formatter string) *Error {
	e.Path = path
	if e.Formatter == "" {
		e.Formatter = formatter
	}
	return e
}

// refuse says why File will not write the file snap describes, or nil.
func refuse(snap wfs.Snapshot, limit int64) *Error {
	io := func(err error, msg string) *Error { return &Error{Kind: ErrIO, Err: err, Msg: msg} }
	switch {
	case snap.Type == wfs.TypeAbsent:
		return io(fs.ErrNotExist, "the file does not exist; write it first, then format it")
	case snap.Type == wfs.TypeDir:
		return io(fs.ErrInvalid, "the path is a directory; format a file")
	case snap.Type == wfs.TypeSpecial:
		return io(wfs.ErrSpecial, fmt.Sprintf("the path is not a regular file but a %s; it was not opened", kindOf(snap.Info.Mode())))
	case snap.Type != wfs.TypeFile:
		return io(fs.ErrInvalid, "the path is not a regular file")
	case snap.Large:
		return io(wfs.ErrTooLarge, fmt.Sprintf("the file has %d bytes, more than the %d bytes format reads; it was left as written", snap.Info.Size(), limit))
	case !snap.Writable():
		return io(wfs.ErrReadOnly, fmt.Sprintf("the file is read-only (mode %04o); format writes only files that may be written, so it was left as written", snap.Info.Mode().Perm()))
	}
	return nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}

// readError turns a failure of following or reading the file into the package's error.
func readError(err error, root string) *Error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: ErrTimeout, Err: err, Msg: "stopped reading the file: " + err.Error()}
	case errors.Is(err, wfs.ErrOutside):
		return &Error{Kind: ErrOutside, Err: err, Msg: "the path leads, through a symbolic link, outside the root " + root + "; format the file inside the root instead"}
	case errors.Is(err, wfs.ErrChanged):
		return &Error{Kind: ErrConcurrentChange, Err: err, Msg: "the file kept changing while it was read; re-read it"}
	}
	return &Error{Kind: ErrIO, Err: err, Msg: "could not read the file: " + err.Error()}
}

// commitError turns a failed write-back into the package's error.
func commitError(err error) *Error {
	switch {
	case errors.Is(err, wfs.ErrChanged):
		return &Error{Kind: ErrConcurrentChange, Err: err,
			Msg: "the file changed while it was being formatted; the other change was kept and the formatting dropped (re-read the file)"}
	case errors.Is(err, wfs.ErrBusy):
		return &Error{Kind: ErrConcurrentChange, Err: err,
			Msg: "another writer kept the file's directory locked, so the formatting was dropped and the file left as it is (re-read the file)"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: ErrTimeout, Err: err, Msg: "stopped before the formatted file was written: " + err.Error()}
	case errors.Is(err, wfs.ErrReadOnly), errors.Is(err, wfs.ErrSpecial), errors.Is(err, wfs.ErrTooLarge):
		return &Error{Kind: ErrIO, Err: err, Msg: "the file can no longer be written: " + err.Error()}
	}
	return &Error{Kind: ErrIO, Err: err, Msg: "could not write the formatted file: " + err.Error()}
}
