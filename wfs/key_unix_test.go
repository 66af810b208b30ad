//go:build unix

package wfs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// TestUserJournalKey: the user's key is made once, private, and shared by every caller
// (also callers racing to make it); a key file anyone else could have planted or read is
// refused with ErrKey and a message that says what to do.
func TestUserJournalKey(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("HOME", home)
	name := filepath.Join(home, "harnesskit", "wfs-journal.key")

	var wg sync.WaitGroup
	keys := make([][]byte, 8)
	errs := make([]error, 8)
	for i := range keys {
		wg.Go(func() { keys[i], errs[i] = UserJournalKey() })
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil {
			t.Fatalf("UserJournalKey: %v", errs[i])
		}
		if len(keys[i]) != keySize || !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("callers racing to make the key got different keys")
		}
	}
	fi, err := os.Lstat(name)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, %v; want mode 0600", fi, err)
	}
	if di, err := os.Lstat(filepath.Dir(name)); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("key directory %v, %v; want mode 0700", di, err)
	}
	if again, err := UserJournalKey(); err != nil || !bytes.Equal(again, keys[0]) {
		t.Fatalf("second read = %x, %v", again, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(name)); len(ents) != 1 {
		t.Errorf("temporaries left beside the key: %v", ents)
	}

	for _, tc := range []struct {
		name  string
		plant func(t *testing.T)
	}{
		{"readable_by_others", func(t *testing.T) {
			if err := os.Chmod(name, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"wrong_size", func(t *testing.T) {
			if err := os.WriteFile(name, []byte("short"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"symbolic_link", func(t *testing.T) {
			other := filepath.Join(home, "planted.key")
			if err := os.WriteFile(other, bytes.Repeat([]byte{7}, keySize), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(name); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, name); err != nil {
				t.Fatal(err)
			}
		}},
		{"FIFO", func(t *testing.T) {
			// Opening a FIFO for reading would block until a writer came.
			if err := os.Remove(name); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(name, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", func(t *testing.T) {
			if err := os.Remove(name); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(name, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(name)
			if err := os.WriteFile(name+".tmp", keys[0], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(name+".tmp", name); err != nil {
				t.Fatal(err)
			}
			tc.plant(t)
			_, err := UserJournalKey()
			if !errors.Is(err, ErrKey) {
				t.Fatalf("UserJournalKey = %v; want ErrKey", err)
			}
			if msg := err.Error(); !bytes.Contains([]byte(msg), []byte(name)) || !bytes.Contains([]byte(msg), []byte("remove it")) {
				t.Errorf("message %q does not name the file and what to do", msg)
			}
		})
	}

	t.Run("no_home", func(t *testing.T) {
		t.Setenv("XDG_CONFIG_HOME", "")
		t.Setenv("HOME", "")
		if _, err := UserJournalKey(); !errors.Is(err, ErrKey) {
			t.Fatalf("UserJournalKey without a home = %v; want ErrKey", err)
		}
		o, err := NewOSFS(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if err := o.SetJournalKey([]byte("short")); !errors.Is(err, ErrKey) {
			t.Errorf("SetJournalKey of 5 bytes = %v; want ErrKey", err)
		}
		if err := o.SetJournalKey(keys[0]); err != nil {
			t.Fatal(err)
		}
		if k, err := o.JournalKey(); err != nil || !bytes.Equal(k, keys[0]) {
			t.Errorf("JournalKey = %x, %v", k, err)
		}
	})
}
