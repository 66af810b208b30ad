package wfs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/harnesskit/harnesskit/wfs"
)

func TestOSFSRouting(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	top := t.TempDir()
	root := filepath.Join(top, "root")
	nested := filepath.Join(root, "nested") // a worktree inside the root: the longer base wins
	wt := filepath.Join(top, "wt")
	for _, d := range []string{root, nested, wt, filepath.Join(top, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(top, "outside", "secret"), []byte("s"), 0o644)
	linkedBase := filepath.Join(top, "linked") // a base reached through a symbolic link
	if err := os.Symlink("wt", linkedBase); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(top, "outside"), filepath.Join(root, "out")) // leaves the bases
	o, err := wfs.NewOSFS(root, nested, linkedBase)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()

	tests := []struct {
		name    string
		call    func() error
		wantErr error // nil: success
	}{
		{name: "write_in_root", call: func() error { return create(o, filepath.Join(root, "a.txt"), "a") }},
		{name: "write_in_nested_base", call: func() error { return create(o, filepath.Join(nested, "n.txt"), "n") }},
		{name: "write_in_base_by_link_name", call: func() error { return create(o, filepath.Join(linkedBase, "w.txt"), "w") }},
		{name: "write_in_base_by_real_name", call: func() error { return create(o, filepath.Join(wt, "w2.txt"), "w2") }},
		{name: "sibling_with_base_prefix_refused", call: func() error { return create(o, root+"x", "x") }, wantErr: wfs.ErrOutside},
		{name: "parent_of_base_refused", call: func() error { return o.Mkdir(filepath.Join(top, "new"), 0o755) }, wantErr: wfs.ErrOutside},
		{name: "rename_across_bases_refused", call: func() error {
			return o.Rename(filepath.Join(root, "a.txt"), filepath.Join(wt, "a.txt"))
		}, wantErr: wfs.ErrOutside},
		{name: "read_through_escaping_link_refused", call: func() error {
			_, err := o.ReadFile(filepath.Join(root, "out", "secret"))
			return err
		}, wantErr: errEscape},
		{name: "lstat_outside_answered", call: func() error {
			_, err := o.Lstat(filepath.Join(top, "outside", "secret"))
			return err
		}},
		{name: "readlink_of_base_link_answered", call: func() error {
			got, err := o.Readlink(linkedBase)
			if err == nil && got != "wt" {
				return errors.New("Readlink returned " + got)
			}
			return err
		}},
		{name: "lstat_of_base_ancestor_answered", call: func() error {
			fi, err := o.Lstat(top)
			if err == nil && !fi.IsDir() {
				return errors.New("not a directory")
			}
			return err
		}},
		{name: "stat_outside_refused", call: func() error {
			_, err := o.Stat(filepath.Join(top, "outside", "secret"))
			return err
		}, wantErr: fs.ErrPermission},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr == errEscape && err == nil:
				t.Fatal("a link leaving the base was followed")
			case tc.wantErr != nil && tc.wantErr != errEscape && !errors.Is(err, tc.wantErr):
				t.Fatalf("error %v; want %v", err, tc.wantErr)
			}
		})
	}
	for _, f := range []string{"root/a.txt", "root/nested/n.txt", "wt/w.txt", "wt/w2.txt"} {
		if _, err := os.Stat(filepath.Join(top, f)); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
	if _, err := os.Stat(root + "x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused write happened: %v", err)
	}
}

// errEscape marks a row where any error will do: os.Root's escape error is not exported.
var errEscape = errors.New("any error")

func TestOSFSLifecycle(t *testing.T) {
	if _, err := wfs.NewOSFS(); err == nil {
		t.Fatal("NewOSFS() without bases succeeded")
	}
	if _, err := wfs.NewOSFS(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("NewOSFS(missing dir) = %v; want fs.ErrNotExist", err)
	}
	dir := t.TempDir()
	o, err := wfs.NewOSFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Bases(); len(got) < 1 || got[0] == "" {
		t.Fatalf("Bases() = %v", got)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := o.Stat(dir); !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("Stat after Close: %v; want fs.ErrClosed", err)
	}
}
