package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// Options choose how the window opens.
type Options struct {
	Screen string // scan, issue, codes, today or settings
}

// Run builds the main window on a and blocks until it is closed.
func Run(a fyne.App, svc *app.Service, opts Options) error {
	w := a.NewWindow("qrdesk")
	w.SetContent(widget.NewLabel("qrdesk"))
	w.Resize(fyne.NewSize(1000, 700))
	w.ShowAndRun()
	return nil
}
