package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestStartFollowsThePartlyUsedSheet: a single replacement label saved on
// an L7160 sheet (21 labels) used a fresh sheet each time, and the clerk
// had to count the used positions. After a print, Start at position is
// the sheet's next free position (2, then 5 after three more); another
// template keeps its own, a roll always starts at 1; a sheet filled to its
// end starts a fresh one; and a new window (the next morning) remembers
// each template's position.
func TestStartFollowsThePartlyUsedSheet(t *testing.T) {
	h := newHarness(t)
	h.ui.env.saveDir = t.TempDir()
	s := h.ui.issue
	save := func(template string, n int) {
		t.Helper()
		h.issue(t, n)
		fyne.DoAndWait(func() {
			s.refresh()
		})
		h.settle()
		fyne.DoAndWait(func() {
			s.batchList.Select(0) // the newest batch
			s.template.SetSelected(template)
		})
		h.settle()
		fyne.DoAndWait(func() { test.Tap(s.saveBtn) })
		h.settle()
	}
	fyne.DoAndWait(func() { h.ui.show("issue") })
	save("L7160", 1)
	if s.start.Text != "2" {
		t.Fatalf("after one label on L7160 from position 1, Start is %q, want 2 (the screen says %q)", s.start.Text, s.printStatus.Text)
	}
	save("L7160", 3)
	if s.start.Text != "5" {
		t.Fatalf("after three more, Start is %q, want 5", s.start.Text)
	}
	save("L7163", 2) // 14 a sheet
	if s.start.Text != "3" {
		t.Fatalf("L7163 after two labels: Start is %q, want 3", s.start.Text)
	}
	fyne.DoAndWait(func() { s.template.SetSelected("L7160") })
	if s.start.Text != "5" {
		t.Fatalf("back on L7160, Start is %q, want its own 5", s.start.Text)
	}
	save("L7160", 17) // positions 5 to 21: the sheet is full
	if s.start.Text != "1" {
		t.Fatalf("after filling the sheet, Start is %q, want 1", s.start.Text)
	}
	save("L7160", 4)
	save("roll-50x30", 2)
	if s.start.Text != "1" {
		t.Fatalf("on a roll, Start is %q, want 1", s.start.Text)
	}

	// The next morning: a new window on the same desk.
	w := fyne.CurrentApp().NewWindow("qrdesk")
	w.Resize(fyne.NewSize(1200, 800))
	again := openUI(t, fyne.CurrentApp(), w, h.svc, Options{Screen: "issue", Player: h.sound, TemplateDir: t.TempDir()})
	fyne.DoAndWait(func() { again.issue.template.SetSelected("L7163"); again.issue.template.SetSelected("L7160") })
	if got := again.issue.start.Text; got != "5" {
		t.Fatalf("a new window on L7160 starts at %q, want 5", got)
	}
}
