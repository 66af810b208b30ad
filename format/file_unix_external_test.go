//go:build unix

package format_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/wfs"
)

const (
	untidy = "package p\nvar  x = 1\n"
	tidy   = "package p\n\nvar x = 1\n"
)

// fileCase is one row of the metadata table: a file set up in a fresh directory, formatted
// with Runner.File, and checked.
type fileCase struct {
	name  string
	root  bool                                  // needs root (chown, mknod)
	setup func(t *testing.T, dir string) string // returns the path to format
	check func(t *testing.T, dir string, res format.Result)
	max   int64
}

// TestFileMetadata adds to the write layer's metadata table (TestMetadata) the cases of
// format's own: a chain of symbolic links through a directory link, a link out of the root,
// a socket and a device, a 255-byte UTF-8 name, and the size limit at N-1, N and N+1.
func TestFileMetadata(t *testing.T) {
	write := func(t *testing.T, p, s string, mode fs.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	read := func(t *testing.T, p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	formatted := func(t *testing.T, res format.Result, p string) {
		t.Helper()
		if res.Err != nil || !res.Changed {
			t.Fatalf("Err %v, Changed %v", res.Err, res.Changed)
		}
		if got := read(t, p); got != tidy {
			t.Fatalf("%s = %q, want it formatted", p, got)
		}
	}
	refused := func(t *testing.T, res format.Result, want error, say string) {
		t.Helper()
		if !errors.Is(res.Err, want) || !strings.Contains(fmt_(res.Err), say) {
			t.Fatalf("Err = %v, want %v saying %q", res.Err, want, say)
		}
		if res.Changed {
			t.Fatalf("a refused file is reported changed")
		}
	}
	tests := []fileCase{
		{
			name: "symlink_chain_through_a_directory_link",
			setup: func(t *testing.T, dir string) string {
				os.Mkdir(filepath.Join(dir, "src"), 0o755)
				write(t, filepath.Join(dir, "src", "real.go"), untidy, 0o644)
				os.Symlink("src", filepath.Join(dir, "alias"))
				os.Symlink("alias/real.go", filepath.Join(dir, "l1.go"))
				os.Symlink("l1.go", filepath.Join(dir, "l2.go"))
				return filepath.Join(dir, "l2.go")
			},
			check: func(t *testing.T, dir string, res format.Result) {
				formatted(t, res, filepath.Join(dir, "src", "real.go"))
				for _, l := range []string{"l1.go", "l2.go", "alias"} {
					if fi, err := os.Lstat(filepath.Join(dir, l)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
						t.Errorf("%s is no longer a link", l)
					}
				}
			},
		},
		{
			name: "symlink_out_of_the_root_refused",
			setup: func(t *testing.T, dir string) string {
				root := filepath.Join(dir, "root")
				os.Mkdir(root, 0o755)
				write(t, filepath.Join(dir, "outside.go"), untidy, 0o644)
				os.Symlink("../outside.go", filepath.Join(root, "link.go"))
				return filepath.Join(root, "link.go")
			},
			check: func(t *testing.T, dir string, res format.Result) {
				refused(t, res, format.ErrOutside, "outside the root")
				if got := read(t, filepath.Join(dir, "outside.go")); got != untidy {
					t.Errorf("a file outside the root changed: %q", got)
				}
			},
		},
		{
			name: "socket_refused",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "a.go")
				l, err := net.Listen("unix", p)
				if err != nil {
					t.Skipf("no unix socket here: %v", err)
				}
				t.Cleanup(func() { l.Close() })
				return p
			},
			check: func(t *testing.T, dir string, res format.Result) {
				refused(t, res, wfs.ErrSpecial, "not a regular file but a socket")
			},
		},
		{
			name: "device_refused", root: true,
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "a.go")
				if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // /dev/null's numbers
					t.Skipf("mknod is not allowed here: %v", err)
				}
				return p
			},
			check: func(t *testing.T, dir string, res format.Result) {
				refused(t, res, wfs.ErrSpecial, "not a regular file but a device")
			},
		},
		{
			name: "name_of_255_bytes_in_utf8",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, strings.Repeat("é", 126)+".go") // 252 + 3 bytes
				write(t, p, untidy, 0o644)
				return p
			},
			check: func(t *testing.T, dir string, res format.Result) {
				formatted(t, res, filepath.Join(dir, strings.Repeat("é", 126)+".go"))
			},
		},
		{
			name: "limit_minus_one_formatted", max: int64(len(untidy)) + 1,
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "a.go")
				write(t, p, untidy, 0o644)
				return p
			},
			check: func(t *testing.T, dir string, res format.Result) { formatted(t, res, filepath.Join(dir, "a.go")) },
		},
		{
			name: "limit_exactly_formatted", max: int64(len(untidy)),
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "a.go")
				write(t, p, untidy, 0o644)
				return p
			},
			check: func(t *testing.T, dir string, res format.Result) { formatted(t, res, filepath.Join(dir, "a.go")) },
		},
		{
			name: "limit_plus_one_refused", max: int64(len(untidy)) - 1,
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "a.go")
				write(t, p, untidy, 0o644)
				return p
			},
			check: func(t *testing.T, dir string, res format.Result) {
				refused(t, res, format.ErrIO, "more than the 20 bytes format reads")
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("needs root (to chown or mknod), and this test runs unprivileged")
			}
			dir := t.TempDir()
			p := tc.setup(t, dir)
			env := format.Env{Root: dir, FS: os.DirFS(dir), LookPath: fakePath(), Getenv: os.Getenv}
			if strings.Contains(tc.name, "out_of_the_root") {
				env.Root, env.FS = filepath.Join(dir, "root"), os.DirFS(filepath.Join(dir, "root"))
			}
			r := format.Runner{MaxFileSize: tc.max}
			done := make(chan format.Result, 1)
			go func() { done <- r.File(context.Background(), env, format.Config{}, format.Builtins(), p) }()
			select {
			case res := <-done:
				tc.check(t, dir, res)
			case <-time.After(time.Minute):
				t.Fatal("File did not return (blocked on the file?)")
			}
			if l, _ := filepath.Glob(filepath.Join(dir, ".*.hk-*")); len(l) > 0 {
				t.Errorf("temporaries left: %v", l)
			}
		})
	}
}

