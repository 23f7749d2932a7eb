//go:build !windows

package testpg

import "syscall"

// killProcess kills pid outright (SIGKILL).
func killProcess(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// freezeProcess stops pid where it is (SIGSTOP), as a cut link would.
func freezeProcess(pid int) error { return syscall.Kill(pid, syscall.SIGSTOP) }
