package webfetch

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
	"github.com/harnesskit/harnesskit/wfs/wfstest"
)

// pdfSite serves a small PDF under the given Content-Disposition.
func pdfSite(t *testing.T, disposition string) *site {
	return newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		if disposition != "" {
			w.Header().Set("Content-Disposition", disposition)
		}
		_, _ = w.Write([]byte("%PDF-1.7\nbody\x00\x01"))
	})
}

// Issue 23: the default binary directory $TMPDIR/harnesskit-webfetch was fixed and shared, so
// another local user who planted it as a symbolic link (to ~victim/.ssh) got a server-chosen
// file written there. The default is per user, and a directory that is a link, belongs to
// someone else or is open to group or others is refused, with nothing written.
func TestBinaryDirIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps a per-user temporary directory and has no Unix owner or mode bits")
	}
	t.Run("default_is_per_user", func(t *testing.T) {
		f, err := New()
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(os.TempDir(), "harnesskit-webfetch-"+strconv.Itoa(os.Getuid()))
		if f.cfg.binaryDir != want {
			t.Errorf("default binary directory %q, want %q", f.cfg.binaryDir, want)
		}
	})
	type setup func(t *testing.T, dir, victim string)
	cases := []struct {
		name    string
		prepare setup
		refused bool
	}{
		{name: "created_private", prepare: func(*testing.T, string, string) {}},
		{name: "existing_private", prepare: func(t *testing.T, dir, _ string) { mkdir(t, dir, 0o700) }},
		{name: "planted_symlink", refused: true, prepare: func(t *testing.T, dir, victim string) {
			if err := os.Symlink(victim, dir); err != nil {
				t.Skip("symlinks unavailable:", err)
			}
		}},
		{name: "symlink_to_private_dir", refused: true, prepare: func(t *testing.T, dir, _ string) {
			real := dir + "-real"
			mkdir(t, real, 0o700)
			if err := os.Symlink(real, dir); err != nil {
				t.Skip("symlinks unavailable:", err)
			}
		}},
		{name: "open_to_others", refused: true, prepare: func(t *testing.T, dir, _ string) { mkdir(t, dir, 0o777) }},
		{name: "open_to_group", refused: true, prepare: func(t *testing.T, dir, _ string) { mkdir(t, dir, 0o750) }},
		{name: "a_file", refused: true, prepare: func(t *testing.T, dir, _ string) { writeFile(t, dir, "x") }},
		{name: "owned_by_another_user", refused: true, prepare: func(t *testing.T, dir, _ string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give the directory to another user")
			}
			mkdir(t, dir, 0o700)
			if err := os.Chown(dir, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dir, victim := filepath.Join(parent, "bin"), filepath.Join(parent, "victim")
			mkdir(t, victim, 0o700)
			tc.prepare(t, dir, victim)
			s := pdfSite(t, `attachment; filename="authorized_keys"`)
			f, _, _ := testFetcher(t, WithBinaryDir(dir))
			r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/k", SaveBinary: true, LLMS: LLMSNever})
			if entries, _ := os.ReadDir(victim); len(entries) != 0 {
				t.Fatalf("wrote %v into the link's target", entries)
			}
			if !tc.refused {
				if err != nil || r.Binary == nil || !r.Binary.Saved {
					t.Fatalf("err %v, result %+v", err, r)
				}
				fi, err := os.Lstat(dir)
				if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
					t.Errorf("directory %v %v, want a 0700 directory", fi, err)
				}
				return
			}
			if !errors.Is(err, ErrFilename) || !strings.Contains(err.Error(), dir) {
				t.Errorf("err %v, want ErrFilename naming %s", err, dir)
			}
		})
	}
}

