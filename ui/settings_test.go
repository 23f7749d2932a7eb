package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
)

// TestSettingsControls: on/off settings are checkboxes, choices are lists
// (date and serial, sound, start screen, template, QR level, printer), and
// every visible setting of the registry has its control.
func TestSettingsControls(t *testing.T) {
	h := newHarness(t)
	s := h.ui.settings
	for _, d := range app.SettingDefs {
		if _, ok := s.fields[d.Key]; ok == d.Hidden {
			t.Fatalf("setting %s: on the screen %v, hidden %v", d.Key, ok, d.Hidden)
		}
	}
	for _, key := range []string{"date_serial", "sound"} {
		if s.fields[key].check == nil {
			t.Fatalf("%s is not a checkbox", key)
		}
	}
	for _, key := range []string{"start_screen", "template", "qr_ec"} {
		if s.fields[key].choice == nil {
			t.Fatalf("%s is not a list", key)
		}
	}
	if s.fields["printer"].combo == nil || s.fields["expires"].combo == nil {
		t.Fatal("printer and expiry are not lists")
	}
	if !s.fields["date_serial"].check.Checked || s.fields["qr_ec"].choice.Selected != "M (15 %, default)" ||
		s.fields["start_screen"].choice.Selected != "Scan" || s.fields["template"].choice.Selected != "L7160" {
		t.Fatalf("the controls do not show the stored settings")
	}
	fyne.DoAndWait(func() {
		s.fields["sound"].check.SetChecked(false)
		s.fields["qr_ec"].choice.SetSelectedIndex(3)
		s.fields["start_screen"].choice.SetSelected("Today")
		s.fields["template"].choice.SetSelected("5163")
		s.saveAll()
	})
	waitFor(t, "saved", func() bool { return s.message.Text == "Saved" })
	set, _ := h.svc.Settings(context.Background())
	if set.Sound || set.QREC != "H" || set.StartScreen != "today" || set.Template != "5163" {
		t.Fatalf("stored: sound %v, qr_ec %s, start %s, template %s", set.Sound, set.QREC, set.StartScreen, set.Template)
	}
}

// TestSettingsErrorAtOnce: a bad value is shown beside its field as it is
// typed, in the clerk's words (no internal key names), and disappears when
// the value is fixed.
func TestSettingsErrorAtOnce(t *testing.T) {
	h := newHarness(t)
	f := h.ui.settings.fields["serial_digits"]
	fyne.DoAndWait(func() {
		f.entry.SetText("")
		test.Type(f.entry, "12")
	})
	if !f.problem.Visible() || f.problem.Text != "Not allowed: use a number from 3 to 8" {
		t.Fatalf("problem shown %v: %q", f.problem.Visible(), f.problem.Text)
	}
	if f.problem.Importance != widget.DangerImportance {
		t.Fatal("the problem is not in the error colour")
	}
	for _, fl := range h.ui.settings.fields {
		if strings.Contains(fl.problem.Text, "_") {
			t.Fatalf("a problem names an internal key: %q", fl.problem.Text)
		}
	}
	fyne.DoAndWait(func() { f.entry.SetText("6") })
	if f.problem.Visible() {
		t.Fatalf("the problem stays after the value was fixed: %q", f.problem.Text)
	}
}

// TestSettingsWheelScrollsPage: the mouse wheel over a field scrolls the
// Settings page (a field must not swallow it).
func TestSettingsWheelScrollsPage(t *testing.T) {
	h := newHarness(t)
	h.win.Resize(fyne.NewSize(1024, 600))
	fyne.DoAndWait(func() { h.ui.show("settings") })
	s := h.ui.settings
	entry := s.fields["station_name"].entry
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(entry).Add(fyne.NewPos(10, 10))
	fyne.DoAndWait(func() { test.Scroll(h.win.Canvas(), pos, 0, -120) })
	if s.scroll.Offset.Y <= 0 {
		t.Fatalf("the wheel over a field did not scroll the page (offset %v)", s.scroll.Offset)
	}
	// The same over a list that also takes typing (expiry).
	before := s.scroll.Offset.Y
	combo := s.fields["expires"].combo
	pos = fyne.CurrentApp().Driver().AbsolutePositionForObject(combo).Add(fyne.NewPos(10, 10))
	fyne.DoAndWait(func() { test.Scroll(h.win.Canvas(), pos, 0, -60) })
	if s.scroll.Offset.Y <= before {
		t.Fatalf("the wheel over the expiry list did not scroll the page (offset %v, was %v)", s.scroll.Offset.Y, before)
	}
}

// TestStartScreenSetting: the window opens on the start-screen setting,
// even after another screen was used last.
func TestStartScreenSetting(t *testing.T) {
	a := test.NewTempApp(t)
	h := newHarness(t)
	a.Preferences().SetString(prefLastScreen, "codes")
	if _, err := h.svc.UpdateSettings(context.Background(), map[string]string{"start_screen": "today"}, "test"); err != nil {
		t.Fatal(err)
	}
	w := a.NewWindow("qrdesk")
	h.ui.quiet()
	ui := openUI(t, a, w, h.svc, Options{Player: h.sound})
	if got := ui.current(); got != "today" {
		t.Fatalf("the window opened on %s, want today", got)
	}
}

// TestSettingsExpiryInWords: the expiry list shows words, not tokens, and
// a chosen word is stored as the value the program reads.
func TestSettingsExpiryInWords(t *testing.T) {
	h := newHarness(t)
	f := h.ui.settings.fields["expires"]
	if f.combo.Text != "never (labels do not expire)" {
		t.Fatalf("expiry shows %q", f.combo.Text)
	}
	fyne.DoAndWait(func() { f.combo.SetText("eod (end of the label's day)") })
	if f.value() != "eod" || f.problem.Visible() {
		t.Fatalf("value %q, problem %q", f.value(), f.problem.Text)
	}
	fyne.DoAndWait(func() { f.combo.SetText("72h") })
	if f.value() != "72h" || f.problem.Visible() {
		t.Fatalf("value %q, problem %q", f.value(), f.problem.Text)
	}
}
