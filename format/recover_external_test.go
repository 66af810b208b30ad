package format_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
)

// stallFS is an OSFS whose rename onto a name ending in stallOn never returns, after it has
// created the file named ready: a writer killed while it waits there dies in the middle of
// its commit.
type stallFS struct {
	*wfs.OSFS
	stallOn, ready string
}

func (s stallFS) Rename(oldname, newname string) error {
	if strings.HasSuffix(newname, s.stallOn) {
		os.WriteFile(s.ready, nil, 0o644)
		select {}
	}
	return s.OSFS.Rename(oldname, newname)
}

// TestFileRecoversFirst: a writer killed in the middle of a two-file commit leaves the tree
// half switched; the next File finishes that commit before it reads (Result.Recovered says
// so), and formats the finished file.
func TestFileRecoversFirst(t *testing.T) {
	if dir := os.Getenv("HK_FORMAT_CRASH_WRITER"); dir != "" {
		base, err := wfs.NewOSFS(dir)
		if err != nil {
			t.Fatal(err)
		}
		fsys := stallFS{base, "b.go", filepath.Join(dir, "ready")}
		tx, err := wfs.Begin(fsys, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a.go", "b.go"} {
			snap, err := wfs.Read(context.Background(), fsys, filepath.Join(dir, name), wfs.DefaultMaxFileSize)
			if err != nil {
				t.Fatal(err)
			}
			tx.Write(snap, []byte("package p\nvar  "+strings.TrimSuffix(name, ".go")+" = 2\n"))
		}
		tx.Commit(context.Background()) // stalls on b.go, after a.go was switched
		t.Fatal("the commit returned; it should have stalled")
	}
	dir := testenv.TempDir(t)
	dir, _ = filepath.EvalSymlinks(dir)
	for _, name := range []string{"a", "b"} {
		os.WriteFile(filepath.Join(dir, name+".go"), []byte("package p\nvar "+name+" = 1\n"), 0o644)
	}
	w := exec.Command(os.Args[0], "-test.run=^TestFileRecoversFirst$")
	w.Env = append(os.Environ(), "HK_FORMAT_CRASH_WRITER="+dir)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			w.Process.Kill()
			t.Fatal("the writer never reached the stall")
		}
	}
	w.Process.Kill()
	w.Wait()
	f, err := format.New(dir, format.WithLookPath(fakePath()))
	if err != nil {
		t.Fatal(err)
	}
	res := f.File(context.Background(), "b.go")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Recovered) != 1 || res.Recovered[0].Outcome != wfs.RolledForward {
		t.Fatalf("Recovered = %v, want the interrupted commit rolled forward", res.Recovered)
	}
	for name, want := range map[string]string{"a.go": "package p\nvar  a = 2\n", "b.go": "package p\n\nvar b = 2\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q (the commit finished, then b.go formatted)", name, got, want)
		}
	}
	t.Logf("recovered: %s", res.Recovered[0])
}
