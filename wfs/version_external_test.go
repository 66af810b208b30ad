package wfs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/wfs"
)

// hasChangeTime: the systems whose FileInfo carries a status-change time.
func hasChangeTime() bool {
	return runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1"
}

func TestSameVersion(t *testing.T) {
	stamp := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		// change alters the file at p (its first content "hello\n", mtime stamp); nil
		// changes nothing.
		change func(t *testing.T, p string)
		want   bool
	}{
		{name: "unchanged", want: true},
		{name: "content of another size", want: false, change: func(t *testing.T, p string) {
			write(t, p, "hello, world\n")
			chtimes(t, p, stamp)
		}},
		{name: "modification time moved", want: false, change: func(t *testing.T, p string) {
			chtimes(t, p, stamp.Add(time.Second))
		}},
		{name: "mode changed", want: false, change: func(t *testing.T, p string) {
			if err := os.Chmod(p, 0o444); err != nil { // read-only: a change Windows keeps too
				t.Fatal(err)
			}
		}},
		{name: "replaced by rename, same size and time", want: false, change: func(t *testing.T, p string) {
			q := p + ".new"
			write(t, q, "HELLO\n")
			chtimes(t, q, stamp)
			if err := os.Rename(q, p); err != nil {
				t.Fatal(err)
			}
		}},
		{
			// Only the status-change time tells: where there is none, the rewrite is not
			// seen (the documented limit).
			name: "rewritten in place, same size, time set back", want: !hasChangeTime(),
			change: func(t *testing.T, p string) {
				before := stat(t, p)
				// The kernel's clock for file times can be coarse: rewrite until the
				// status-change time moves (a few milliseconds at most).
				for deadline := time.Now().Add(5 * time.Second); ; {
					write(t, p, "HELLO\n")
					chtimes(t, p, stamp)
					if !hasChangeTime() || !os.SameFile(before, stat(t, p)) || time.Now().After(deadline) || ctimeMoved(before, stat(t, p)) {
						return
					}
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f.txt")
			write(t, p, "hello\n")
			chtimes(t, p, stamp)
			a := stat(t, p)
			wfs.SameVersion(a, a) // fixes a's identity on Windows
			if tc.change != nil {
				tc.change(t, p)
			}
			b := stat(t, p)
			if got := wfs.SameVersion(a, b); got != tc.want {
				t.Errorf("SameVersion = %v, want %v (size %d→%d, mtime %v→%v)", got, tc.want, a.Size(), b.Size(), a.ModTime(), b.ModTime())
			}
		})
	}
}

func TestSameVersionMemFS(t *testing.T) {
	m := wfs.NewMemFS()
	dir := memRoot()
	if err := m.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p, q := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, n := range []string{p, q} {
		if err := m.WriteFile(n, []byte("same\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := m.Stat(p)
	if again, _ := m.Stat(p); !wfs.SameVersion(a, again) {
		t.Error("an unchanged MemFS file is a new version")
	}
	if err := m.Rename(q, p); err != nil {
		t.Fatal(err)
	}
	if b, _ := m.Stat(p); wfs.SameVersion(a, b) {
		t.Error("a MemFS file replaced by rename (same size and content) is the same version")
	}
	if wfs.SameVersion(a, nil) || wfs.SameVersion(nil, a) {
		t.Error("a nil FileInfo is the same version")
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func chtimes(t *testing.T, p string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

func stat(t *testing.T, p string) fs.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// ctimeMoved reports whether the status-change time differs between a and b.
func ctimeMoved(a, b fs.FileInfo) bool {
	ca, _ := wfs.ChangeTimeForTest(a)
	cb, _ := wfs.ChangeTimeForTest(b)
	return !ca.Equal(cb)
}
