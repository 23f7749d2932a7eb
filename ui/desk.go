package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"

	"qrdesk/app"
)

// Desk mode ('qrdesk gui --desk') is a pickup desk a picker cannot misuse:
// the window shows the Scan screen alone, with no tabs and no shortcuts to
// the others, until a supervisor signs in (badge or PIN). Signing the
// supervisor out locks it again.

// layout puts the sign-in bar over the screens, or over the Scan screen
// alone while the desk is locked. Over the screens it sits at the right
// end of the tab row, which the tabs leave free: a row of its own made
// every screen 40 px taller, and Issue & print no longer fit a 1024 × 600
// screen once the desk had operators.
func (ui *mainUI) layout() {
	s := ui.env.signIn
	if s == nil {
		if ui.locked {
			ui.env.win.SetContent(ui.scan.content)
			return
		}
		ui.env.win.SetContent(ui.tabs)
		return
	}
	ui.setMenu()
	top := fyne.CanvasObject(s.bar)
	if ui.desk {
		mode := canvas.NewText(T("DESK MODE"), colorUsed)
		if !ui.locked {
			mode.Text = T("UNLOCKED")
		}
		mode.TextStyle = fyne.TextStyle{Bold: true}
		top = container.NewHBox(container.NewCenter(mode), s.bar)
	}
	if ui.locked {
		ui.env.win.SetContent(container.NewBorder(top, nil, nil, nil, ui.scan.content))
		return
	}
	ui.env.win.SetContent(container.NewStack(ui.tabs, container.NewVBox(container.NewHBox(layout.NewSpacer(), top))))
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
// whose desk has operators (a label scanned then gets SIGN IN FIRST); a
// pickup desk that never had a supervisor asks for the first one instead.
func (ui *mainUI) askBadge() {
	_, in := ui.env.signIn.current()
	ask := ui.env.signIn != nil && !in && (ui.desk || ui.hasStaff)
	ui.scan.setAskBadge(ask, ask && ui.desk && ui.neverHadSupervisor())
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
// follows. It reads before the window is shown (start, as the settings
// are read), so the form is in its first frame and takes the first keys.
func (ui *mainUI) askFirstSupervisorAtStart() {
	if ui.neverHadSupervisor() {
		ui.first = ui.env.askFirstSupervisor(ui.setUp)
	}
}
