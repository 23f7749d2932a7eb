//go:build !windows

package main

import (
	"fmt"
	"os"
)

// launch: qrdeskw is the Windows Start menu's launcher; elsewhere qrdesk
// itself is started.
func launch([]string) int {
	fmt.Fprintln(os.Stderr, "qrdeskw starts qrdesk.exe on Windows; run qrdesk here")
	return 2
}
