package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// settingsScreen edits the station settings, one control per setting of
// app.SettingDefs; a bad value is refused next to its field, at once.
type settingsScreen struct {
	env     *env
	fields  map[string]*settingField
	form    *widget.Form
	order   []string
	save    *keyButton
	message *widget.Label
	badges  *badgeSheet // the operators' badge sheet (badges.go)
	scroll  *container.Scroll
	content fyne.CanvasObject
}

func newSettingsScreen(e *env) *settingsScreen {
	s := &settingsScreen{env: e, fields: map[string]*settingField{}}
	form := widget.NewForm()
	s.form = form
	for _, def := range app.SettingDefs {
		if def.Hidden {
			continue
		}
		f := newSettingField(e, def)
		s.fields[def.Key], s.order = f, append(s.order, def.Key)
		form.AppendItem(f.formItem())
	}
	s.save = newKeyButton(T("Save"), s.saveAll)
	s.save.Importance = widget.HighImportance
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.badges = newBadgeSheet(e)
	s.scroll = container.NewVScroll(container.NewVBox(form, s.save, s.message, s.badges.button, s.badges.message))
	s.content = s.scroll
	e.onSaved = append(e.onSaved, s.load)
	e.mu.Lock()
	e.onStaff = append(e.onStaff, s.showStaff)
	e.mu.Unlock()
	if e.signIn != nil {
		e.background(func() { e.signIn.refreshBar(context.Background()) })
	}
	return s
}

func (s *settingsScreen) load(set app.Settings) {
	for key, f := range s.fields {
		f.setValue(set.Value(key))
	}
	// lpstat may take a moment: list the printers off the UI goroutine.
	s.env.background(func() {
		names, _ := listPrinters()
		fyne.Do(func() {
			f := s.fields["printer"]
			f.setOptions(names)
			// An empty setting is the first printer listed, which Issue &
			// print chooses: say so, not "no printer".
			if len(names) > 0 {
				f.combo.SetPlaceHolder(T("(not set: Issue & print uses {{.Printer}})", map[string]any{"Printer": names[0]}))
			} else {
				f.combo.SetPlaceHolder(T("(no printer: save a PDF)"))
			}
		})
	})
}

// showStaff makes the operator setting read as what it is once the
// station has operators: unused, as whoever signed in is named on each
// action (env.operator).
func (s *settingsScreen) showStaff(has bool) {
	f := s.fields["operator"]
	if f == nil {
		return
	}
	if has {
		f.entry.Disable()
		f.setHint(T("Not used at this station: operators sign in, and each action names who signed in"))
	} else {
		f.entry.Enable()
		f.setHint("")
	}
	s.form.Refresh()
}

// saveAll validates every field, then saves the changed ones together.
func (s *settingsScreen) saveAll() {
	changes := map[string]string{}
	current := s.env.current()
	for _, key := range s.order {
		f := s.fields[key]
		if err := f.validate(); err != nil {
			s.message.SetText(T("Not saved: {{.Error}}", map[string]any{"Error": fmt.Sprintf("%s: %v", T(f.def.Label), err)}))
			return
		}
		if v := f.value(); v != current.Value(key) {
			changes[key] = v
		}
	}
	if len(changes) == 0 {
		s.message.SetText(T("Nothing changed"))
		return
	}
	by, ok := s.env.supervisor(T("Change the settings"), s.saveAll)
	if !ok {
		return
	}
	go func() {
		_, err := s.env.svc.UpdateSettings(context.Background(), changes, by)
		if err == nil {
			err = s.env.reloadSettings()
		}
		fyne.Do(func() {
			if err != nil {
				s.message.SetText(T("Not saved: {{.Error}}", map[string]any{"Error": settingProblem(err)}))
				return
			}
			s.message.SetText(T("Saved"))
		})
	}()
}
