package format_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/wfs"
)

// procStat returns the state letter, parent and session of process pid from /proc; state 0
// when the process is gone.
func procStat(pid int) (state byte, ppid, sid int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ppid, _ = strconv.Atoi(f[1])
	sid, _ = strconv.Atoi(f[3])
	return f[0][0], ppid, sid
}

// killedOrExiting reports whether process pid has a SIGKILL pending or is already exiting
// (the kernel's PF_EXITING flag, once the signal has been taken).
func killedOrExiting(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // gone
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if flags, err := strconv.ParseUint(f[6], 10, 64); err == nil && flags&0x4 != 0 {
		return true
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != "SigPnd" && k != "ShdPnd" {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && mask&(1<<(syscall.SIGKILL-1)) != 0 {
			return true
		}
	}
	return false
}

// awaitGone waits up to d for process pid to end (gone or a zombie).
func awaitGone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if st, _, _ := procStat(pid); st == 0 || st == 'Z' || st == 'X' {
			return true
		}
	}
	return false
}

// procDiag describes process pid for a failure message: its command line, its parent and
// session, and the size of its environment.
func procDiag(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid)
	cmdline, _ := os.ReadFile(dir + "/cmdline")
	env, err := os.ReadFile(dir + "/environ")
	_, ppid, sid := procStat(pid)
	return fmt.Sprintf("cmdline %q, ppid %d, sid %d, environ %d bytes (err %v)", strings.ReplaceAll(string(cmdline), "\x00", " "), ppid, sid, len(env), err)
}

// liveInSession counts the live (not zombie) processes of session sid.
func liveInSession(sid int) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, _, s := procStat(pid); s == sid && st != 'Z' && st != 'X' && st != 0 {
			n++
		}
	}
	return n
}

// killSession kills the live processes of session sid (the escapee's, as it called setsid).
func killSession(sid int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if st, _, s := procStat(pid); s == sid && st != 'Z' && st != 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// escapeRun runs a stdin formatter whose script is body (with $PIDFILE set) and returns the
// result and the pid the script wrote to $PIDFILE.
func escapeRun(t *testing.T, ctx context.Context, body string, timeout time.Duration) (format.Result, int) {
	t.Helper()
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	bin := filepath.Join(dir, "fmt.sh")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nPIDFILE="+pidfile+"\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdin := format.Stdin
	cfg := format.Config{Overrides: map[string]format.Override{"esc": {Args: []string{bin}, Extensions: []string{".txt"}, Mode: &stdin}}}
	env := format.Env{Root: dir, FS: os.DirFS(dir), LookPath: exec.LookPath, Getenv: os.Getenv}
	r := format.Runner{Timeout: timeout}
	res := r.Bytes(ctx, env, cfg, format.Builtins(), "a.txt", []byte("text\n"))
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the formatter did not record its child: %v (result %v)", err, res.Err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return res, pid
}

// The escape scripts: each starts a process that leaves the formatter's process group and
// writes its pid to $PIDFILE, and waits until it has.
const (
	escSetsid = `setsid sh -c 'echo $$ > "$0"; exec sleep 300' "$PIDFILE" </dev/null >/dev/null 2>&1 &
until [ -s "$PIDFILE" ]; do sleep 0.01; done`
	// A daemon's double fork: the middle process exits, the grandchild is an orphan.
	escDoubleFork = `setsid sh -c 'sleep 300 & echo $! > "$0"' "$PIDFILE" </dev/null >/dev/null 2>&1 &
until [ -s "$PIDFILE" ]; do sleep 0.01; done`
	// An escapee that keeps forking while it is being killed.
	escForking = `setsid sh -c 'echo $$ > "$0"; while :; do sleep 300 & sleep 0.005; done' "$PIDFILE" </dev/null >/dev/null 2>&1 &
until [ -s "$PIDFILE" ]; do sleep 0.01; done`
)

// TestSetsidChildDoesNotOutliveFormat: a formatter child that calls setsid (or is orphaned
// by a double fork, or keeps forking) is killed before Bytes returns — after a normal exit,
// after the timeout, and after the caller's context ended.
func TestSetsidChildDoesNotOutliveFormat(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		timeout time.Duration
		cancel  bool
		wantErr error
	}{
		{name: "E9_setsid_child_of_a_formatter_that_exits", body: escSetsid + "\ncat"},
		{name: "E9_double_fork_orphan", body: escDoubleFork + "\ncat"},
		{name: "E9_escapee_that_keeps_forking", body: escForking + "\ncat"},
		{name: "E9_setsid_child_after_the_timeout", body: escSetsid + "\nexec sleep 300", timeout: 500 * time.Millisecond, wantErr: format.ErrTimeout},
		{name: "E9_setsid_child_after_cancel", body: escSetsid + "\nexec sleep 300", cancel: true, wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.cancel {
				c, cancel := context.WithCancel(ctx)
				defer cancel()
				ctx = c
				go func() {
					time.Sleep(500 * time.Millisecond)
					cancel()
				}()
			}
			timeout := tc.timeout
			if timeout == 0 {
				timeout = time.Minute
			}
			res, pid := escapeRun(t, ctx, tc.body, timeout)
			t.Cleanup(func() {
				if t.Failed() {
					killSession(pid) // leave nothing behind
				}
			})
			if tc.wantErr == nil && res.Err != nil || tc.wantErr != nil && !errors.Is(res.Err, tc.wantErr) {
				t.Fatalf("Err = %v, want %v", res.Err, tc.wantErr)
			}
			if st, _, _ := procStat(pid); st != 0 && st != 'Z' && st != 'X' {
				// Killed but not yet dead (SIGKILL pending, or already exiting) is what
				// Bytes promises; a process the sweep missed would stay alive.
				if !killedOrExiting(pid) {
					t.Errorf("the escaped process %d is still alive (state %c, not killed: %s) after Bytes returned", pid, st, procDiag(pid))
				} else if !awaitGone(pid, 10*time.Second) {
					t.Errorf("the escaped process %d was killed but still runs 10 s later (%s)", pid, procDiag(pid))
				}
			}
			if _, _, sid := procStat(pid); sid == pid {
				if n := liveInSession(pid); n != 0 {
					t.Errorf("%d processes of the escapee's session are alive", n)
				}
			}
		})
	}
}

