package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// TestSetUpFitsSmallScreens: the station's set-up dialog fits a 1024 × 600
// screen under the menu, in English and Chinese, with a field's error
// shown (a badge or a typo in Prefix): it needed more height than the
// window had, and the last field's help ran under the Save and Later
// buttons.
func TestSetUpFitsSmallScreens(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		h := newHarness(t)
		f := newSetupForm(h.ui.env)
		var box fyne.Size
		fyne.DoAndWait(func() {
			h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight))
			f.show(func() {})
			f.fields[f.order[0]].entry.SetText("W1") // not a prefix: its error shows
			box = h.win.Canvas().Overlays().Top().(*widget.PopUp).Content.MinSize()
		})
		override = nil
		t.Logf("%s: the set-up needs %.0f × %.0f px", lang, box.Width, box.Height)
		if box.Width > 1024 || box.Height > 600-menuBarHeight {
			t.Errorf("%s: the set-up dialog needs %.0f × %.0f px; a 1024 × 600 screen has 1024 × %d under the menu", lang, box.Width, box.Height, 600-menuBarHeight)
		}
	}
}
