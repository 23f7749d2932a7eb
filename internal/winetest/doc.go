// Package winetest holds the Windows checks that run on Linux under wine:
// qrdesk.exe end to end (cli_test.go), driven from a Linux test that
// decodes what the Windows program wrote with Linux tools; the MSI
// (msi_test.go); printing through the spooler (spooler_test.go); sync with
// a Linux qrdesk-server and an offline double use (sync_test.go); two
// processes on one database (twoprocs_test.go); and the real window under
// Xvfb, typed by xdotool (window_test.go).
//
// The harness itself is scripts/wine-exec.sh (a throwaway WINEPREFIX, the
// Windows user "Zoë Lämmer", and the test-only bcryptprimitives.dll shim
// built from shim/processprng.c, which is never shipped); make
// test-windows (scripts/test-windows.sh) runs the portable packages' tests
// cross-compiled under it and then this package. See docs/windows.md.
package winetest
