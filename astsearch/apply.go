package astsearch

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/wfs"
)

// WriteFS is the file-system seam of [Plan.Apply], with the same methods as the patch
// package's: every name is an absolute, OS-native path and errors come in the os
// package's shape. [NewOSFS] and [NewMemFS] implement it.
type WriteFS interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	ReadFile(name string) ([]byte, error)
	OpenFile(name string, flag int, perm fs.FileMode) (wfs.File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
	Mkdir(name string, perm fs.FileMode) error
	Chmod(name string, mode fs.FileMode) error
}

// NewOSFS returns a WriteFS over real directories, one os.Root per base; names outside
// every base are refused. Close it when done.
func NewOSFS(bases ...string) (*wfs.OSFS, error) { return wfs.NewOSFS(bases...) }

// NewMemFS returns an empty in-memory WriteFS, for tests and hosts without a disk.
func NewMemFS() *wfs.MemFS { return wfs.NewMemFS() }

var (
	_ WriteFS = (*wfs.OSFS)(nil)
	_ WriteFS = (*wfs.MemFS)(nil)
)

type stagedFile struct {
	fp   *FilePlan
	abs  string
	tmp  string
	mode fs.FileMode
	data []byte
}

// Apply writes the plan into w, where root is the absolute OS directory the plan's paths
// are relative to (the directory the searched fs.FS was rooted at). It is all or nothing:
// every file is checked against the content it was planned from (ErrConflict if one
// changed, and nothing is written), the new contents are staged as temporary files next to
// their targets, and the temporaries are renamed into place; if a rename fails, the files
// already replaced are restored from the plan's original bytes and every temporary is
// removed. File modes are kept. A read-only target fails the apply before any rename, and
// a target that is no longer a regular file (a symbolic link, say) is a conflict.
//
// Errors: ErrConflict, a *FileError for a write failure (its message says which files
// were restored), ctx.Err() before the first rename.
func (p *Plan) Apply(ctx context.Context, w WriteFS, root string, opts ...ApplyOption) (*Applied, error) {
	var cfg applyConfig
	for _, o := range opts {
		o(&cfg)
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("%w: Apply needs the absolute directory of the searched tree, got %q", ErrBlocked, root)
	}
	var st []stagedFile
	cleanup := func() {
		for _, s := range st {
			if s.tmp != "" {
				_ = w.Remove(s.tmp)
			}
		}
	}
	applied := &Applied{}
	// 1. Check every file before writing anything.
	for i := range p.Files {
		fp := &p.Files[i]
		abs := filepath.Join(root, filepath.FromSlash(fp.Path))
		info, err := w.Lstat(abs)
		if err != nil {
			return nil, &FileError{Op: "stat", Path: fp.Path, Err: err}
		}
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: %s is not a regular file (%s); nothing was written. Plan the rewrite again on the file it names, not on a link", ErrConflict, fp.Path, info.Mode().Type())
		}
		if info.Mode().Perm()&0o200 == 0 {
			return nil, &FileError{Op: "write", Path: fp.Path, Err: fmt.Errorf("%w: the file is read-only; nothing was written", fs.ErrPermission)}
		}
		cur, err := w.ReadFile(abs)
		if err != nil {
			return nil, &FileError{Op: "read", Path: fp.Path, Err: err}
		}
		if sha256.Sum256(cur) != fp.hash {
			return nil, fmt.Errorf("%w: %s changed since the rewrite was planned; nothing was written. Plan the rewrite again", ErrConflict, fp.Path)
		}
		data := fp.Content
		if cfg.formatter != nil {
			rep := FormatReport{Path: fp.Path}
			out, name, ferr := cfg.formatter.Format(ctx, abs, data)
			switch {
			case ferr != nil:
				rep.Formatter, rep.Note = name, "formatter failed, the edit is written as is: "+ferr.Error()
			case name != "":
				rep.Formatter = name
				if string(out) != string(data) {
					d := lineDiff(fp.Path, data, out)
					if strings.Count(d, "\n") <= 40 {
						rep.Diff = d
					} else {
						rep.Note = "the formatter changed more than 40 lines; re-read the file"
					}
					data = out
				}
			}
			applied.Formatted = append(applied.Formatted, rep)
		}
		st = append(st, stagedFile{fp: fp, abs: abs, mode: info.Mode().Perm(), data: data})
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// 2. Stage.
	for i := range st {
		tmp, err := writeTemp(w, st[i].abs, st[i].data, st[i].mode)
		if err != nil {
			cleanup()
			return nil, &FileError{Op: "stage", Path: st[i].fp.Path, Err: fmt.Errorf("%w; nothing was written", err)}
		}
		st[i].tmp = tmp
	}
	// 3. Switch, re-checking each file right before its rename.
	for i := range st {
		s := &st[i]
		cur, err := w.ReadFile(s.abs)
		if err == nil && sha256.Sum256(cur) != s.fp.hash {
			err = fmt.Errorf("%w: %s changed while applying", ErrConflict, s.fp.Path)
		}
		if err == nil {
			if info, lerr := w.Lstat(s.abs); lerr != nil {
				err = lerr
			} else if !info.Mode().IsRegular() {
				err = fmt.Errorf("%w: %s became a %s while applying", ErrConflict, s.fp.Path, info.Mode().Type())
			}
		}
		if err == nil {
			err = w.Rename(s.tmp, s.abs)
		}
		if err != nil {
			restored := restore(w, st[:i])
			cleanup()
			return nil, &FileError{Op: "rename", Path: s.fp.Path, Err: fmt.Errorf("%w; %s; not written: %s", err, restored, names(st[i:]))}
		}
		s.tmp = ""
		applied.Files = append(applied.Files, s.fp.Path)
		applied.Edits += len(s.fp.Edits)
	}
	return applied, nil
}

