package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/windows"

	"qrdesk/internal/alert"
)

// launch runs qrdesk.exe beside this program with args and no console
// window, waits for it (the Start menu's entry ends when the desk does) and
// returns its exit code.
func launch(args []string) int {
	exe, err := os.Executable()
	if err != nil {
		return cannotStart("qrdesk.exe", err)
	}
	desk := filepath.Join(filepath.Dir(exe), "qrdesk.exe")
	cmd := exec.Command(desk, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	default:
		return cannotStart(desk, err)
	}
}

// cannotStart says in a dialog that the desk program could not be started
// (removed, or blocked by a policy) and what to do; exit 3, as a desk that
// cannot start.
func cannotStart(desk string, err error) int {
	if alert.Func != nil {
		alert.Func("qrdesk could not start", fmt.Sprintf("%s could not be started (%v). Repair qrdesk: Settings, Apps, qrdesk, Modify or Repair; or install it again.\n\n无法启动 %s（%v）。请修复 qrdesk：设置、应用、qrdesk、修复；或重新安装。", desk, err, desk, err))
	}
	return 3
}
