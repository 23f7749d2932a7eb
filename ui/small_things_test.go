package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"qrdesk/app"
)

// TestDefaultWindowFitsALaptop: on first start the window fits a
// 1366 × 768 screen under a title bar (about 30 px) and above a taskbar
// (about 48 px).
func TestDefaultWindowFitsALaptop(t *testing.T) {
	if defaultWindow.Width > 1366 || defaultWindow.Height > 768-30-48 {
		t.Fatalf("the first window is %v: taller or wider than a 1366 × 768 screen leaves", defaultWindow)
	}
	if defaultWindow.Width < 1024 || defaultWindow.Height < 600-menuBarHeight {
		t.Fatalf("the first window is %v: smaller than the screens need", defaultWindow)
	}
}

// TestSignInErrorIsASentence: a refused PIN is said as a sentence, with a
// capital letter, in the sign-in form.
func TestSignInErrorIsASentence(t *testing.T) {
	h := newSignInHarness(t, false)
	kb := keyboard{h.win}
	kb.ctrl(fyne.KeyL)
	f := h.formUp(t)
	kb.typeText("wang")
	kb.press(fyne.KeyTab)
	kb.typeText("0000")
	kb.press(fyne.KeyReturn)
	waitFor(t, "the refusal", func() bool { return f.message.Text != "" })
	if r := []rune(f.message.Text)[0]; !unicode.IsUpper(r) {
		t.Fatalf("the sign-in form says %q: want a sentence", f.message.Text)
	}
}

// The sign-in form's refusal keeps the name's own case: "li" stays "li".
func TestSignInErrorKeepsTheName(t *testing.T) {
	override = chineseTexts(t)
	defer func() { override = nil }()
	if got := T("Not signed in: {{.Why}}", map[string]any{"Why": "li was removed"}); got != "未登录：li was removed" {
		t.Fatalf("in Chinese: %q", got)
	}
}

// TestTodayRefusalNamesWhole: every refusal card on Today shows its
// reason whole (no "REFUSED BY THE S…"), in English and Chinese.
func TestTodayRefusalNamesWhole(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		h := newHarness(t)
		fyne.CurrentApp().Settings().SetTheme(newTheme())
		for o, c := range h.ui.today.refused {
			l := c.label
			w := fyne.MeasureText(l.Text, theme.TextSize(), l.TextStyle).Width + 4*theme.InnerPadding()
			if w > refusalCardWidth {
				t.Errorf("%s %s: %q needs %.0f px on a %d px card", lang, o, l.Text, w, refusalCardWidth)
			}
		}
		override = nil
	}
}

// TestCloseDaySavesWhereLabelsSave: the close-day page's Save PDF writes
// into the same folder as the labels' Save PDF and Export CSV, with no
// file dialog, and says where.
func TestCloseDaySavesWhereLabelsSave(t *testing.T) {
	h := newHarness(t)
	h.ui.env.saveDir = t.TempDir()
	h.issue(t, 1)
	d := newCloseDayDialog(h.ui.env, nil)
	fyne.DoAndWait(func() { d.run() })
	h.settle()
	waitFor(t, "the close", func() bool { return d.closed != nil })
	before := 0
	fyne.DoAndWait(func() { before = len(h.win.Canvas().Overlays().List()); test.Tap(d.save) })
	h.settle()
	want := filepath.Join(h.ui.env.saveDir, "qrdesk-day-"+d.closed.Figures.Date+".pdf")
	waitFor(t, "the saved page", func() bool { return strings.Contains(d.save.Text, want) })
	if data, err := os.ReadFile(want); err != nil || !strings.HasPrefix(string(data), "%PDF") {
		t.Fatalf("no page at %s: %v", want, err)
	}
	if n := len(h.win.Canvas().Overlays().List()); n != before {
		t.Fatalf("Save PDF opened a dialog: %d overlays, %d before", n, before)
	}
}

// TestNoSignInBarWithoutOperators: a station with no operators shows no
// "Sign in…" bar; it appears once an operator is added.
func TestNoSignInBarWithoutOperators(t *testing.T) {
	h := newHarness(t)
	staff := app.NewOperators(h.db, h.svc.Keys, h.clock.Now)
	w := fyne.CurrentApp().NewWindow("qrdesk")
	ui, err := newMainUI(fyne.CurrentApp(), w, h.svc, Options{Screen: "scan", Player: h.sound, TemplateDir: t.TempDir(), Operators: staff})
	if err != nil {
		t.Fatal(err)
	}
	ui.env.jobs.Wait()
	s := ui.env.signIn
	waitFor(t, "the bar to hide", func() bool { return !s.bar.Visible() })
	if _, err := staff.Add(context.Background(), "li", "4321", false, "admin"); err != nil {
		t.Fatal(err)
	}
	s.refreshBar(context.Background()) // as the window's watch does every 3 s
	waitFor(t, "the bar to show", func() bool { return s.bar.Visible() })
}
