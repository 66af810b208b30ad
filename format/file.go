package format

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"
)

// DefaultMaxFileSize is the largest file [Runner.File] formats; a larger one is refused
// before it is read, and a file that grows past it while it is read is refused too.
const DefaultMaxFileSize = 64 << 20

// maxLinks is how many symbolic links File follows from the path it is given to the file.
const maxLinks = 40

func (r *Runner) maxFileSize() int64 {
	if r.MaxFileSize > 0 {
		return r.MaxFileSize
	}
	return DefaultMaxFileSize
}

// File formats the file at path (absolute, or relative to env.Root; it must be inside the
// root) and writes the result back: only if it differs, atomically (a temporary file renamed
// over it, keeping its whole mode — setuid, setgid and sticky bits included — and its owner
// where the process may set it), and only if the file still holds what was read before
// formatting; otherwise Result.Err is [ErrConcurrentChange] and the other writer's bytes
// stay. I/O goes through an os.Root opened on env.Root. Result.After is what is on disk
// afterwards. A formatting failure leaves the file untouched.
//
// A symbolic link is followed (to at most 40 links, all inside the root): the file it names
// is formatted and the link stays a link. Refused before anything is written, with an
// [ErrIO] error that says why: a FIFO, socket or device (never opened, so File never blocks
// on one), a file the process may not write (no write bit for its owner class; for root, no
// write bit at all), a file with more than one hard link (a rename would split it), and a
// file over MaxFileSize ([DefaultMaxFileSize]) — also one that grows past it while it is
// read, which is read no further. Reading honours ctx.
func (r *Runner) File(ctx context.Context, env Env, cfg Config, reg []Def, file string) Result {
	rel, _, inside := env.locate(file)
	if !inside {
		return Result{Path: file, Err: &Error{Kind: ErrOutside, Path: file, Msg: "the file is outside the root " + env.Root + "; format only files inside it"}}
	}
	root, err := os.OpenRoot(env.Root)
	if err != nil {
		return Result{Path: file, Err: &Error{Kind: ErrIO, Path: file, Err: err}}
	}
	defer root.Close()
	real, ferr := followLinks(root, filepath.FromSlash(rel))
	if ferr != nil {
		return Result{Path: file, Err: ferr.at(file, "")}
	}
	t, ferr := readTarget(ctx, root, real, r.maxFileSize())
	if ferr != nil {
		return Result{Path: file, Err: ferr.at(file, "")}
	}
	named := file // the formatter is chosen by the name of the file the link leads to
	if real != filepath.FromSlash(rel) {
		named = filepath.Join(env.Root, real)
	}
	res := r.Bytes(ctx, env, cfg, reg, named, t.data)
	res.Path = file
	if res.Err != nil || !res.Changed {
		return res
	}
	cur, werr := writeBack(ctx, root, real, t, res.After, r.maxFileSize())
	if werr != nil {
		res.Err = werr.at(file, res.Formatter)
		res.After = t.data
		if cur != nil {
			res.After = cur
		}
		res.Changed = !bytes.Equal(t.data, res.After)
		res.Diff = ""
	}
	return res
}

// ioError is an ErrIO error whose Path the caller fills in.
func ioError(err error, msg string) *Error {
	return &Error{Kind: ErrIO, Err: err, Msg: msg}
}

// at sets e's path and formatter.
func (e *Error) at(path, formatter string) *Error {
	e.Path = path
	if e.Formatter == "" {
		e.Formatter = formatter
	}
	return e
}

// followLinks resolves the final symbolic links of name (relative to root), at most
// maxLinks, and returns the name of the file they lead to, relative to root. A link that
// leads outside the root is refused with ErrOutside.
func followLinks(root *os.Root, name string) (string, *Error) {
	for range maxLinks {
		fi, err := root.Lstat(name)
		if err != nil {
			return "", ioError(err, "could not read the file: "+err.Error())
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		target, err := root.Readlink(name)
		if err != nil {
			return "", ioError(err, "could not read the symbolic link: "+err.Error())
		}
		if filepath.IsAbs(target) {
			rel, err := filepath.Rel(root.Name(), target)
			if err != nil || !filepath.IsLocal(rel) {
				return "", &Error{Kind: ErrOutside, Msg: "the symbolic link points to " + target + ", outside the root " + root.Name() + "; format the file inside the root instead"}
			}
			name = rel
			continue
		}
		next := filepath.Join(filepath.Dir(name), target)
		if !filepath.IsLocal(next) {
			return "", &Error{Kind: ErrOutside, Msg: "the symbolic link points to " + target + ", outside the root " + root.Name() + "; format the file inside the root instead"}
		}
		name = next
	}
	return "", ioError(syscall.ELOOP, fmt.Sprintf("more than %d symbolic links lead from the path to the file", maxLinks))
}

// target is a file as File read it.
type target struct {
	data []byte
	info fs.FileInfo // Lstat before the read
}

// readTarget reads the regular file name (relative to root) for formatting, refusing what
// File refuses. The file is opened without blocking and checked again on the open handle,
// and read at most limit+1 bytes, in chunks, with ctx checked between them.
func readTarget(ctx context.Context, root *os.Root, name string, limit int64) (target, *Error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return target{}, ioError(err, "could not read the file: "+err.Error())
	}
	if e := refuse(fi, limit); e != nil {
		return target{}, e
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return target{}, ioError(err, "could not read the file: "+err.Error())
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) || !now.Mode().IsRegular() {
		return target{}, &Error{Kind: ErrConcurrentChange, Msg: "the file was replaced while it was being opened; re-read it"}
	}
	data, ferr := readBounded(ctx, f, limit)
	if ferr != nil {
		return target{}, ferr
	}
	return target{data: data, info: fi}, nil
}