func fmt_(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestFileGrownPastTheLimit: a file that grows (to 3 GiB, sparse) while it is being
// formatted is not read again whole: the write-back sees its size and refuses, at once and
// without the memory.
func TestFileGrownPastTheLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	os.WriteFile(p, []byte("text\n"), 0o644)
	stdin := format.Stdin
	cfg := format.Config{Overrides: map[string]format.Override{"grow": {Args: []string{"grow"}, Extensions: []string{".txt"}, Mode: &stdin}}}
	grow := func(_ context.Context, _ []string, _ string, _ []string, in []byte) ([]byte, []byte, error) {
		if err := os.Truncate(p, 3<<30); err != nil {
			return nil, nil, err
		}
		return []byte("TEXT\n"), nil, nil
	}
	r := format.Runner{Exec: grow}
	env := format.Env{Root: dir, FS: os.DirFS(dir), LookPath: fakePath(), Getenv: os.Getenv}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := r.File(context.Background(), env, cfg, format.Builtins(), p)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if !errors.Is(res.Err, format.ErrConcurrentChange) {
		t.Fatalf("Err = %v, want ErrConcurrentChange", res.Err)
	}
	if fi, _ := os.Stat(p); fi.Size() != 3<<30 {
		t.Errorf("the grown file was touched: size %d", fi.Size())
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d bytes for a file that grew past the limit", grew)
	}
	t.Logf("refused in %v", took)
}

// TestFileHonoursContext: a cancelled context stops File before it writes anything.
func TestFileHonoursContext(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.go")
	os.WriteFile(p, []byte(untidy), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var r format.Runner
	res := r.File(ctx, format.Env{Root: dir, FS: os.DirFS(dir), LookPath: fakePath(), Getenv: os.Getenv}, format.Config{}, format.Builtins(), p)
	if !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("Err = %v, want context.Canceled", res.Err)
	}
	if b, _ := os.ReadFile(p); string(b) != untidy {
		t.Errorf("file written after cancel: %q", b)
	}
}

// TestReadOnlyRefusedUnprivileged: for a user who is not root, a file without the write bit
// of the user's class is refused (0444 owned by the user; 0644 owned by someone else), and a
// file the class may write is formatted. As root it re-runs itself as nobody (65534).
func TestReadOnlyRefusedUnprivileged(t *testing.T) {
	dir := os.Getenv("HK_FORMAT_UNPRIVILEGED")
	if dir == "" {
		if os.Geteuid() != 0 {
			t.Skip("runs as root to become another user; unprivileged runs are covered by TestFileMetadata")
		}
		base := t.TempDir()
		os.Chmod(filepath.Dir(base), 0o755)
		os.Chmod(base, 0o777)
		bin := filepath.Join(base, "format.test")
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(bin, data, 0o755)
		os.WriteFile(filepath.Join(base, "root-owned.go"), []byte(untidy), 0o644)
		cmd := exec.Command(bin, "-test.run=^TestReadOnlyRefusedUnprivileged$", "-test.v")
		cmd.Dir = base
		// nobody signs its journals with a key under its own home, as a login would give it.
		cmd.Env = append(os.Environ(), "HK_FORMAT_UNPRIVILEGED="+base, "HOME="+base, "XDG_CONFIG_HOME=")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestReadOnlyRefusedUnprivileged") {
			t.Fatalf("as nobody: %v\n%s", err, out)
		}
		return
	}
	if os.Geteuid() == 0 {
		t.Fatal("still root")
	}
	os.WriteFile(filepath.Join(dir, "ro.go"), []byte(untidy), 0o444)
	os.Chmod(filepath.Join(dir, "ro.go"), 0o444)
	os.WriteFile(filepath.Join(dir, "rw.go"), []byte(untidy), 0o644)
	env := format.Env{Root: dir, FS: os.DirFS(dir), LookPath: fakePath(), Getenv: os.Getenv}
	var r format.Runner
	for _, tc := range []struct {
		file     string
		refused  bool
		contains string
	}{
		{file: "ro.go", refused: true, contains: "read-only (mode 0444)"},
		{file: "root-owned.go", refused: true, contains: "read-only (mode 0644)"},
		{file: "rw.go"},
	} {
		res := r.File(context.Background(), env, format.Config{}, format.Builtins(), tc.file)
		b, _ := os.ReadFile(filepath.Join(dir, tc.file))
		switch {
		case tc.refused && (!errors.Is(res.Err, fs.ErrPermission) || !strings.Contains(res.Err.Error(), tc.contains) || string(b) != untidy):
			t.Errorf("%s: Err %v, content %q; want refused", tc.file, res.Err, b)
		case !tc.refused && (res.Err != nil || string(b) != tidy):
			t.Errorf("%s: Err %v, content %q; want formatted", tc.file, res.Err, b)
		}
	}
}
