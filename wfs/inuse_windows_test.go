package wfs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
)

// holdOpen opens name as another program would and keeps it open until the test ends:
// without FILE_SHARE_DELETE (as os.Open, and most Windows programs, open files), or with it.
func holdOpen(t *testing.T, name string, shareDelete bool) {
	t.Helper()
	share := uint32(windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE)
	if shareDelete {
		share |= windows.FILE_SHARE_DELETE
	}
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, share, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatalf("hold %s open: %v", name, err)
	}
	t.Cleanup(func() { windows.CloseHandle(h) })
}

// dirNames lists dir's entries (nothing below them).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestInUseRefusedBeforeStaging: a target another program holds open without sharing delete
// access is refused with ErrInUse by the check, before anything is staged: no temporary, no
// kept file, no journal, no lock file is left, every file keeps its content, and once the
// program lets go the same commit succeeds.
func TestInUseRefusedBeforeStaging(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name        string
		held        string // the file the other program holds
		shareDelete bool   // it shares delete access: not in use
		edit        func(tx *wfs.Tx, a, b wfs.Snapshot)
	}{
		{name: "write", held: "a.txt", edit: func(tx *wfs.Tx, a, b wfs.Snapshot) { tx.Write(a, []byte("A\n")) }},
		{name: "delete", held: "a.txt", edit: func(tx *wfs.Tx, a, b wfs.Snapshot) { tx.Delete(a) }},
		{name: "second_of_two_writes", held: "b.txt", edit: func(tx *wfs.Tx, a, b wfs.Snapshot) {
			tx.Write(a, []byte("A\n"))
			tx.Write(b, []byte("B\n"))
		}},
		{name: "held_sharing_delete", held: "a.txt", shareDelete: true, edit: func(tx *wfs.Tx, a, b wfs.Snapshot) {
			tx.Write(a, []byte("A\n"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := testenv.TempDir(t)
			for _, n := range []string{"a.txt", "b.txt"} {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(n[:1]+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			o, err := wfs.NewOSFS(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			commit := func() error {
				a, err := wfs.Read(ctx, o, filepath.Join(dir, "a.txt"), wfs.DefaultMaxFileSize)
				if err != nil {
					t.Fatal(err)
				}
				b, err := wfs.Read(ctx, o, filepath.Join(dir, "b.txt"), wfs.DefaultMaxFileSize)
				if err != nil {
					t.Fatal(err)
				}
				tx, err := wfs.Begin(o, dir, wfs.WithLockWait(0))
				if err != nil {
					t.Fatal(err)
				}
				c.edit(tx, a, b)
				_, err = tx.Commit(ctx)
				return err
			}
			held := filepath.Join(dir, c.held)
			t.Run("held", func(t *testing.T) {
				holdOpen(t, held, c.shareDelete)
				err := commit()
				if c.shareDelete {
					if err != nil && testenv.Wine() && errors.Is(err, os.ErrPermission) {
						t.Skipf("skipped under Wine: it has no POSIX-semantics rename (FileRenameInformationEx), so a file open elsewhere cannot be replaced even when its holder shares delete access, as Windows 10 and later on NTFS can: %v", err)
					}
					if err != nil {
						t.Fatalf("a file held open with FILE_SHARE_DELETE: %v; want the commit to succeed", err)
					}
					return
				}
				var we *wfs.Error
				if !errors.Is(err, wfs.ErrInUse) || !errors.As(err, &we) || we.Op != "check" || we.Name != held {
					t.Fatalf("commit = %v; want a check of %s refused with wfs.ErrInUse", err, held)
				}
				for _, n := range []string{"a.txt", "b.txt"} {
					if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != n[:1]+"\n" {
						t.Errorf("%s = %q; want it untouched", n, b)
					}
				}
				if got := dirNames(t, dir); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
					t.Errorf("the directory holds %q; want only a.txt and b.txt (nothing staged, no journal, no lock file)", got)
				}
			})
			if c.shareDelete {
				return
			}
			// The holder let go (its cleanup ran): the same commit goes through.
			if err := commit(); err != nil {
				t.Fatalf("commit after the file was closed: %v", err)
			}
			got := dirNames(t, dir)
			if c.name == "delete" {
				if !slices.Equal(got, []string{"b.txt"}) {
					t.Errorf("after the delete the directory holds %q; want only b.txt", got)
				}
			} else if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "A\n" || !slices.Equal(got, []string{"a.txt", "b.txt"}) {
				t.Errorf("after the commit a.txt = %q and the directory holds %q; want \"A\\n\" and only a.txt, b.txt", b, got)
			}
		})
	}
}