// refuse says why File will not write the file fi describes, or nil.
func refuse(fi fs.FileInfo, limit int64) *Error {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return ioError(syscall.EISDIR, "the path is a directory; format a file")
	case !m.IsRegular():
		return ioError(fs.ErrInvalid, fmt.Sprintf("the path is not a regular file but a %s; it was not opened", kindOf(m)))
	case fi.Size() > limit:
		return ioError(errTooLarge, fmt.Sprintf("the file has %d bytes, more than the %d bytes format reads; it was left as written", fi.Size(), limit))
	case !mayWrite(fi):
		return ioError(fs.ErrPermission, fmt.Sprintf("the file is read-only (mode %04o); format writes only files that may be written, so it was left as written", m.Perm()))
	case links(fi) > 1:
		return ioError(errLinked, fmt.Sprintf("the file has %d hard links, and replacing it would split them; it was left as written", links(fi)))
	}
	return nil
}

var (
	errTooLarge = errors.New("file too large")
	errLinked   = errors.New("file has several hard links")
)

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

// readBounded reads f to its end, failing when it holds more than limit bytes or ctx ends.
func readBounded(ctx context.Context, f io.Reader, limit int64) ([]byte, *Error) {
	var buf bytes.Buffer
	chunk := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, &Error{Kind: ErrTimeout, Err: err, Msg: "stopped reading the file: " + err.Error()}
		}
		n, err := f.Read(chunk)
		buf.Write(chunk[:n])
		if int64(buf.Len()) > limit {
			return nil, ioError(errTooLarge, fmt.Sprintf("the file grew past the %d bytes format reads while it was read; it was left as written", limit))
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, ioError(err, "could not read the file: "+err.Error())
		}
	}
}

// writeBack replaces name with data if it still holds t. On a concurrent change it returns
// the current content, when it could be read within the limit, and ErrConcurrentChange.
func writeBack(ctx context.Context, root *os.Root, name string, t target, data []byte, limit int64) ([]byte, *Error) {
	if cur, e := unchanged(ctx, root, name, t, limit); e != nil {
		return cur, e
	}
	dir, base := filepath.Split(name)
	tmpBase, err := tempName(base, ".tmp")
	if err != nil {
		return nil, ioError(err, "could not name a temporary file: "+err.Error())
	}
	tmp := filepath.Join(dir, tmpBase)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, ioError(err, "could not create a temporary file next to the file: "+err.Error())
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = keepOwner(root, tmp, t.info)
	}
	if werr == nil {
		werr = root.Chmod(tmp, t.info.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		root.Remove(tmp)
		return nil, ioError(werr, "could not write the formatted file: "+werr.Error())
	}
	// Check again right before the rename: the window left is the rename itself.
	if cur, e := unchanged(ctx, root, name, t, limit); e != nil {
		root.Remove(tmp)
		return cur, e
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return nil, ioError(err, "could not write the formatted file: "+err.Error())
	}
	if d, err := root.Open(dirOrDot(dir)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil, nil
}

func dirOrDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// unchanged checks that name still holds what t read: the same file, size and modification
// time first, then the content, read no further than its size. When they differ, the current
// content is read (up to limit) only to report it.
func unchanged(ctx context.Context, root *os.Root, name string, t target, limit int64) ([]byte, *Error) {
	changed := &Error{Kind: ErrConcurrentChange,
		Msg: "the file changed while it was being formatted; the other change was kept and the formatting dropped (re-read the file)"}
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, changed
	}
	same := os.SameFile(fi, t.info) && fi.Size() == t.info.Size() && fi.ModTime().Equal(t.info.ModTime()) && fi.Mode() == t.info.Mode()
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, changed
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, changed
	}
	defer f.Close()
	read := int64(len(t.data))
	if !same {
		read = limit // only to report what is there now
	}
	cur, e := readBounded(ctx, f, read)
	switch {
	case e != nil && e.Kind == ErrTimeout:
		return nil, e
	case e != nil:
		return nil, changed
	case !same || !bytes.Equal(cur, t.data):
		return cur, changed
	}
	return nil, nil
}

// tempName returns a hidden name in the directory of base for a temporary file:
// "." + base + ".hk-" + 16 hex digits + suffix, with base cut on a UTF-8 boundary so that
// the whole name fits 255 bytes; the write layer's scheme.
func tempName(base, suffix string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	room := 255 - len(".") - len(".hk-") - 16 - len(suffix)
	if len(base) > min(room, 200) {
		base = base[:min(room, 200)]
		for len(base) > 0 && !utf8.ValidString(base) {
			base = base[:len(base)-1]
		}
	}
	return "." + base + ".hk-" + hex.EncodeToString(b[:]) + suffix, nil
}
