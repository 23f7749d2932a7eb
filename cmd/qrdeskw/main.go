// Command qrdeskw is what the Start-menu entries start on Windows: a small
// window program (linked -H windowsgui, so no console window opens) that
// runs qrdesk.exe from its own folder with the same arguments, without a
// console, and ends with its exit code. The MSI carries the program once:
// before, qrdeskw.exe was a second 39 MB build of the whole desk, 44 bytes
// apart from qrdesk.exe. What stops qrdesk.exe is written to qrdesk.log and
// shown in a dialog by qrdesk.exe itself (cli/startfail.go); only a
// qrdesk.exe that cannot be started at all is said here.
package main

import "os"

func main() { os.Exit(launch(os.Args[1:])) }
