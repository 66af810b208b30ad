package wfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A Type says what a name held when it was read.
type Type uint8

const (
	TypeAbsent  Type = iota // nothing (also when a parent is missing or not a directory)
	TypeFile                // a regular file
	TypeDir                 // a directory
	TypeSymlink             // a symbolic link (not followed)
	TypeSpecial             // a FIFO, socket or device: never opened
)

func (t Type) String() string {
	switch t {
	case TypeAbsent:
		return "absent"
	case TypeFile:
		return "file"
	case TypeDir:
		return "directory"
	case TypeSymlink:
		return "symbolic link"
	case TypeSpecial:
		return "special file"
	}
	return "type(" + string(rune('0'+t)) + ")"
}

// A Snapshot is what a writer saw of one name ([Read], [Absent], [Committed].After): what a
// [Tx] checks before it writes.
type Snapshot struct {
	Name   string      // the absolute name read; a final symbolic link is described, not followed
	Type   Type        // what the name held
	Info   fs.FileInfo // its Lstat; nil when absent
	Data   []byte      // TypeFile within the limit: the contents
	Large  bool        // TypeFile over the limit: Data was not read (the file can be deleted, not written)
	Target string      // TypeSymlink: the link's target as stored
}

// Absent returns the snapshot of a name that must not exist at the commit.
func Absent(name string) Snapshot { return Snapshot{Name: name, Type: TypeAbsent} }

// isNotExist reports whether err says a name does not exist (also when a parent is a regular
// file).
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// readChunk is how much Read reads between two looks at its context.
const readChunk = 1 << 20

// Read describes name, without following a final symbolic link; a regular file over limit is
// not read (Large), a special file never opened. A name swapped or resized while it is read
// is read again (three times, then ErrChanged).
//
// Errors: an [*Error] (Op "read") wrapping the file system's error, ErrChanged, or ctx.Err().
func Read(ctx context.Context, fsys FS, name string, limit int64) (Snapshot, error) {
	var lastErr error
	for range 3 {
		s, err := readOnce(ctx, fsys, name, limit)
		if !errors.Is(err, errSwapped) {
			return s, err
		}
		lastErr = err
	}
	return Snapshot{}, &Error{Op: "read", Name: name, Err: errors.Join(ErrChanged, lastErr)}
}

var errSwapped = errors.New("the name was replaced while it was read")

func readOnce(ctx context.Context, fsys FS, name string, limit int64) (Snapshot, error) {
	s := Snapshot{Name: name}
	if err := ctx.Err(); err != nil {
		return s, err
	}
	fi, err := fsys.Lstat(name)
	switch {
	case isNotExist(err):
		return s, nil
	case err != nil:
		return s, &Error{Op: "read", Name: name, Err: err}
	}
	s.Info = fi
	switch m := fi.Mode(); {
	case m.IsDir():
		s.Type = TypeDir
		return s, nil
	case m&fs.ModeSymlink != 0:
		s.Type = TypeSymlink
		if s.Target, err = fsys.Readlink(name); err != nil {
			return s, &Error{Op: "read", Name: name, Err: err}
		}
		return s, nil
	case !m.IsRegular():
		s.Type = TypeSpecial
		return s, nil
	}
	s.Type = TypeFile
	if fi.Size() > limit {
		s.Large = true
		return s, nil
	}
	data, ofi, err := readFile(ctx, fsys, name, fi, fi.Size())
	if err != nil {
		return s, err
	}
	s.Data, s.Info = data, ofi
	return s, nil
}

// readFile reads the regular file name, which Lstat described as fi, expecting size bytes:
// it opens it non-blocking, checks that the open file is fi's, and reads at most size+1 bytes
// in chunks, honouring ctx. It returns errSwapped when the name now leads elsewhere or the
// size changed.
func readFile(ctx context.Context, fsys FS, name string, fi fs.FileInfo, size int64) ([]byte, fs.FileInfo, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if isNotExist(err) {
			return nil, nil, errSwapped
		}
		return nil, nil, &Error{Op: "read", Name: name, Err: err}
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return nil, nil, &Error{Op: "read", Name: name, Err: err}
	}
	if !ofi.Mode().IsRegular() || !SameFile(ofi, fi) {
		return nil, nil, errSwapped
	}
	buf := make([]byte, 0, size+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		want := min(int64(cap(buf)), int64(len(buf))+readChunk)
		n, err := io.ReadFull(f, buf[len(buf):want])
		buf = buf[:len(buf)+n]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, nil, &Error{Op: "read", Name: name, Err: err}
		}
		if int64(len(buf)) > size {
			return nil, nil, errSwapped // it grew while being read
		}
	}
	if int64(len(buf)) != size {
		return nil, nil, errSwapped
	}
	return buf, ofi, nil
}

// Follow returns name with every symbolic link on the way followed, the final one too (at most
// [MaxSymlinks], else syscall.ELOOP), and "." and ".." resolved; a missing element ends it.
func Follow(fsys FS, name string) (string, error) {
	if !filepath.IsAbs(name) {
		return "", &fs.PathError{Op: "follow", Path: name, Err: ErrNotAbs}
	}
	vol := filepath.VolumeName(name)
	root := vol + string(filepath.Separator)
	cur := root
	todo := elems(name[len(vol):])
	hops := 0
	for len(todo) > 0 {
		e := todo[0]
		todo = todo[1:]
		switch e {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, e)
		fi, err := fsys.Lstat(next)
		if isNotExist(err) {
			return filepath.Join(append([]string{next}, todo...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > MaxSymlinks {
			return "", &fs.PathError{Op: "follow", Path: name, Err: syscall.ELOOP}
		}
		t, err := fsys.Readlink(next)
		if err != nil {
			return "", err
		}
		if tv := filepath.VolumeName(t); tv != "" || filepath.IsAbs(t) || (t != "" && os.IsPathSeparator(t[0])) {
			if tv == "" {
				tv = vol
			}
			vol, cur = tv, tv+string(filepath.Separator)
			t = t[len(filepath.VolumeName(t)):]
		}
		todo = append(elems(t), todo...)
	}
	return cur, nil
}

// Writable reports whether s is a regular file this process may write.
func (s Snapshot) Writable() bool { return s.Type == TypeFile && s.Info != nil && writable(s.Info) }
