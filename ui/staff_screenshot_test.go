package ui

import (
	"context"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"

	"qrdesk/app"
)

// TestStaffScreenshots draws the Staff screen (a supervisor signed in, a
// picker whose PIN is locked, a badge a sync stopped, German names) and
// the pickup desk's first supervisor's form as a 1024 × 600 screen shows
// them, in English and Chinese, into $QRDESK_SCREENSHOTS/staff[-zh].png
// and first-supervisor[-zh].png ('make screenshots').
func TestStaffScreenshots(t *testing.T) {
	dir, suffix := screenshotsIn(t)
	loadTranslations()
	ctx := context.Background()
	h := newSignInHarness(t, false)
	fyne.CurrentApp().Settings().SetTheme(newTheme())
	h.operators.Add(ctx, "Jürgen Groß", "2468", false, "wang")
	for range app.PINTries {
		h.operators.SignInPIN(ctx, "li", "0000")
	}
	h.db.NoteStoppedBadges(ctx, []app.StoppedBadge{{Name: "Zoë Lämmer", Removed: true}}, h.clock.Now().Unix())
	wang, _ := h.operators.Find(ctx, "wang")
	fyne.DoAndWait(func() {
		h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight))
		h.ui.env.signIn.set(&wang)
		h.ui.show("staff")
	})
	h.settle()
	fyne.DoAndWait(func() { h.ui.staff.choose("li") })
	capture(t, h.harness, filepath.Join(dir, "staff"+suffix+".png"))

	first := newStaffHarness(t, true, nil)
	fyne.DoAndWait(func() {
		first.win.Resize(fyne.NewSize(1024, 600-menuBarHeight))
		first.ui.start()
	})
	first.settle()
	capture(t, first.harness, filepath.Join(dir, "first-supervisor"+suffix+".png"))
}
