package ui

import (
	"testing"

	"fyne.io/fyne/v2"
)

// menuBarHeight is what the main menu takes above the content on Linux.
const menuBarHeight = 40

// Every screen fits a 1024×600 netbook screen (and so 1366×768): nothing
// (the save message, the Codes page buttons, Today's conflicts) is cut off.
func TestEveryScreenFitsSmallScreens(t *testing.T) {
	h := newHarness(t)
	h.issue(t, 30)
	for _, screen := range h.ui.screens {
		fyne.DoAndWait(func() { h.ui.show(screen) })
		h.settle()
		var min fyne.Size
		fyne.DoAndWait(func() { min = h.win.Content().MinSize() })
		if min.Width > 1024 || min.Height > 600-menuBarHeight {
			t.Errorf("%s needs %.0f × %.0f px; a 1024 × 600 screen has 1024 × %d under the menu", screen, min.Width, min.Height, 600-menuBarHeight)
		}
	}
}
