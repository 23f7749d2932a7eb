package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// settingFields are the settings the screen edits, with a one-line help.
var settingFields = []struct{ key, label, help string }{
	{"station_name", "Station name", "Shown in logs and in \"already used at …\""},
	{"station_id", "Station letter", "One letter A–Z, different at every station"},
	{"operator", "Operator", "Who works at this station now"},
	{"prefix", "Prefix", "Up to 6 letters printed first in every code (optional)"},
	{"daily", "Daily quantity", "Codes in a normal day's batch"},
	{"date_serial", "Date and serial", "true: print the date, station letter and daily serial"},
	{"serial_digits", "Serial digits", "3 to 8 digits"},
	{"expires", "Expiry", "never, eod (end of the label's day) or a time such as 72h or 7d"},
	{"template", "Label template", "See the Issue & print screen for the list"},
	{"label_title", "Label title", "Printed on every label, e.g. 提货码"},
	{"qr_ec", "QR error correction", "L, M (default), Q or H"},
	{"offset_x", "Offset right (mm)", "From the calibration page; negative moves left"},
	{"offset_y", "Offset down (mm)", "From the calibration page; negative moves up"},
	{"printer", "Printer", "CUPS printer name, or HOST:9100 for a network ZPL printer"},
	{"sound", "Sound", "true: beep on each scan"},
	{"start_screen", "Start screen", "scan, issue, codes, today or settings"},
	{"undo_window", "Undo window", "How long after a redemption a supervisor may undo it, e.g. 5m"},
}

// settingsScreen edits the station settings; a bad value is refused next to
// its field with the reason.
type settingsScreen struct {
	env     *env
	entries map[string]*widget.Entry
	save    *widget.Button
	message *widget.Label
	badges  *badgeSheet // the operators' badge sheet (badges.go)
	content fyne.CanvasObject
}

func newSettingsScreen(e *env) *settingsScreen {
	s := &settingsScreen{env: e, entries: map[string]*widget.Entry{}}
	form := widget.NewForm()
	for _, f := range settingFields {
		entry := widget.NewEntry()
		key := f.key
		entry.Validator = func(v string) error {
			probe := s.env.current()
			if err := probe.Set(key, v); err != nil {
				return userError(err.Error())
			}
			return nil
		}
		s.entries[key] = entry
		item := widget.NewFormItem(T(f.label), entry)
		item.HintText = T(f.help)
		form.AppendItem(item)
	}
	s.save = widget.NewButton(T("Save"), s.saveAll)
	s.save.Importance = widget.HighImportance
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.badges = newBadgeSheet(e)
	s.content = container.NewVScroll(container.NewVBox(form, s.save, s.message, s.badges.button, s.badges.message))
	e.onSaved = append(e.onSaved, s.load)
	return s
}

func (s *settingsScreen) load(set app.Settings) {
	values := set.Values()
	for key, entry := range s.entries {
		entry.SetText(values[key])
	}
}

// saveAll validates every field, then saves the changed ones together.
func (s *settingsScreen) saveAll() {
	changes := map[string]string{}
	current := s.env.current().Values()
	for key, entry := range s.entries {
		if err := entry.Validate(); err != nil {
			s.message.SetText(T("Not saved: {{.Error}}", map[string]any{"Error": err.Error()}))
			return
		}
		if v := strings.TrimSpace(entry.Text); v != current[key] {
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
				s.message.SetText(T("Not saved: {{.Error}}", map[string]any{"Error": app.ErrorMessage(err)}))
				return
			}
			s.message.SetText(T("Saved"))
		})
	}()
}
