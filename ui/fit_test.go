package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
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

// The Issue & print screen still fits 1024 × 600 with what Save PDF did
// said under its button (the path makes it a long line).
func TestIssueFitsWithAPrintMessage(t *testing.T) {
	h := newHarness(t)
	h.ui.env.saveDir = t.TempDir()
	h.issue(t, 30)
	s := h.ui.issue
	fyne.DoAndWait(func() {
		h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight))
		h.ui.show("issue")
		s.template.SetSelected("L7160")
	})
	h.settle()
	fyne.DoAndWait(func() { test.Tap(s.saveBtn) })
	h.settle()
	var min fyne.Size
	var said string
	fyne.DoAndWait(func() { min, said = h.win.Content().MinSize(), s.printStatus.Text })
	if said == "" {
		t.Fatal("Save PDF said nothing")
	}
	if min.Width > 1024 || min.Height > 600-menuBarHeight {
		t.Errorf("with %q said, Issue & print needs %.0f × %.0f px; a 1024 × 600 screen has 1024 × %d under the menu", said, min.Width, min.Height, 600-menuBarHeight)
	}
}

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
