package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
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

// A desk with operators fits a 1024 × 600 screen too, in English and
// Chinese: every screen with the sign-in bar (at the right of the tab row:
// a row of its own made Issue & print 22 px too tall), the Staff screen of
// a supervisor at a desk on the staff list with badges a sync stopped, and
// the pickup desk's first supervisor's form.
func TestStaffFitsSmallScreens(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		h := newSignInHarness(t, false)
		h.db.SQL().Exec(`INSERT INTO sync_state (key, value) VALUES ('server_kinds', '["staff"]')`)
		h.db.NoteStoppedBadges(context.Background(), []app.StoppedBadge{{Name: "li"}, {Name: "Jürgen Groß", Removed: true}}, h.clock.Now().Unix())
		wang, _ := h.operators.Find(context.Background(), "wang")
		fyne.DoAndWait(func() {
			h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight))
			h.ui.env.signIn.set(&wang)
			h.ui.show("staff")
		})
		h.settle()
		var min fyne.Size
		fyne.DoAndWait(func() { min = h.win.Content().MinSize() })
		if h.ui.staff.mode != staffManage || min.Width > 1024 || min.Height > 600-menuBarHeight {
			t.Errorf("%s: Staff (%s) needs %.0f × %.0f px; a 1024 × 600 screen has 1024 × %d under the menu", lang, h.ui.staff.mode, min.Width, min.Height, 600-menuBarHeight)
		}
		fresh := newStaffHarness(t, true, nil)
		fyne.DoAndWait(func() {
			fresh.win.Resize(fyne.NewSize(1024, 600-menuBarHeight))
			fresh.ui.start()
		})
		var form fyne.Size
		fyne.DoAndWait(func() { form = fresh.ui.first.form.content.MinSize() })
		if form.Width > 1024 || form.Height > 600-menuBarHeight-100 {
			t.Errorf("%s: the first supervisor's form needs %.0f × %.0f px", lang, form.Width, form.Height)
		}
		t.Logf("%s: Staff needs %.0f × %.0f px, the first supervisor's form %.0f × %.0f", lang, min.Width, min.Height, form.Width, form.Height)
		override = nil
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

// TestFirstWindowFitsTheScreen: on first start on a screen smaller than
// the first window (a 1024 × 600 netbook, whose room under a taskbar and
// a title bar Windows says is about 1024 × 537) the window is made to fit
// it: Fyne centres a 1200 × 660 window there 30 px above the screen's top,
// and under wine the menu and the sign-in bar were off the screen. Where
// the screen's size is not known (0 × 0) or larger, the size is the
// default one.
func TestFirstWindowFitsTheScreen(t *testing.T) {
	for _, tc := range []struct{ screen, want fyne.Size }{
		{fyne.NewSize(1024, 537), fyne.NewSize(1024, 537)},
		{fyne.NewSize(1366, 705), defaultWindow},
		{fyne.NewSize(1280, 600), fyne.NewSize(1200, 600)},
		{fyne.Size{}, defaultWindow},
	} {
		if got := firstWindowSize(tc.screen); got != tc.want {
			t.Errorf("on a screen with %v of room the first window is %v, want %v", tc.screen, got, tc.want)
		}
	}
}
