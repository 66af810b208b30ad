package wfs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/wfs"
)

// p makes an absolute OS-native name under the MemFS test root.
// The name is not cleaned, so ".." elements reach the file system.
func p(rel string) string { return memRoot() + string(filepath.Separator) + filepath.FromSlash(rel) }

func newMem(t *testing.T) *wfs.MemFS {
	t.Helper()
	m := wfs.NewMemFS()
	if err := m.MkdirAll(memRoot(), 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

// create writes data through OpenFile, as the patch applier stages a temporary.
func create(m wfs.FS, name, data string) error {
	f, err := m.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(data)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func TestMemFSFaults(t *testing.T) {
	boom := errors.New("disk on fire")
	tests := []struct {
		name    string
		op      string // fault op
		target  string // fault name (relative)
		run     func(m *wfs.MemFS) error
		wantErr string
		// what must hold after the failed call
		wantAbsent  []string
		wantContent map[string]string
	}{
		{
			name: "open_fails_nothing_created", op: "open", target: "new.txt",
			run:        func(m *wfs.MemFS) error { return create(m, p("new.txt"), "x") },
			wantErr:    "open " + p("new.txt") + ": disk on fire",
			wantAbsent: []string{"new.txt"},
		},
		{
			name: "write_fails_file_stays_empty", op: "write", target: "new.txt",
			run:         func(m *wfs.MemFS) error { return create(m, p("new.txt"), "x") },
			wantErr:     "write " + p("new.txt") + ": disk on fire",
			wantContent: map[string]string{"new.txt": ""},
		},
		{
			name: "sync_fails", op: "sync", target: "new.txt",
			run:         func(m *wfs.MemFS) error { return create(m, p("new.txt"), "x") },
			wantErr:     "sync " + p("new.txt") + ": disk on fire",
			wantContent: map[string]string{"new.txt": "x"},
		},
		{
			name: "close_fails", op: "close", target: "new.txt",
			run:         func(m *wfs.MemFS) error { return create(m, p("new.txt"), "x") },
			wantErr:     "close " + p("new.txt") + ": disk on fire",
			wantContent: map[string]string{"new.txt": "x"},
		},
		{
			name: "rename_matches_destination", op: "rename", target: "a.txt",
			run:         func(m *wfs.MemFS) error { return m.Rename(p("b.txt"), p("a.txt")) },
			wantErr:     "rename " + p("b.txt") + " " + p("a.txt") + ": disk on fire",
			wantContent: map[string]string{"a.txt": "old a", "b.txt": "old b"},
		},
		{
			name: "remove_fails", op: "remove", target: "a.txt",
			run:         func(m *wfs.MemFS) error { return m.Remove(p("a.txt")) },
			wantErr:     "remove " + p("a.txt") + ": disk on fire",
			wantContent: map[string]string{"a.txt": "old a"},
		},
		{
			name: "mkdir_fails", op: "mkdir", target: "d",
			run:        func(m *wfs.MemFS) error { return m.Mkdir(p("d"), 0o755) },
			wantErr:    "mkdir " + p("d") + ": disk on fire",
			wantAbsent: []string{"d"},
		},
		{
			name: "chmod_fails", op: "chmod", target: "a.txt",
			run:         func(m *wfs.MemFS) error { return m.Chmod(p("a.txt"), 0o600) },
			wantErr:     "chmod " + p("a.txt") + ": disk on fire",
			wantContent: map[string]string{"a.txt": "old a"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t)
			m.WriteFile(p("a.txt"), []byte("old a"), 0o644)
			m.WriteFile(p("b.txt"), []byte("old b"), 0o644)
			before := m.Tree()
			m.InjectFault(func(op, name string) bool { return op == tc.op && name == p(tc.target) }, boom)
			err := tc.run(m)
			if err == nil || err.Error() != tc.wantErr || !errors.Is(err, boom) {
				t.Fatalf("error = %v; want %q wrapping the injected error", err, tc.wantErr)
			}
			for _, rel := range tc.wantAbsent {
				if _, err := m.Lstat(p(rel)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s exists after the failed call", rel)
				}
			}
			for rel, want := range tc.wantContent {
				if b, err := m.ReadFile(p(rel)); err != nil || string(b) != want {
					t.Errorf("%s = %q, %v; want %q", rel, b, err, want)
				}
			}
			if tc.op == "chmod" || tc.op == "rename" || tc.op == "remove" {
				if diff := cmp.Diff(before, m.Tree()); diff != "" {
					t.Errorf("tree changed by a failed %s (-before +after):\n%s", tc.op, diff)
				}
			}
			m.ClearFaults()
			m.Remove(p("new.txt"))
			if err := tc.run(m); err != nil {
				t.Errorf("after ClearFaults the call still fails: %v", err)
			}
		})
	}
}

func TestMemFSFaultAtKthCall(t *testing.T) {
	// The fault-at-the-k-th-mutating-call pattern of the patch package's all-or-nothing
	// property: the matcher counts calls and is consulted once per call.
	m := newMem(t)
	var n int
	typed := &fs.PathError{Op: "rename", Path: "custom", Err: syscall.EIO}
	m.InjectFault(func(op, name string) bool { n++; return n == 3 }, typed)
	if err := m.Mkdir(p("d"), 0o755); err != nil { // call 1
		t.Fatal(err)
	}
	f, err := m.OpenFile(p("d/.a.tmp"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644) // call 2
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != typed { // call 3
		t.Fatalf("third call: error %v; want the injected *fs.PathError returned as is", err)
	}
	if err := f.Close(); err != nil { // call 4
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("matcher consulted %d times for 4 calls", n)
	}
}

func TestMemFSCalls(t *testing.T) {
	m := newMem(t)
	m.WriteFile(p("a.txt"), []byte("a"), 0o644) // setup: not logged
	m.Symlink("a.txt", p("l"))                  // setup: not logged
	m.ReadFile(p("a.txt"))                      // read: not logged
	m.Stat(p("a.txt"))
	if f, err := m.OpenFile(p("a.txt"), os.O_RDONLY, 0); err == nil { // read-only: not logged
		f.Close()
	}
	m.Mkdir(p("d"), 0o755)
	create(m, p("d/.b.tmp"), "b")
	m.Chmod(p("d/.b.tmp"), 0o600)
	m.Rename(p("d/.b.tmp"), p("d/b.txt"))
	m.Remove(p("a.txt"))
	m.Remove(p("missing")) // failed calls are logged too
	want := []wfs.Call{
		{Op: "mkdir", Name: p("d")},
		{Op: "open", Name: p("d/.b.tmp")},
		{Op: "sync", Name: p("d/.b.tmp")},
		{Op: "chmod", Name: p("d/.b.tmp")},
		{Op: "rename", Name: p("d/.b.tmp"), Name2: p("d/b.txt")},
		{Op: "remove", Name: p("a.txt")},
		{Op: "remove", Name: p("missing")},
	}
	if diff := cmp.Diff(want, m.Calls()); diff != "" {
		t.Fatalf("Calls (-want +got):\n%s", diff)
	}
	m.ResetCalls()
	if got := m.Calls(); len(got) != 0 {
		t.Fatalf("Calls after ResetCalls = %v", got)
	}
}

func TestMemFSResolution(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(m *wfs.MemFS)
		read    string // relative name to ReadFile
		want    string
		wantErr error
	}{
		{
			name:  "absolute_symlink_target",
			setup: func(m *wfs.MemFS) { m.WriteFile(p("real.txt"), []byte("r"), 0o644); m.Symlink(p("real.txt"), p("l")) },
			read:  "l", want: "r",
		},
		{
			name: "absolute_symlink_to_directory_then_relative_link",
			setup: func(m *wfs.MemFS) {
				m.WriteFile(p("d/x.txt"), []byte("x"), 0o644)
				m.Symlink(p("d"), p("ld"))
				m.Symlink("x.txt", p("d/lx"))
			},
			read: "ld/lx", want: "x",
		},
		{
			name: "dotdot_after_symlink_climbs_from_target",
			setup: func(m *wfs.MemFS) {
				m.WriteFile(p("deep/sub/f.txt"), []byte("deep"), 0o644)
				m.WriteFile(p("deep/g.txt"), []byte("g"), 0o644)
				m.Symlink("deep/sub", p("ls"))
			},
			read: "ls/../g.txt", want: "g",
		},
		{
			name: "chain_of_40_links_resolves",
			setup: func(m *wfs.MemFS) {
				m.WriteFile(p("t0"), []byte("end"), 0o644)
				for i := 1; i <= 40; i++ {
					m.Symlink(fmt.Sprintf("t%d", i-1), p(fmt.Sprintf("t%d", i)))
				}
			},
			read: "t40", want: "end",
		},
		{
			name: "chain_of_41_links_loops",
			setup: func(m *wfs.MemFS) {
				m.WriteFile(p("t0"), []byte("end"), 0o644)
				for i := 1; i <= 41; i++ {
					m.Symlink(fmt.Sprintf("t%d", i-1), p(fmt.Sprintf("t%d", i)))
				}
			},
			read: "t41", wantErr: syscall.ELOOP,
		},
		{
			name:  "empty_symlink_target",
			setup: func(m *wfs.MemFS) { m.Symlink("", p("l")) },
			read:  "l", wantErr: fs.ErrNotExist,
		},
		{
			name:  "symlink_to_missing_volume_root_child",
			setup: func(m *wfs.MemFS) { m.Symlink(filepath.Join(memRoot(), "nowhere", "x"), p("l")) },
			read:  "l", wantErr: fs.ErrNotExist,
		},
		{
			name:  "no_search_permission",
			setup: func(m *wfs.MemFS) { m.WriteFile(p("d/x"), []byte("x"), 0o644); m.Chmod(p("d"), 0o600) },
			read:  "d/x", wantErr: fs.ErrPermission,
		},
		{
			name:  "no_read_permission",
			setup: func(m *wfs.MemFS) { m.WriteFile(p("x"), []byte("x"), 0o200) },
			read:  "x", wantErr: fs.ErrPermission,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t)
			tc.setup(m)
			b, err := m.ReadFile(p(tc.read))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("ReadFile(%s) = %q, %v; want %v", tc.read, b, err, tc.wantErr)
				}
				var pe *fs.PathError
				if !errors.As(err, &pe) || pe.Path != p(tc.read) {
					t.Fatalf("error %v is not an *fs.PathError naming %s", err, p(tc.read))
				}
				return
			}
			if err != nil || string(b) != tc.want {
				t.Fatalf("ReadFile(%s) = %q, %v; want %q", tc.read, b, err, tc.want)
			}
		})
	}
}

