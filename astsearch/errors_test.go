package astsearch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
	"github.com/harnesskit/harnesskit/pathguard"
)

// failFS fails reads of one file.
type failFS struct {
	fs.FS
	bad string
}

func (f failFS) Open(name string) (fs.File, error) {
	if name == f.bad {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f.FS.Open(name)
}

// R21: a listed file that cannot be read is recorded in Stats.Errors and the search goes on.
func TestUnreadableFileIsRecorded(t *testing.T) {
	fsys := failFS{FS: mapFS(map[string]string{"a.js": srcUtil, "b.js": srcUtil}), bad: "a.js"}
	r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalMatches != 1 || len(r.Stats.Errors) != 1 || r.Stats.Errors[0].Path != "a.js" || !errors.Is(&r.Stats.Errors[0], fs.ErrPermission) {
		t.Errorf("total %d, errors %+v", r.TotalMatches, r.Stats.Errors)
	}
}

// E52: the timeout gives a partial result marked "timeout", without an error. The parse of
// the one file blocks until the search's timeout cancels it, so the search cannot end before
// its timer fires, however coarse the system's timers are (Windows', under Wine, made a
// one-file search finish first now and then).
func TestE52_timeout_is_a_partial_result(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": srcUtil})
	held := &nativeBackend{factory: func(l Lang) (treeParser, error) {
		tp, err := fixtureFactory(l)
		if err != nil {
			return nil, err
		}
		return &heldParser{treeParser: tp, src: srcUtil, cancelled: make(chan struct{})}, nil
	}}
	type out struct {
		r   *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: held, Timeout: time.Nanosecond})
		done <- out{r, err}
	}()
	var o out
	select {
	case o = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the search did not end within 30 s of its 1 ns timeout")
	}
	if o.err != nil {
		t.Fatalf("err = %v, want a partial result", o.err)
	}
	if !o.r.Truncated || o.r.TruncatedReason != "timeout" || o.r.TotalMatches != 0 || len(o.r.Stats.Errors) != 0 {
		t.Errorf("truncated %v %q, %d matches, errors %v; want a timeout with nothing found and no error",
			o.r.Truncated, o.r.TruncatedReason, o.r.TotalMatches, o.r.Stats.Errors)
	}
}

// heldParser parses as its treeParser does, except that the parse of src blocks until the
// search cancels it (as the cgo parser's cancellation flag stops tree-sitter).
type heldParser struct {
	treeParser
	src       string
	once      sync.Once
	cancelled chan struct{}
}

func (p *heldParser) Cancel() { p.once.Do(func() { close(p.cancelled) }) }

func (p *heldParser) Parse(src []byte) (*match.Tree, error) {
	if string(src) != p.src {
		return p.treeParser.Parse(src)
	}
	<-p.cancelled
	return nil, errors.New("parse cancelled")
}

// E50/E49: without an ast-grep executable the CLI backend reports ErrUnavailable at search
// time; a language the backend has no grammar for is ErrLangUnavailable. (All 25 languages
// have a native grammar now, so the second half uses the native pipeline with one grammar
// taken away.)
func TestUnavailableBackends(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": srcUtil, "a.json": "{}\n"})
	_, err := Search(context.Background(), fsys, Request{Pattern: "x", Lang: JavaScript, Backend: CLI("/nonexistent/ast-grep")})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("missing ast-grep: err = %v, want ErrUnavailable", err)
	}
	noJSON := &nativeBackend{factory: func(l Lang) (treeParser, error) {
		if l == JSON {
			return nil, fmt.Errorf("%w: %s has no grammar here", ErrLangUnavailable, l)
		}
		return fixtureFactory(l)
	}}
	_, err = Search(context.Background(), fsys, Request{Pattern: "x", Lang: JSON, Backend: noJSON})
	if !errors.Is(err, ErrLangUnavailable) {
		t.Errorf("json without its grammar: err = %v, want ErrLangUnavailable", err)
	}
}

// TestBlockedPathMessages: a missing requested path says so in astsearch's words (it used
// to say the search was "blocked before ripgrep ran", and astsearch never runs ripgrep), a
// path written the Windows way gets the slash path it most likely means, and the error
// still wraps ErrBlocked and pathguard's typed error.
func TestBlockedPathMessages(t *testing.T) {
	dir := t.TempDir() // a real disk, where a path through a file fails with ENOTDIR
	if err := os.WriteFile(filepath.Join(dir, "a.js"), []byte("f(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	tests := []struct {
		name, path string
		kind       pathguard.Kind
		want       string
	}{
		{name: "E45_missing", path: "nope", kind: pathguard.KindMissing, want: `astsearch: search path "nope" does not exist under the search root; nothing was searched. Check the path`},
		{name: "not_directory", path: "a.js/x", kind: pathguard.KindNotDirectory, want: `search path "a.js/x": a component of it is a file, not a directory`},
		{name: "backslashes", path: `src\main.go`, kind: pathguard.KindMissing, want: `It is written the Windows way: search paths are slash paths relative to the project root, such as "src/main.go"`},
		{name: "drive_letter", path: `C:\work\proj\src`, kind: pathguard.KindMissing, want: `such as "work/proj/src"`},
		{name: "drive_letter_slashes", path: `d:/src`, kind: pathguard.KindMissing, want: `such as "src"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.kind == pathguard.KindNotDirectory && runtime.GOOS == "windows" {
				t.Skip("Windows reports a path through a file as missing, not ENOTDIR")
			}
			_, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Paths: []string{tc.path}, Backend: fixtureBackend})
			var pe *pathguard.Error
			if !errors.Is(err, ErrBlocked) || !errors.As(err, &pe) || pe.Kind != tc.kind {
				t.Fatalf("got %v, want ErrBlocked with a pathguard error of kind %v", err, tc.kind)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "ripgrep") {
				t.Fatalf("message %q, want it to contain %q and not mention ripgrep", msg, tc.want)
			}
		})
	}
}
