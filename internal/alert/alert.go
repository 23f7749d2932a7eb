// Package alert shows a message in a dialog of the system's own, for what
// stops the window before Fyne is up: on Windows a MessageBox (user32,
// through golang.org/x/sys/windows: no cgo, so the command-line build has
// it too). Elsewhere there is none: a Linux desk is started from a
// terminal or a desktop entry whose output the session keeps, and the
// failure is in qrdesk.log either way.
package alert

// Func is the dialog (cli.Env.Alert): nil where the system has none.
var Func func(title, text string)
