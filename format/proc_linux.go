package format

import (
	"bytes"
	"crypto/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxSweepRounds bounds the kill-and-look-again loop of sweep, for a run whose processes
// keep forking while they are being killed.
const maxSweepRounds = 64

// runToken returns a fresh token for one run.
func runToken() string { return rand.Text() }

// setDeathSignal makes the kernel kill the formatter when the thread that started it ends
// (with the host, when the host is killed). pinThread keeps that thread for the whole run.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// pinThread locks the calling goroutine to its thread until the returned function runs, so
// that the death signal is not sent early by a thread that the runtime retires.
func pinThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// sweep kills every process still alive that carries token in its environment: what a
// formatter left behind outside its process group. Only processes started after the
// formatter (pid first) are looked at: their pids lie between first and the last pid the
// kernel handed out, which keeps the scan to the processes created during the run. A
// process is identified through a pidfd, so a pid that is reused in between is never
// signalled. Killed processes that are children of this process (it is PID 1 or the host
// made itself a child subreaper) are reaped; others are reaped by their own reaper. It
// returns when no such process is left, or after maxSweepRounds rounds.
func sweep(token string, first int) {
	needle := []byte("\x00" + runTokenVar + "=" + token + "\x00")
	self := os.Getpid()
	for range maxSweepRounds {
		var killed []int
		for _, pid := range candidates(first, lastPid()) {
			if pid == self {
				continue
			}
			fd := pidfdOpen(pid)
			switch {
			case !hasToken(pid, needle):
			case fd >= 0:
				if pidfdKill(fd) == nil {
					killed = append(killed, pid)
				}
			case syscall.Kill(pid, syscall.SIGKILL) == nil:
				killed = append(killed, pid)
			}
			if fd >= 0 {
				syscall.Close(fd)
			}
		}
		if len(killed) == 0 {
			return
		}
		for _, pid := range killed {
			awaitDeath(pid, self)
		}
	}
}

// probeSpan is the widest pid range candidates looks at pid by pid; a wider one is read from
// the /proc listing.
const probeSpan = 256

// candidates returns the pids of the processes that may have been started at or after pid
// first, given the last pid handed out (-1 when unknown).
func candidates(first, last int) []int {
	if last >= first && last-first < probeSpan {
		var out []int
		for pid := first; pid <= last; pid++ {
			if _, err := os.Lstat("/proc/" + strconv.Itoa(pid)); err == nil {
				out = append(out, pid)
			}
		}
		return out
	}
	f, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	var out []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pidSince(pid, first, last) {
			out = append(out, pid)
		}
	}
	return out
}

// pidSince reports whether pid was handed out at or after first, given the last pid handed
// out (-1 when unknown: every pid qualifies). Pids are handed out in increasing order and
// wrap around once they reach the maximum.
func pidSince(pid, first, last int) bool {
	switch {
	case last < 0:
		return true
	case first <= last:
		return pid >= first && pid <= last
	default:
		return pid >= first || pid <= last
	}
}

// lastPid is the last pid the kernel handed out in this pid namespace, -1 when unknown.
func lastPid() int {
	b, err := os.ReadFile("/proc/sys/kernel/ns_last_pid")
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}

// hasToken reports whether process pid's environment holds the entry needle (with the NUL
// bytes around it).
func hasToken(pid int, needle []byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	env = append(append([]byte{0}, env...), 0)
	return bytes.Contains(env, needle)
}

// deathWait bounds how long awaitDeath waits for one killed process.
const deathWait = time.Second

// awaitDeath waits, for at most deathWait, until the killed process pid is gone or a zombie,
// and reaps it when it is a child of self.
func awaitDeath(pid, self int) {
	deadline := time.Now().Add(deathWait)
	for {
		state, ppid := procState(pid)
		switch {
		case state == 0:
			return
		case state == 'Z' || state == 'X':
			if ppid == self {
				var ws syscall.WaitStatus
				syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			}
			return
		case time.Now().After(deadline):
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// procState returns the state letter and parent of process pid, 0 when it is gone.
func procState(pid int) (state byte, ppid int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 || f[0] == "" {
		return 0, 0
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0][0], ppid
}

// The pidfd system calls (Linux 5.3); they have the same number on every architecture.
const (
	sysPidfdSendSignal = 424
	sysPidfdOpen       = 434
)

// pidfdOpen returns a pidfd for pid, or -1 (no such process, or a kernel without pidfds).
func pidfdOpen(pid int) int {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno != 0 {
		return -1
	}
	return int(fd)
}

// pidfdKill sends SIGKILL to the process of a pidfd.
func pidfdKill(fd int) error {
	_, _, errno := syscall.Syscall6(sysPidfdSendSignal, uintptr(fd), uintptr(syscall.SIGKILL), 0, 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
