//go:build !windows

package testenv

func wine() bool { return false }
