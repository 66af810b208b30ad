//go:build unix

package patch_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// The amendment's file cases on a real file system: whole modes kept (E137) and special files
// refused at plan time without blocking (E138).

func osApplier(t *testing.T, opts ...patch.Option) (string, *patch.Applier) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := wfs.NewOSFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	a, err := patch.New(fsys, dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return dir, a
}

func TestE137ModesKept(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	modes := []fs.FileMode{0o664, 0o775, 0o600}
	if os.Geteuid() == 0 {
		modes = append(modes, 0o4755|fs.ModeSetuid, fs.ModeSetgid|0o2775, fs.ModeSticky|0o1777)
	} else {
		t.Log("not root: setuid/setgid cases skipped (only root may set them on any file)")
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			dir, a := osApplier(t)
			p := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(p, []byte("a\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
				t.Fatal(err)
			}
			want, _ := os.Stat(p)
			if _, err := a.Apply(context.Background(), apText("*** Update File: a.txt", "@@", "-a", "+b")); err != nil {
				t.Fatal(err)
			}
			got, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode() != want.Mode() {
				t.Errorf("mode after update = %v, want %v", got.Mode(), want.Mode())
			}
			if b, _ := os.ReadFile(p); string(b) != "b\n" {
				t.Errorf("content = %q", b)
			}
		})
	}
}

// noBlock runs f and fails the test when it does not return within a few seconds.
func noBlock(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s blocked on a FIFO", what)
		return nil
	}
}

func TestE138SpecialFilesRefusedWithoutBlocking(t *testing.T) {
	dir, a := osApplier(t, patch.WithOverwrite(true))
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	if err := os.Symlink("pipe", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct{ name, text string }{
		{"update", apText("*** Update File: pipe", "@@", "-a", "+b")},
		{"update_through_link", apText("*** Update File: link", "@@", "-a", "+b")},
		{"delete", apText("*** Delete File: pipe")},
		{"add_overwrite", apText("*** Add File: pipe", "+x")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, op := range []struct {
				name string
				run  func() error
			}{
				{"Apply", func() error { _, err := a.Apply(ctx, tc.text); return err }},
				{"Plan", func() error { _, err := a.Plan(ctx, tc.text); return err }},
				{"Rewrite", func() error { _, err := a.Rewrite(ctx, tc.text); return err }},
			} {
				err := noBlock(t, op.name, op.run)
				var pe *patch.Error
				if !errors.As(err, &pe) || pe.Kind != patch.KindPathConflict {
					t.Errorf("%s: err = %v, want KindPathConflict", op.name, err)
				}
			}
			if info, err := os.Lstat(fifo); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
				t.Errorf("the FIFO changed: %v, %v", info, err)
			}
		})
	}
}
