//go:build unix

package format

import (
	"os/exec"
	"syscall"
)

// startInGroup makes the command the leader of a new process group, and makes cancellation
// kill the whole group, so the children a formatter forks (npx, mix) die with it.
func startInGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills every process left in the command's group. It is called after Wait too,
// for children that outlived a formatter that exited. The group id is the leader's pid; it
// is not reused while any member is alive, so a group that is already empty yields ESRCH,
// which is ignored.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
