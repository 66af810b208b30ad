package astsearch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
)

// A requested path that is (or passes through) a symbolic link leading outside the fs root
// is refused with ErrBlocked before anything is read, on any fs.FS (os.DirFS follows links
// out; an os.Root fs refuses them with an untyped error) and without a Guard; a link that
// stays inside is searched, as ripgrep follows links named on its command line.
func TestRequestedPathLinks(t *testing.T) {
	dir := t.TempDir()
	proj, out := filepath.Join(dir, "proj"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(proj, "src"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(out, "secret.js"), []byte(srcUtil), 0o644)
	os.WriteFile(filepath.Join(proj, "src", "a.js"), []byte(srcUtil), 0o644)
	testenv.Symlinks(t)
	links := map[string]string{"link": "../outside", "abslink": out, "filelink.js": "../outside/secret.js", "inlink": "src", "src/up": "../../outside", "loop": "loop"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	root, err := os.OpenRoot(proj)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	filesystems := map[string]fs.FS{"dirfs": os.DirFS(proj), "rootfs": root.FS()}
	tests := []struct {
		path    string
		want    []string
		blocked bool
	}{
		{path: "link", blocked: true},
		{path: "abslink", blocked: true},
		{path: "filelink.js", blocked: true},
		{path: "link/secret.js", blocked: true},
		{path: "src/up", blocked: true},
		{path: "src/up/secret.js", blocked: true},
		{path: "loop", blocked: true},
		{path: "inlink", want: []string{"inlink/a.js:0-19"}},
		{path: "inlink/a.js", want: []string{"inlink/a.js:0-19"}},
		{path: ".", want: []string{"src/a.js:0-19"}},
	}
	for fsName, fsys := range filesystems {
		for _, tc := range tests {
			t.Run(fsName+"/"+tc.path, func(t *testing.T) {
				r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Paths: []string{tc.path}})
				if tc.blocked {
					if !errors.Is(err, ErrBlocked) {
						t.Fatalf("err = %v (result %v), want ErrBlocked", err, r)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := matchKeys(r); len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
					t.Errorf("matches %v, want %v", got, tc.want)
				}
			})
		}
	}
}

// A rewrite template that is not UTF-8 text or holds a NUL byte is refused before
// planning: written into a source file it would make the file binary, which every later
// search then skips without a word.
func TestRewriteTemplateNotText(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": srcUtil})
	for _, tmpl := range []string{"logger.info(\xff$A)", "x\x00y", "\xed\xa0\x80"} {
		p, err := Rewrite(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}, tmpl)
		if !errors.Is(err, ErrBadPattern) || p != nil {
			t.Errorf("template %q: plan %v, err %v; want ErrBadPattern and no plan", tmpl, p, err)
		}
	}
	// CRLF and other control characters are text: they are written as given.
	if _, err := Rewrite(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}, "a\r\n\tb"); err != nil {
		t.Errorf("CRLF template: %v", err)
	}
}

// When matches were found but none could be kept (one match larger than MaxOutputBytes), or
// the timeout cut the search before any match, the text for the model must say so, not
// "No matches found.".
func TestFormatSearchNothingKept(t *testing.T) {
	fsys := mapFS(map[string]string{"src/app.js": srcApp})
	r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, MaxOutputBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalMatches != 1 || len(r.Matches) != 0 || r.TruncatedReason != "max_output_bytes" {
		t.Fatalf("total %d kept %d reason %q", r.TotalMatches, len(r.Matches), r.TruncatedReason)
	}
	tests := []struct {
		name   string
		r      *Result
		want   []string
		unwant string
	}{
		{name: "giant_match", r: r, want: []string{"Found 1 match in 0 files", "max_output_bytes"}, unwant: "No matches found"},
		{name: "E52_timeout_before_any_match", r: &Result{Truncated: true, TruncatedReason: "timeout"}, want: []string{"timeout"}},
		{name: "nothing", r: &Result{}, want: []string{"No matches found."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FormatSearch(tc.r, 0)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			if tc.unwant != "" && strings.Contains(got, tc.unwant) {
				t.Errorf("%q says %q", got, tc.unwant)
			}
		})
	}
}

