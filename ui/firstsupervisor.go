package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// The first supervisor is added in the window (app/firstsupervisor.go):
// the pickup desk started from the Start menu on a fresh desk asks for
// them at once, and the Staff screen of any window offers it while the
// desk has never had a supervisor. Name, the PIN twice, then their badge.

// firstSupervisorForm asks for the desk's first supervisor.
type firstSupervisorForm struct {
	env        *env
	name       *escEntry
	pin, again *escEntry
	add        *keyButton
	buttons    *fyne.Container
	message    *widget.Label
	content    *fyne.Container
	done       func(app.Operator) // told once they are added and signed in
}

func newFirstSupervisorForm(e *env, done func(app.Operator)) *firstSupervisorForm {
	f := &firstSupervisorForm{env: e, name: newEscEntry(), pin: newEscPasswordEntry(), again: newEscPasswordEntry(),
		message: widget.NewLabel(""), done: done}
	f.name.SetPlaceHolder(T("The supervisor's name, as the desk knows them"))
	f.pin.SetPlaceHolder(T("{{.Min}} to {{.Max}} digits", map[string]any{"Min": app.MinPINDigits, "Max": app.MaxPINDigits}))
	f.again.SetPlaceHolder(T("The same PIN again"))
	f.message.Wrapping = fyne.TextWrapWord
	f.name.OnSubmitted = func(string) { e.win.Canvas().Focus(f.pin) }
	f.pin.OnSubmitted = func(string) { e.win.Canvas().Focus(f.again) }
	f.again.OnSubmitted = func(string) { f.submit() }
	f.add = newKeyButton(T("Add the supervisor"), f.submit)
	f.add.Importance = widget.HighImportance
	guardBadges(e, &f.name.Entry) // the PIN fields hide what is typed
	intro := widget.NewLabel(T("This desk has no supervisor yet. Add the first one here: they unlock the pickup desk with their badge or name and PIN, approve what a picker may not do, and add the other operators on the Staff screen."))
	intro.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(widget.NewFormItem(T("Name"), f.name), widget.NewFormItem(T("PIN"), f.pin), widget.NewFormItem(T("PIN again"), f.again))
	f.buttons = container.NewHBox(f.add)
	f.content = container.NewVBox(intro, form, f.message, f.buttons)
	return f
}

// submit adds the supervisor off the UI goroutine and signs them in.
func (f *firstSupervisorForm) submit() {
	name, pin := strings.TrimSpace(f.name.Text), f.pin.Text
	switch {
	case name == "":
		f.message.SetText(T("Type the supervisor's name"))
		f.env.win.Canvas().Focus(f.name)
		return
	case pin != f.again.Text:
		f.message.SetText(T("The two PINs differ: type the PIN again in both fields"))
		f.pin.SetText("")
		f.again.SetText("")
		f.env.win.Canvas().Focus(f.pin)
		return
	}
	f.add.Disable()
	by := f.env.operator()
	f.env.background(func() {
		op, err := f.env.signIn.staff.AddFirstSupervisor(context.Background(), name, pin, by)
		onUI(func() {
			f.add.Enable()
			if err != nil {
				f.message.SetText(T("Not added: {{.Why}}", map[string]any{"Why": staffProblem(err)}))
				return
			}
			f.name.SetText("")
			f.pin.SetText("")
			f.again.SetText("")
			f.message.SetText("")
			f.env.signIn.set(&op)
			if f.done != nil {
				f.done(op)
			}
		})
	})
}

// firstSupervisorDialog is the form over the window, with the badge after.
type firstSupervisorDialog struct {
	form   *firstSupervisorForm
	badge  *keyButton // saves the new supervisor's badge; Enter presses it too
	saved  *widget.Label
	dialog dialog.Dialog
	added  *app.Operator
}

// askFirstSupervisor shows the form over the window: once the supervisor
// is added and signed in, it offers their badge, and then runs next (the
// desk's set-up).
func (e *env) askFirstSupervisor(next func()) *firstSupervisorDialog {
	d := &firstSupervisorDialog{saved: widget.NewLabel("")}
	d.saved.Wrapping = fyne.TextWrapWord
	hide := func() { d.dialog.Hide() }
	body := container.NewStack()
	d.badge = newKeyButton(T("Save their badge"), func() { d.saveBadge(e) })
	d.badge.Importance = widget.HighImportance
	d.form = newFirstSupervisorForm(e, func(op app.Operator) {
		d.added = &op
		said := widget.NewLabel(T("{{.Name}} is this desk's supervisor and is signed in. Save their badge and print it at 100 %: it signs them in and unlocks the pickup desk. Keep it like a key.", map[string]any{"Name": op.Name}))
		said.Wrapping = fyne.TextWrapWord
		body.Objects = []fyne.CanvasObject{container.NewVBox(said, d.saved, container.NewHBox(newKeyButton(T("Done"), hide), d.badge))}
		body.Refresh()
		e.win.Canvas().Focus(d.badge)
	})
	d.form.buttons.Objects = []fyne.CanvasObject{newKeyButton(T("Later"), hide), d.form.add}
	d.form.name.onEsc, d.form.pin.onEsc, d.form.again.onEsc = hide, hide, hide
	body.Objects = []fyne.CanvasObject{d.form.content}
	d.dialog = dialog.NewCustomWithoutButtons(T("The first supervisor"), body, e.win)
	d.dialog.SetOnClosed(func() {
		if next != nil {
			next()
		}
	})
	d.dialog.Resize(fyne.NewSize(520, 0))
	d.dialog.Show()
	e.win.Canvas().Focus(d.form.name)
	return d
}

// saveBadge saves the new supervisor's badge in the save folder and says
// where.
func (d *firstSupervisorDialog) saveBadge(e *env) {
	if d.added == nil {
		return
	}
	op := *d.added
	d.badge.Disable()
	e.background(func() {
		staff := e.signIn.staff
		badges, err := badgesOf(staff, op)
		path := ""
		if err == nil {
			path, err = e.saveBadges(staff, badges, badgeFileName(op.Name))
		}
		onUI(func() {
			d.badge.Enable()
			d.saved.SetText(badgesSavedText(path, err))
		})
	})
}
