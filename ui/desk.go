package ui

import (
	"context"

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

// signedIn follows a sign-in or sign-out: the Staff screen shows what the
// one signed in may do, the Scan screen asks for a badge while nobody is,
// and a desk-mode window is unlocked while a supervisor is signed in.
func (ui *mainUI) signedIn(op *app.Operator) {
	if ui.staff != nil {
		ui.staff.refresh()
	}
	ui.askBadge()
	if !ui.desk {
		return
	}
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

// askBadge makes the Scan screen ask for a badge between scans while
// nobody is signed in where someone must be: a desk-mode window, or one
// whose desk has operators (a label scanned then gets SIGN IN FIRST).
func (ui *mainUI) askBadge() {
	_, in := ui.env.signIn.current()
	ui.scan.setAskBadge(ui.env.signIn != nil && !in && (ui.desk || ui.hasStaff))
}

// quit closes the window; on a locked desk only once a supervisor approves
// (a picker must not leave the desk's window for the desktop), unless the
// desk has no supervisor who could. The Operator menu's Quit and the
// window's close button both come here.
func (ui *mainUI) quit() {
	if ui.desk && ui.locked && ui.env.signIn != nil && ui.hasSupervisor() {
		if _, ok := ui.env.supervisor(T("Quit the desk's window"), ui.env.win.Close); !ok {
			return
		}
	}
	ui.env.win.Close()
}

// hasSupervisor reports whether the desk has a current supervisor (one
// small read on the UI goroutine: operators change from the command line
// and the staff list while the window runs). A read that fails counts as
// yes: the desk stays guarded.
func (ui *mainUI) hasSupervisor() bool {
	sups, err := ui.env.signIn.staff.Supervisors(context.Background())
	return err != nil || sups.Current
}

// neverHadSupervisor reports whether the desk never had a supervisor (a
// read that fails says no: the desk stays as it was).
func (ui *mainUI) neverHadSupervisor() bool {
	sups, err := ui.env.signIn.staff.Supervisors(context.Background())
	return err == nil && !sups.Ever
}

// firstSupervisorOnSignIn makes Sign in… (and Ctrl+L) of a desk-mode
// window on a desk that never had a supervisor ask for the first one: no
// badge nor PIN could unlock it.
func (ui *mainUI) firstSupervisorOnSignIn() {
	s := ui.env.signIn
	signIn := s.signIn.OnTapped
	s.signIn.OnTapped = func() {
		if ui.neverHadSupervisor() {
			ui.first = ui.env.askFirstSupervisor(ui.setUp)
			return
		}
		signIn()
	}
}

// askFirstSupervisorAtStart: a desk-mode window on a desk that never had
// a supervisor asks for the first one as it opens; the desk's set-up
// follows.
func (ui *mainUI) askFirstSupervisorAtStart() {
	ui.env.background(func() {
		if ui.neverHadSupervisor() {
			fyne.Do(func() { ui.first = ui.env.askFirstSupervisor(ui.setUp) })
		}
	})
}
