//go:build unix

package wfs_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/wfs"
)

// TestMain lets the test binary double as a helper process: with WFS_HELPER=lock:<dir> it
// takes the lock of dir through an OSFS, says "locked" and waits to be killed.
func TestMain(m *testing.M) {
	if h := os.Getenv("WFS_HELPER"); strings.HasPrefix(h, "lock:") {
		dir := strings.TrimPrefix(h, "lock:")
		o, err := wfs.NewOSFS(dir)
		if err != nil {
			os.Exit(3)
		}
		unlock, err := o.TryLock(dir)
		if err != nil {
			os.Exit(4)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Hour) // until killed
		unlock()
	}
	os.Exit(m.Run())
}

// holder starts a process that holds the lock of dir until it is killed.
func holder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WFS_HELPER=lock:"+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper: %q, %v", line, err)
	}
	return cmd
}

// TestLockAcrossProcesses: a lock held by another live process is waited for, then refused
// with ErrBusy (nothing written); once that process is killed (SIGKILL: it releases nothing
// itself) the kernel has dropped its lock and the commit goes through.
func TestLockAcrossProcesses(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(name, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := wfs.NewOSFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	commit := func(wait time.Duration) error {
		s, err := wfs.Read(ctx, o, name, wfs.DefaultMaxFileSize)
		if err != nil {
			t.Fatal(err)
		}
		tx, _ := wfs.Begin(o, dir, wfs.WithLockWait(wait))
		tx.Write(s, append(s.Data, "more\n"...))
		_, err = tx.Commit(ctx)
		return err
	}

	h := holder(t, dir)
	start := time.Now()
	err = commit(300 * time.Millisecond)
	if !errors.Is(err, wfs.ErrBusy) {
		t.Fatalf("commit under another process's lock = %v; want ErrBusy", err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("refused after %v; want it to wait the lock wait (300ms) first", waited)
	}
	if b, _ := os.ReadFile(name); string(b) != "a\n" {
		t.Errorf("a.txt = %q after a refused commit", b)
	}

	// The holder dies while a commit waits: the wait ends with the lock.
	done := make(chan error, 1)
	go func() { done <- commit(20 * time.Second) }()
	time.Sleep(100 * time.Millisecond) // let the commit start waiting
	if err := h.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("commit after the holder died: %v", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "a\nmore\n" {
		t.Errorf("a.txt = %q", b)
	}
}