// Request arguments that cannot name anything are refused with a sentinel the caller can
// act on, never an untyped I/O error or a silently empty result: a path holding a NUL byte
// (ErrBlocked), and a glob that does not parse (ErrBadPattern), which
// otherwise matched nothing and, as the only whitelist glob, hid every file.
func TestRequestArgumentsRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.js"), []byte(srcUtil), 0o644)
	tests := []struct {
		name    string
		mod     func(r *Request)
		wantErr error
	}{
		{name: "nul_in_path", mod: func(r *Request) { r.Paths = []string{"a\x00.js"} }, wantErr: ErrBlocked},
		{name: "unclosed_class_glob", mod: func(r *Request) { r.Globs = []string{"[a.js"} }, wantErr: ErrBadPattern},
		{name: "unclosed_brace_glob", mod: func(r *Request) { r.Globs = []string{"!{a,b"} }, wantErr: ErrBadPattern},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}
			tc.mod(&req)
			r, err := Search(context.Background(), os.DirFS(dir), req)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v (result %+v), want %v", err, r, tc.wantErr)
			}
		})
	}
}

// The CLI backend passes the pattern, template and selector as one `--flag=value` argument
// each, so a value starting with '-' (the pattern `-1`, the template `-$A`) is not read by
// ast-grep as an option (it exited 2: "unexpected argument").
func TestCLIValuesStartingWithDash(t *testing.T) {
	exe := astGrep(t)
	tmpl := "-2"
	for _, q := range []Query{
		{Pattern: "-1", Lang: JavaScript},
		{Pattern: "-$A", Lang: JavaScript, Rewrite: &tmpl},
		{Pattern: "--update-all", Lang: JavaScript},
	} {
		out, err := CLI(exe).Find(context.Background(), q, []Source{{Path: "a.js", Data: []byte("x = -1;\ny = --update;\n")}})
		if err != nil {
			t.Errorf("pattern %q: %v", q.Pattern, err)
			continue
		}
		if q.Pattern != "--update-all" && len(out[0]) != 1 {
			t.Errorf("pattern %q: %d matches, want 1", q.Pattern, len(out[0]))
		}
	}
}

// hugeFS reports one file as 5 GiB (through Stat; its open file keeps its real size, so a
// read does not allocate 5 GiB) and refuses to read it: tree-sitter takes 32-bit lengths and
// offsets, so such a file can never be parsed, and reading it would hold 5 GiB.
type hugeFS struct {
	fs.FS
	huge string
}

type hugeInfo struct{ fs.FileInfo }

func (hugeInfo) Size() int64 { return 5 << 30 }

type hugeFile struct{ fs.File }

func (hugeFile) Read([]byte) (int, error) { return 0, errors.New("read of the 5 GiB file attempted") }

func (h hugeFS) Open(name string) (fs.File, error) {
	f, err := h.FS.Open(name)
	if err != nil || name != h.huge {
		return f, err
	}
	return hugeFile{f}, nil
}

func (h hugeFS) Stat(name string) (fs.FileInfo, error) {
	info, err := fs.Stat(h.FS, name)
	if err != nil || name != h.huge {
		return info, err
	}
	return hugeInfo{info}, nil
}

// A file too large for tree-sitter (4 GiB or more) is skipped as large from its size,
// without being read, on both the search and the rewrite path.
func TestHugeFileSkippedUnread(t *testing.T) {
	fsys := hugeFS{FS: mapFS(map[string]string{"a.js": srcUtil, "big.js": srcUtil}), huge: "big.js"}
	for _, paths := range [][]string{nil, {"big.js"}} {
		r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Paths: paths})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stats.Skipped.Large != 1 || len(r.Stats.Errors) != 0 {
			t.Errorf("paths %v: skipped %+v, errors %v; want big.js skipped as large, unread", paths, r.Stats.Skipped, r.Stats.Errors)
		}
	}
	p, err := Rewrite(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}, "x($A)")
	if err != nil || p.Stats.Skipped.Large != 1 || len(p.Files) != 1 || p.Files[0].Path != "a.js" {
		t.Errorf("rewrite: %v, %+v", err, p)
	}
}
