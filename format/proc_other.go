//go:build !unix

package format

import "os/exec"

// startInGroup has no process groups to use here: cancellation kills the formatter itself
// (exec's default), and children it started may outlive it.
func startInGroup(cmd *exec.Cmd) {}

// killGroup is a no-op without process groups.
func killGroup(cmd *exec.Cmd) error { return nil }
