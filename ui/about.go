package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// The About box: which qrdesk this is (release, commit, the protocol it
// speaks with the server, its database's schema: Options.Version), what a
// clerk reads out to support or compares with the dashboard's Desks page.

// helpMenu holds About, on every desk (a locked one too).
func (ui *mainUI) helpMenu() *fyne.Menu {
	return fyne.NewMenu(T("Help"), fyne.NewMenuItem(T("About qrdesk…"), ui.showAbout))
}

// showAbout opens the About box.
func (ui *mainUI) showAbout() {
	text := widget.NewLabel(ui.version)
	text.TextStyle = fyne.TextStyle{Monospace: true}
	text.Importance = widget.MediumImportance
	d := dialog.NewCustom(T("About qrdesk"), T("Close"), container.NewVBox(text), ui.env.win)
	ui.about = d
	d.Show()
}
