package astsearch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"
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

// E52: the timeout gives a partial result marked "timeout", without an error.
func TestE52_timeout_is_a_partial_result(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": srcUtil})
	r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Timeout: time.Nanosecond})
	if err != nil {
		t.Fatalf("err = %v, want a partial result", err)
	}
	if !r.Truncated || r.TruncatedReason != "timeout" {
		t.Errorf("truncated %v %q", r.Truncated, r.TruncatedReason)
	}
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