func mkdir(t *testing.T, dir string, perm os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

// Issue 23: names were capped in characters only, so a 100-character CJK name (304 bytes with
// its extension) failed to save. Names are capped in bytes too, extension kept, collisions
// included.
func TestBinaryNameCappedInBytes(t *testing.T) {
	cjk := strings.Repeat("漢", 100)
	long := strings.Repeat("a", 243)
	for _, tc := range []struct{ name, disposition string }{
		{name: "cjk_100_chars", disposition: "attachment; filename*=UTF-8''" + url.PathEscape(cjk+".pdf")},
		{name: "emoji", disposition: "attachment; filename*=UTF-8''" + url.PathEscape(strings.Repeat("😀", 90)+".pdf")},
		{name: "ascii_243_bytes", disposition: `attachment; filename="` + long + `.pdf"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := privateDir(t)
			s := pdfSite(t, tc.disposition)
			f, _, _ := testFetcher(t, WithBinaryDir(dir))
			for i := range 3 { // the name, then two collisions
				r := fetch(t, f, Request{URL: s.URL + "/f" + strconv.Itoa(i), SaveBinary: true, LLMS: LLMSNever})
				if r.Binary == nil || !r.Binary.Saved {
					t.Fatalf("save %d: %+v", i, r.Binary)
				}
				base := filepath.Base(r.Binary.SavedPath)
				if len(base) > 200 || !strings.HasSuffix(base, ".pdf") {
					t.Errorf("save %d: name %q has %d bytes", i, base, len(base))
				}
			}
		})
	}
}

// saveCase is one row of the save table: prepare plants something in the binary directory
// before a PDF named report.pdf is saved there.
type saveCase struct {
	name        string
	disposition string
	prepare     func(t *testing.T, dir string)
	// wantName is the base name the file must be saved under ("" = report.pdf).
	wantName string
}

// runSaveTable saves a binary for every case in a fresh private directory and checks: the
// save succeeds under the wanted name, the saved file is a regular file of mode 0600 holding
// the body, everything planted is untouched, and no temporary is left.
func runSaveTable(t *testing.T, cases []saveCase) {
	t.Helper()
	body := "%PDF-1.7\nbody\x00\x01"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(privateDir(t), "bin")
			mkdir(t, dir, 0o700)
			if tc.prepare != nil {
				tc.prepare(t, dir)
			}
			before := snapshot(t, dir)
			disposition := tc.disposition
			if disposition == "" {
				disposition = `attachment; filename="report.pdf"`
			}
			s := pdfSite(t, disposition)
			f, _, _ := testFetcher(t, WithBinaryDir(dir))
			done := make(chan *Result, 1)
			go func() {
				r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/file", SaveBinary: true, LLMS: LLMSNever})
				if err != nil {
					t.Error(err)
				}
				done <- r
			}()
			var r *Result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the save did not return within 30 s")
			}
			if r == nil || r.Binary == nil || !r.Binary.Saved {
				t.Fatalf("not saved: %+v", r)
			}
			want := tc.wantName
			if want == "" {
				want = "report.pdf"
			}
			p := r.Binary.SavedPath
			if p != filepath.Join(dir, want) {
				t.Errorf("saved as %q, want %q", p, filepath.Join(dir, want))
			}
			fi, err := os.Lstat(p)
			if err != nil || !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
				t.Errorf("saved file %v %v, want a regular 0600 file", fi, err)
			}
			if got, _ := os.ReadFile(p); string(got) != body {
				t.Errorf("saved %q", got)
			}
			after := snapshot(t, dir)
			for name, content := range before {
				if after[name] != content {
					t.Errorf("%s changed: %q -> %q", name, content, after[name])
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok && name != p {
					t.Errorf("left %s behind", name)
				}
			}
		})
	}
}

// TestSaveTable (issue 21): saves next to what another program left in the directory.
func TestSaveTable(t *testing.T) {
	runSaveTable(t, []saveCase{
		{name: "empty_directory"},
		{name: "file_exists", prepare: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "report.pdf"), "theirs") }, wantName: "report-1.pdf"},
		{name: "two_exist", prepare: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "report.pdf"), "theirs")
			writeFile(t, filepath.Join(dir, "report-1.pdf"), "theirs too")
		}, wantName: "report-2.pdf"},
		{name: "directory_at_name", prepare: func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "report.pdf"), 0o700) }, wantName: "report-1.pdf"},
		{name: "symlink_at_name", prepare: func(t *testing.T, dir string) {
			testenv.Symlinks(t) // skips under Wine, whose os.Symlink makes no link
			outside := t.TempDir()
			if err := os.Symlink(filepath.Join(outside, "victim.pdf"), filepath.Join(dir, "report.pdf")); err != nil {
				t.Skip("symbolic links unavailable:", err)
			}
		}, wantName: "report-1.pdf"},
		{name: "dangling_symlink_at_name", prepare: func(t *testing.T, dir string) {
			testenv.Symlinks(t)
			if err := os.Symlink("nowhere.pdf", filepath.Join(dir, "report.pdf")); err != nil {
				t.Skip("symbolic links unavailable:", err)
			}
		}, wantName: "report-1.pdf"},
		{name: "name_243_bytes", disposition: `attachment; filename="` + strings.Repeat("n", 239) + `.pdf"`, wantName: strings.Repeat("n", 176) + ".pdf"},
		{name: "name_cjk_100_chars", disposition: "attachment; filename*=UTF-8''" + url.PathEscape(strings.Repeat("漢", 100)+".pdf"), wantName: strings.Repeat("漢", 65) + ".pdf"},
		{name: "name_cjk_taken", disposition: "attachment; filename*=UTF-8''" + url.PathEscape(strings.Repeat("漢", 100)+".pdf"), prepare: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, strings.Repeat("漢", 65)+".pdf"), "theirs")
		}, wantName: strings.Repeat("漢", 64) + "-1.pdf"},
		{name: "leftover_temporaries_kept", prepare: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, ".report.pdf.hk-0123456789abcdef.tmp"), "someone's temporary")
		}},
	})
}

// Two saves of the same name at once get two names and two complete files.
func TestSaveConcurrentSameName(t *testing.T) {
	dir := filepath.Join(privateDir(t), "bin")
	s := pdfSite(t, `attachment; filename="same.pdf"`)
	f, _, _ := testFetcher(t, WithBinaryDir(dir), WithoutCache())
	const n = 8
	paths := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/f" + strconv.Itoa(i), SaveBinary: true, LLMS: LLMSNever})
			if err != nil || r.Binary == nil || !r.Binary.Saved {
				t.Errorf("save %d: %v %+v", i, err, r)
				return
			}
			paths <- r.Binary.SavedPath
		})
	}
	wg.Wait()
	close(paths)
	seen := map[string]bool{}
	for p := range paths {
		if seen[p] {
			t.Errorf("%s saved twice", p)
		}
		seen[p] = true
		if b, _ := os.ReadFile(p); !strings.HasPrefix(string(b), "%PDF-1.7") {
			t.Errorf("%s holds %q", p, b)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != n || len(seen) != n {
		t.Errorf("%d entries for %d saves", len(entries), n)
	}
}

// linkless is the binary directory on a file system without hard links (FAT, exFAT, some
// network shares): Link fails as unsupported.
type linkless struct{ *wfs.OSFS }

func (linkless) Link(oldname, newname string) error {
	return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: wfstest.ErrNoHardLinks}
}

// nolinks has no Link at all.
type nolinks struct{ wfs.FS }

func withSaveFS(wrap func(*wfs.OSFS) wfs.FS) Option {
	return func(c *config) {
		c.saveFS = func(dir string) (wfs.FS, func() error, error) {
			o, err := wfs.NewOSFS(dir)
			if err != nil {
				return nil, nil, err
			}
			return wrap(o), o.Close, nil
		}
	}
}

// Issue 26: saves went through hard links, which FAT and exFAT lack, so no binary could be
// saved there. The final file is created without a link, still never replacing a file that
// exists and still complete or absent.
func TestSaveWithoutHardLinks(t *testing.T) {
	for name, wrap := range map[string]func(*wfs.OSFS) wfs.FS{
		"link_unsupported": func(o *wfs.OSFS) wfs.FS { return linkless{o} },
		"no_link_method":   func(o *wfs.OSFS) wfs.FS { return nolinks{o} },
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(privateDir(t), "bin")
			mkdir(t, dir, 0o700)
			writeFile(t, filepath.Join(dir, "report.pdf"), "theirs")
			s := pdfSite(t, `attachment; filename="report.pdf"`)
			f, _, _ := testFetcher(t, WithBinaryDir(dir), withSaveFS(wrap))
			r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/r", SaveBinary: true, LLMS: LLMSNever})
			if err != nil || r.Binary == nil || !r.Binary.Saved {
				t.Fatalf("err %v result %+v", err, r)
			}
			if r.Binary.SavedPath != filepath.Join(dir, "report-1.pdf") {
				t.Errorf("saved as %s", r.Binary.SavedPath)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "report.pdf")); string(b) != "theirs" {
				t.Errorf("the existing file now holds %q", b)
			}
			if b, _ := os.ReadFile(r.Binary.SavedPath); !strings.HasPrefix(string(b), "%PDF-1.7") {
				t.Errorf("saved %q", b)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if n := e.Name(); n != "report.pdf" && n != "report-1.pdf" {
					t.Errorf("left %s behind", n)
				}
			}
		})
	}
}

// TestSavePlantedJournalIgnored: a binary directory that holds a journal someone planted
// (here one that would delete a file saved earlier) is saved into as usual; the journal is
// never acted on (it is not signed by this user's writer) and stays where it is.
func TestSavePlantedJournalIgnored(t *testing.T) {
	dir := filepath.Join(privateDir(t), "bin")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "earlier.pdf")
	if err := os.WriteFile(keep, []byte("%PDF-1.7 earlier"), 0o600); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, wfs.JournalDir, "00000000000000a9.journal")
	if err := os.Mkdir(filepath.Dir(journal), 0o700); err != nil {
		t.Fatal(err)
	}
	head, _ := json.Marshal(map[string]any{"wfs": 2, "id": "00000000000000a9", "pid": 1, "root": dir})
	op, _ := json.Marshal(map[string]any{"op": map[string]any{"kind": "delete", "name": keep,
		"old": map[string]any{"type": "file", "size": 16}}})
	if err := os.WriteFile(journal, []byte(string(head)+"\n"+string(op)+"\n"+`{"mark":"commit"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := pdfSite(t, `attachment; filename="new.pdf"`)
	f, _, _ := testFetcher(t, WithBinaryDir(dir), WithoutCache())
	r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/f", SaveBinary: true, LLMS: LLMSNever})
	if err != nil || r.Binary == nil || !r.Binary.Saved {
		t.Fatalf("save: %v %+v", err, r)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "%PDF-1.7 earlier" {
		t.Errorf("the earlier file = %q, %v: the planted journal was acted on", b, err)
	}
	if _, err := os.Lstat(journal); err != nil {
		t.Errorf("the planted journal is gone: %v", err)
	}
}