func TestMemFSSetup(t *testing.T) {
	m := wfs.NewMemFS()
	if err := m.WriteFile(p("a/b/c.txt"), []byte("c"), 0o750); err != nil {
		t.Fatalf("WriteFile creates parents: %v", err)
	}
	if err := m.WriteFile(p("a/b/c.txt"), []byte("c2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteFile(p("a/b"), []byte("x"), 0o644); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("WriteFile over a directory: %v; want EISDIR", err)
	}
	if err := m.WriteFile("rel.txt", nil, 0o644); !errors.Is(err, wfs.ErrNotAbs) {
		t.Fatalf("WriteFile with a relative name: %v; want ErrNotAbs", err)
	}
	if err := m.MkdirAll(p("a/b/c.txt/d"), 0o755); !errors.Is(err, syscall.ENOTDIR) {
		t.Fatalf("MkdirAll under a file: %v; want ENOTDIR", err)
	}
	if err := m.Symlink("x", p("a/b/c.txt")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Symlink over a file: %v; want ErrExist", err)
	}
	m.SetUmask(0o077)
	if err := m.Mkdir(p("u"), 0o777); err != nil {
		t.Fatal(err)
	}
	want := map[string]wfs.Entry{
		"a":         {Dir: true, Mode: 0o755},
		"a/b":       {Dir: true, Mode: 0o755},
		"a/b/c.txt": {Data: []byte("c2"), Mode: 0o600},
		"u":         {Dir: true, Mode: 0o700},
	}
	if diff := cmp.Diff(want, m.TreeUnder(memRoot())); diff != "" {
		t.Fatalf("TreeUnder (-want +got):\n%s", diff)
	}
	// Tree is keyed by absolute names and includes the ancestors of the root.
	if e, ok := m.Tree()[p("a/b/c.txt")]; !ok || string(e.Data) != "c2" {
		t.Fatalf("Tree()[%s] = %+v, %v", p("a/b/c.txt"), e, ok)
	}
	if _, ok := m.Tree()[memRoot()]; !ok {
		t.Fatalf("Tree() lacks %s", memRoot())
	}
}

func TestMemFSConcurrent(t *testing.T) {
	// Run with -race: writers, renamers and readers on one MemFS.
	m := newMem(t)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				tmp := p(fmt.Sprintf(".f%d.%d.tmp", w, i))
				if err := create(m, tmp, fmt.Sprint(i)); err != nil {
					t.Error(err)
					return
				}
				if err := m.Rename(tmp, p(fmt.Sprintf("f%d", w))); err != nil {
					t.Error(err)
					return
				}
				m.ReadFile(p(fmt.Sprintf("f%d", (w+1)%8)))
				m.Tree()
			}
		})
	}
	wg.Wait()
	tree := m.TreeUnder(memRoot())
	if len(tree) != 8 {
		t.Fatalf("tree has %d entries, want 8 (temporaries left behind?): %v", len(tree), tree)
	}
	for w := range 8 {
		if got := string(tree[fmt.Sprintf("f%d", w)].Data); got != "49" {
			t.Errorf("f%d = %q, want the last write 49", w, got)
		}
	}
	if n := len(m.Calls()); n != 8*50*3 { // open, sync, rename
		t.Errorf("logged %d calls, want %d", n, 8*50*3)
	}
}

