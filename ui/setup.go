package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// setupKeys are asked on the first run, each explained in one line (the
// help of settingFields).
var setupKeys = []string{"station_name", "station_id", "prefix", "daily", "date_serial", "serial_digits", "expires", "template"}

// setupForm is the first-run set-up: the basics before anything is issued.
type setupForm struct {
	env     *env
	entries map[string]*widget.Entry
	items   []*widget.FormItem
}

func newSetupForm(e *env) *setupForm {
	f := &setupForm{env: e, entries: map[string]*widget.Entry{}}
	values := e.current().Values()
	for _, key := range setupKeys {
		for _, sf := range settingFields {
			if sf.key != key {
				continue
			}
			entry := widget.NewEntry()
			entry.SetText(values[key])
			if key == "station_name" && values[key] == app.DefaultSettings().StationName {
				entry.SetText(T("Station A")) // the default, in the clerk's language
			}
			k := key
			entry.Validator = func(v string) error {
				probe := app.DefaultSettings()
				if err := probe.Set(k, v); err != nil {
					return userError(err.Error())
				}
				return nil
			}
			item := widget.NewFormItem(T(sf.label), entry)
			item.HintText = T(sf.help)
			f.entries[key] = entry
			f.items = append(f.items, item)
		}
	}
	return f
}

// apply saves the answers and marks the station configured.
func (f *setupForm) apply(ctx context.Context) error {
	changes := map[string]string{"configured": "true"}
	for key, entry := range f.entries {
		changes[key] = strings.TrimSpace(entry.Text)
	}
	if _, err := f.env.svc.UpdateSettings(ctx, changes, f.env.operator()); err != nil {
		return err
	}
	return f.env.reloadSettings()
}

// show opens the set-up as a dialog; done runs after it was saved.
func (f *setupForm) show(done func()) {
	d := dialog.NewForm(T("Set up this station"), T("Save"), T("Later"), f.items, func(ok bool) {
		if !ok {
			return
		}
		go func() {
			err := f.apply(context.Background())
			fyne.Do(func() {
				if err != nil {
					f.env.showError(err)
					return
				}
				done()
			})
		}()
	}, f.env.win)
	d.Resize(fyne.NewSize(640, 560))
	d.Show()
	// The keyboard starts in the first question, not behind the dialog.
	f.env.win.Canvas().Focus(f.entries[setupKeys[0]])
}
