package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestVerdictScreenshots draws every verdict of the Scan screen as a
// 1024 × 600 screen shows it under the menu bar, in English and Chinese,
// into $QRDESK_SCREENSHOTS/verdict-NAME[-zh].png ('make screenshots').
// TestVerdictTextsFitThePanel checks the same lines fit.
func TestVerdictScreenshots(t *testing.T) {
	dir, suffix := screenshotsIn(t)
	loadTranslations()
	h := newHarness(t)
	fyne.CurrentApp().Settings().SetTheme(newTheme())
	code := h.issue(t, 1)[0]
	fyne.DoAndWait(func() { h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight)) })
	for _, v := range everyVerdict(code) {
		fyne.DoAndWait(func() { v.show(h.ui.scan) })
		name := strings.NewReplacer(" ", "-", "(", "", ")", "").Replace(strings.ToLower(v.name))
		capture(t, h, filepath.Join(dir, "verdict-"+name+suffix+".png"))
	}
}
