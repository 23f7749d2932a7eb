package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// setupForm is the first-run set-up: the settings marked Setup in
// app.SettingDefs, the basics before anything is issued.
type setupForm struct {
	env    *env
	fields map[string]*settingField
	order  []string // keys in the order asked
	items  []*widget.FormItem
	submit func() // Enter in a question: Save (set while the dialog is up)
}

func newSetupForm(e *env) *setupForm {
	f := &setupForm{env: e, fields: map[string]*settingField{}}
	set := e.current()
	for _, def := range app.SettingDefs {
		if !def.Setup {
			continue
		}
		field := newSettingField(e, def)
		v := set.Value(def.Key)
		if def.Key == "station_name" && v == app.DefaultSettings().StationName {
			v = T("Station A") // the default, in the clerk's language
		}
		field.setValue(v)
		for _, en := range field.entries() {
			en.OnSubmitted = func(string) { // Enter saves, as Save does
				if f.submit != nil {
					f.submit()
				}
			}
		}
		guardBadges(e, field.entries()...)  // a badge scanned while the set-up is up signs in, never shows here
		refuseLabels(e, field.entries()...) // a label scanned then is refused (setup_keys.go)
		f.fields[def.Key], f.order = field, append(f.order, def.Key)
		f.items = append(f.items, field.formItem())
	}
	return f
}

// answers validates the fields (on the UI goroutine: a bad one shows its
// problem) and returns the changes that mark the station configured.
func (f *setupForm) answers() (map[string]string, error) {
	changes := map[string]string{"configured": "true"}
	for key, field := range f.fields {
		if err := field.validate(); err != nil {
			return nil, &app.Error{Kind: app.KindInvalid, Message: T(field.def.Label) + ": " + err.Error()}
		}
		changes[key] = field.value()
	}
	return changes, nil
}

// save stores the answers (off the UI goroutine).
func (f *setupForm) save(ctx context.Context, changes map[string]string) error {
	if _, err := f.env.svc.UpdateSettings(ctx, changes, f.env.operator()); err != nil {
		return err
	}
	return f.env.reloadSettings()
}

// apply validates and saves the answers.
func (f *setupForm) apply(ctx context.Context) error {
	changes, err := f.answers()
	if err != nil {
		return err
	}
	return f.save(ctx, changes)
}

// show opens the set-up as a dialog; done runs after it was saved. The
// keyboard works it as the window's other forms: Enter in a question or
// on Save saves, Esc anywhere (a question, Save, Later) is Later, and Tab
// from the last question goes to Save, then Later.
func (f *setupForm) show(done func()) {
	// The form scrolls: with a field's error shown it is taller than a
	// 1024 × 600 screen, and the last help ran under the buttons.
	body := container.NewVScroll(widget.NewForm(f.items...))
	body.SetMinSize(fyne.NewSize(600, 400))
	d := dialog.NewCustomWithoutButtons(T("Set up this station"), body, f.env.win)
	closed := false
	later := func() {
		closed = true
		f.submit = nil
		d.Hide()
	}
	save := func() {
		if closed {
			return
		}
		changes, err := f.answers()
		if err != nil {
			f.env.showError(err)
			return
		}
		later()
		go func() {
			err := f.save(context.Background(), changes)
			onUI(func() {
				if err != nil {
					f.env.showError(err)
					return
				}
				done()
			})
		}()
	}
	saveBtn := newKeyButton(T("Save"), save)
	saveBtn.Importance = widget.HighImportance
	saveBtn.onEsc = later
	laterBtn := newKeyButton(T("Later"), later)
	laterBtn.onEsc = later
	d.SetButtons([]fyne.CanvasObject{saveBtn, laterBtn})
	d.Resize(fyne.NewSize(640, 600)) // as tall as the window lets it, scrolling below that
	for _, field := range f.fields {
		field.setOnEsc(later) // Esc is Later, from whichever question has the keyboard
	}
	f.submit = save
	d.Show()
	// The keyboard starts in the first question, not behind the dialog.
	if len(f.order) > 0 {
		f.env.win.Canvas().Focus(f.fields[f.order[0]].focusable())
	}
}
