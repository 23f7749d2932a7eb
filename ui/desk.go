package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"qrdesk/app"
)

// Desk mode ('qrdesk gui --desk') is a pickup desk a picker cannot misuse:
// the window shows the Scan screen alone, with no tabs and no shortcuts to
// the others, until a supervisor signs in (badge or PIN). Signing the
// supervisor out locks it again.

// layout puts the sign-in bar over the screens, or over the Scan screen
// alone while the desk is locked.
func (ui *mainUI) layout() {
	var body fyne.CanvasObject = ui.tabs
	if ui.locked {
		body = ui.scan.content
	}
	var top fyne.CanvasObject
	if s := ui.env.signIn; s != nil {
		ui.setMenu()
		top = s.bar
		if ui.desk {
			mode := canvas.NewText(T("DESK MODE"), colorUsed)
			if !ui.locked {
				mode.Text = T("DESK MODE: unlocked by a supervisor")
			}
			mode.TextStyle = fyne.TextStyle{Bold: true}
			top = container.NewHBox(mode, s.bar)
		}
	}
	if top == nil {
		ui.env.win.SetContent(body)
		return
	}
	ui.env.win.SetContent(container.NewBorder(top, nil, nil, nil, body))
}

// signedIn locks or unlocks a desk-mode window: unlocked while a supervisor
// is signed in.
func (ui *mainUI) signedIn(op *app.Operator) {
	if !ui.desk {
		return
	}
	ui.scan.setAskBadge(op == nil)
	locked := op == nil || !op.Supervisor
	if locked == ui.locked {
		return
	}
	ui.locked = locked
	if locked {
		ui.tabs.SelectIndex(0)
	}
	ui.layout()
	ui.show(ui.current())
}

// quit closes the window; on a locked desk only once a supervisor approves
// (a picker must not leave the desk's window for the desktop). The
// Operator menu's Quit and the window's close button both come here.
func (ui *mainUI) quit() {
	if ui.desk && ui.locked && ui.env.signIn != nil {
		if _, ok := ui.env.supervisor(T("Quit the desk's window"), ui.env.win.Close); !ok {
			return
		}
	}
	ui.env.win.Close()
}
