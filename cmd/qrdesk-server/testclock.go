//go:build qrdesk_testclock

package main

import (
	"fmt"
	"os"

	"qrdesk/internal/testclock"
)

// A build with the qrdesk_testclock tag (only the CLI tests make one) runs
// on the clock its parent test hands it in $QRDESK_TEST_NOW, so the server
// and the station processes agree on the day. Release builds have no such
// switch.
func init() {
	now, err := testclock.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "qrdesk-server:", err)
		os.Exit(2)
	}
	if now != nil {
		clock = now
	}
}
