package wfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// DirFS returns a read-only [io/fs.FS] (ReadFile, Stat, ReadDir) of the directory dir of fsys
// for readers; it never opens a special file (syscall.EINVAL).
func DirFS(fsys FS, dir string) fs.FS { return &dirFS{fsys: fsys, dir: dir} }

type dirFS struct {
	fsys FS
	dir  string
}

var (
	_ fs.ReadFileFS = (*dirFS)(nil)
	_ fs.StatFS     = (*dirFS)(nil)
	_ fs.ReadDirFS  = (*dirFS)(nil)
)

func (d *dirFS) full(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(d.dir, filepath.FromSlash(name)), nil
}

// rename puts the fs.FS name back into an error of the underlying FS.
func rename(op, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

func (d *dirFS) Open(name string) (fs.File, error) {
	full, err := d.full("open", name)
	if err != nil {
		return nil, err
	}
	fi, err := d.fsys.Stat(full)
	if err != nil {
		return nil, rename("open", name, err)
	}
	if fi.IsDir() {
		return &dirFile{d: d, name: name, full: full, fi: fi}, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EINVAL}
	}
	f, err := d.fsys.OpenFile(full, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, rename("open", name, err)
	}
	return &viewFile{f: f, name: name}, nil
}

func (d *dirFS) ReadFile(name string) ([]byte, error) {
	full, err := d.full("open", name)
	if err != nil {
		return nil, err
	}
	fi, err := d.fsys.Stat(full)
	if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EINVAL}
	}
	b, err := d.fsys.ReadFile(full)
	if err != nil {
		return nil, rename("open", name, err)
	}
	return b, nil
}

func (d *dirFS) Stat(name string) (fs.FileInfo, error) {
	full, err := d.full("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := d.fsys.Stat(full)
	if err != nil {
		return nil, rename("stat", name, err)
	}
	return fi, nil
}

func (d *dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	full, err := d.full("readdir", name)
	if err != nil {
		return nil, err
	}
	rd, ok := d.fsys.(ReadDirFS)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.ErrUnsupported}
	}
	ents, err := rd.ReadDir(full)
	if err != nil {
		return nil, rename("readdir", name, err)
	}
	return ents, nil
}

// viewFile is a regular file opened through DirFS.
type viewFile struct {
	f    File
	name string
}

func (v *viewFile) Read(p []byte) (int, error) {
	n, err := v.f.Read(p)
	if err != nil && err != io.EOF {
		err = rename("read", v.name, err)
	}
	return n, err
}
func (v *viewFile) Stat() (fs.FileInfo, error) { return v.f.Stat() }
func (v *viewFile) Close() error               { return v.f.Close() }

// dirFile is a directory opened through DirFS.
type dirFile struct {
	d          *dirFS
	name, full string
	fi         fs.FileInfo
	ents       []fs.DirEntry
	read       bool
}

func (f *dirFile) Stat() (fs.FileInfo, error) { return f.fi, nil }
func (f *dirFile) Close() error               { return nil }
func (f *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EISDIR}
}

func (f *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !f.read {
		ents, err := f.d.ReadDir(f.name)
		if err != nil {
			return nil, err
		}
		f.ents, f.read = ents, true
	}
	if n <= 0 {
		out := f.ents
		f.ents = nil
		return out, nil
	}
	if len(f.ents) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(f.ents))
	out := f.ents[:k]
	f.ents = f.ents[k:]
	return out, nil
}