// TestSweepReapsWhenHostIsSubreaper: format never makes the host a child subreaper (the
// attribute is process-wide, and the host's other orphans would become its children), but a
// host that is one gets the escapees format killed reaped, and only those. It runs in a
// child process that sets the attribute, so that the other tests are not affected.
func TestSweepReapsWhenHostIsSubreaper(t *testing.T) {
	if os.Getenv("HK_FORMAT_SUBREAPER") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSweepReapsWhenHostIsSubreaper$", "-test.v")
		cmd.Env = append(os.Environ(), "HK_FORMAT_SUBREAPER=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestSweepReapsWhenHostIsSubreaper") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, 36 /* PR_SET_CHILD_SUBREAPER */, 1, 0); errno != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}
	// A child of the host that format did not start, orphaned nowhere: it must be left alone.
	own := exec.Command("sleep", "300")
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	defer own.Process.Kill()
	res, pid := escapeRun(t, context.Background(), escDoubleFork+"\ncat", time.Minute)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if st, ppid, _ := procStat(pid); st != 0 {
		t.Errorf("the orphan %d is left as state %c, parent %d; want it killed and reaped", pid, st, ppid)
	}
	if st, _, _ := procStat(own.Process.Pid); st != 'S' && st != 'R' {
		t.Errorf("the host's own child is in state %c; format must not touch it", st)
	}
	own.Process.Kill()
	if err := own.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the host's own Wait: %v (format must not reap the host's children)", err)
	}
}

// TestHostKilledDuringInPlaceFormat: a host killed (SIGKILL) while an in-place formatter runs
// takes the formatter with it (the kernel's death signal), leaves the file as it was, and
// leaves at most the temporary copy, hidden and with the file's suffix (.app.rb.hk-….rb),
// which builds and autoloaders skip and the write layer's recovery removes. The host is a
// child process running this test.
func TestHostKilledDuringInPlaceFormat(t *testing.T) {
	if dir := os.Getenv("HK_FORMAT_HOST"); dir != "" {
		f, err := format.New(dir, format.WithConfig(format.Config{Overrides: map[string]format.Override{
			"slow": {Args: []string{filepath.Join(dir, "slow.sh"), "$FILE"}, Extensions: []string{".rb"}},
		}}))
		if err != nil {
			t.Fatal(err)
		}
		f.File(context.Background(), "app.rb") // killed in here
		t.Fatal("the formatter returned; it should have been killed with the host")
	}
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "formatter.pid")
	os.WriteFile(filepath.Join(dir, "slow.sh"), []byte("#!/bin/sh\necho $$ > "+pidfile+"\nprintf 'half' > \"$1\"\nexec sleep 300\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "app.rb"), []byte("puts 1\n"), 0o644)
	host := exec.Command(os.Args[0], "-test.run=^TestHostKilledDuringInPlaceFormat$")
	host.Env = append(os.Environ(), "HK_FORMAT_HOST="+dir)
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var fpid int
	for deadline := time.Now().Add(time.Minute); fpid == 0; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidfile); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			fpid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			host.Process.Kill()
			t.Fatal("the formatter never started")
		}
	}
	host.Process.Kill()
	host.Wait()
	gone := false
	for deadline := time.Now().Add(10 * time.Second); !gone && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		st, _, _ := procStat(fpid)
		gone = st == 0 || st == 'Z' || st == 'X'
	}
	if !gone {
		syscall.Kill(fpid, syscall.SIGKILL)
		t.Errorf("the formatter %d outlived the host", fpid)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "app.rb")); string(b) != "puts 1\n" {
		t.Errorf("app.rb = %q, want it as it was", b)
	}
	ents, _ := os.ReadDir(dir)
	copies := 0
	for _, e := range ents {
		switch n := e.Name(); n {
		case "app.rb", "slow.sh", "formatter.pid", wfs.JournalDir:
		default:
			if !strings.HasPrefix(n, ".app.rb.hk-") || !strings.HasSuffix(n, ".rb") || !wfs.IsLeftover(n) {
				t.Errorf("left %q: want only a hidden copy named .app.rb.hk-<hex>.rb that wfs.IsLeftover knows", n)
			}
			copies++
		}
	}
	// The next writer's recovery (format, patch and astsearch run it first) removes the copy
	// and its journal: here the next File. (A journal that holds only scratch copies is no
	// commit: Result.Recovered does not list it.)
	f, err := format.New(dir, format.WithLookPath(fakePath()))
	if err != nil {
		t.Fatal(err)
	}
	if res := f.File(context.Background(), "app.rb"); res.Err != nil { // no formatter for .rb here
		t.Errorf("the next File: %v", res.Err)
	}
	ents, _ = os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); wfs.IsLeftover(n) || n == wfs.JournalDir {
			t.Errorf("after recovery %q is left", n)
		}
	}
	t.Logf("%d copy left by the killed host, removed by the next File's recovery", copies)
}