func names(st []stagedFile) string {
	var ns []string
	for _, s := range st {
		ns = append(ns, s.fp.Path)
	}
	return strings.Join(ns, ", ")
}

// restore writes the original bytes back into the files already replaced and says how
// that went.
func restore(w WriteFS, done []stagedFile) string {
	if len(done) == 0 {
		return "no file had been replaced"
	}
	var ok, bad []string
	for _, s := range done {
		tmp, err := writeTemp(w, s.abs, s.fp.original, s.mode)
		if err == nil {
			err = w.Rename(tmp, s.abs)
			if err != nil {
				_ = w.Remove(tmp)
			}
		}
		if err != nil {
			bad = append(bad, s.fp.Path+" ("+err.Error()+")")
		} else {
			ok = append(ok, s.fp.Path)
		}
	}
	msg := "restored to their original content: " + strings.Join(ok, ", ")
	if len(bad) > 0 {
		msg += "; COULD NOT RESTORE (now holds the new content): " + strings.Join(bad, ", ")
	}
	return msg
}

// lineDiff is a unified diff of two versions of a file: the differing middle, after the
// common leading and trailing lines, as one replacement.
func lineDiff(name string, a, b []byte) string {
	al, bl := splitLines(a), splitLines(b)
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	start := len(strings.Join(al[:pre], ""))
	end := len(a) - len(strings.Join(al[len(al)-suf:], ""))
	repl := strings.Join(bl[pre:len(bl)-suf], "")
	return unifiedDiff(name, a, b, []Edit{{Start: start, End: end, Replacement: repl}})
}

func writeTemp(w WriteFS, abs string, data []byte, mode fs.FileMode) (string, error) {
	for attempt := 0; ; attempt++ {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		tmp := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+"."+hex.EncodeToString(b[:])+".tmp")
		f, err := w.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
		if errors.Is(err, fs.ErrExist) && attempt < 8 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = w.Chmod(tmp, mode)
		}
		if werr != nil {
			_ = w.Remove(tmp)
			return "", werr
		}
		return tmp, nil
	}
}