func TestMemFSCaseInsensitive(t *testing.T) {
	tests := []struct {
		name string
		run  func(m *wfs.MemFS) error
		want map[string]string // files under the root afterwards
	}{
		{
			name: "lookup_ignores_case",
			run: func(m *wfs.MemFS) error {
				b, err := m.ReadFile(p("README.MD"))
				if err == nil && string(b) != "r" {
					err = fmt.Errorf("read %q", b)
				}
				return err
			},
			want: map[string]string{"Readme.md": "r"},
		},
		{
			name: "exclusive_create_of_other_spelling_exists",
			run: func(m *wfs.MemFS) error {
				_, err := m.OpenFile(p("readme.md"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
				if !errors.Is(err, fs.ErrExist) {
					return fmt.Errorf("OpenFile = %v; want ErrExist", err)
				}
				return nil
			},
			want: map[string]string{"Readme.md": "r"},
		},
		{
			name: "case_only_rename_changes_spelling",
			run:  func(m *wfs.MemFS) error { return m.Rename(p("Readme.md"), p("README.md")) },
			want: map[string]string{"README.md": "r"},
		},
		{
			name: "rename_over_other_spelling_replaces_it",
			run: func(m *wfs.MemFS) error {
				if err := create(m, p(".tmp"), "new"); err != nil {
					return err
				}
				return m.Rename(p(".tmp"), p("README.MD"))
			},
			want: map[string]string{"README.MD": "new"},
		},
		{
			name: "remove_by_other_spelling",
			run:  func(m *wfs.MemFS) error { return m.Remove(p("readme.MD")) },
			want: map[string]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t)
			m.SetCaseInsensitive(true)
			m.WriteFile(p("Readme.md"), []byte("r"), 0o644)
			if err := tc.run(m); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, e := range m.TreeUnder(memRoot()) {
				got[k] = string(e.Data)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("tree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSameFile(t *testing.T) {
	m := newMem(t)
	m.WriteFile(p("a.txt"), []byte("a"), 0o644)
	m.WriteFile(p("b.txt"), []byte("a"), 0o644)
	m.Symlink("a.txt", p("l"))
	stat := func(fsys wfs.FS, name string) fs.FileInfo {
		fi, err := fsys.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	o, err := wfs.NewOSFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	tests := []struct {
		name string
		a, b fs.FileInfo
		want bool
	}{
		{name: "memfs_same_name", a: stat(m, p("a.txt")), b: stat(m, p("a.txt")), want: true},
		{name: "memfs_through_symlink", a: stat(m, p("a.txt")), b: stat(m, p("l")), want: true},
		{name: "memfs_equal_content_other_file", a: stat(m, p("a.txt")), b: stat(m, p("b.txt")), want: false},
		{name: "osfs_same_file", a: stat(o, filepath.Join(dir, "a.txt")), b: stat(o, filepath.Join(dir, "a.txt")), want: true},
		{name: "memfs_versus_osfs", a: stat(m, p("a.txt")), b: stat(o, filepath.Join(dir, "a.txt")), want: false},
		{name: "nil", a: nil, b: stat(m, p("a.txt")), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := wfs.SameFile(tc.a, tc.b); got != tc.want {
				t.Fatalf("SameFile = %v, want %v", got, tc.want)
			}
		})
	}
}
