package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
)

// confirm asks a yes/no question that the keyboard answers: Enter says
// yes, Esc says no (Fyne's own dialogs take neither). The keys arrive
// through the window's routeKey while no field of the dialog has focus.
func (e *env) confirm(title, message, yes string, answer func(bool)) *dialog.ConfirmDialog {
	d := dialog.NewConfirm(title, message, func(ok bool) {
		e.dialogKeys = nil
		answer(ok)
	}, e.win)
	d.SetConfirmText(yes)
	d.SetDismissText(T("Cancel"))
	e.answerKeys(d)
	d.Show()
	return d
}

// confirmWith is confirm with content of its own (a question and a choice
// under it).
func (e *env) confirmWith(title, yes string, content fyne.CanvasObject, answer func(bool)) *dialog.ConfirmDialog {
	d := dialog.NewCustomConfirm(title, yes, T("Cancel"), content, func(ok bool) {
		e.dialogKeys = nil
		answer(ok)
	}, e.win)
	e.answerKeys(d)
	d.Show()
	return d
}

// answerKeys lets Enter say yes and Esc no to d while it is up.
func (e *env) answerKeys(d *dialog.ConfirmDialog) {
	e.dialogKeys = func(k *fyne.KeyEvent) {
		switch k.Name {
		case fyne.KeyReturn, fyne.KeyEnter:
			d.Confirm()
		case fyne.KeyEscape:
			d.Dismiss()
		}
	}
}
