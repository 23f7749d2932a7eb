package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"qrdesk/protocol"
)

// TestConflictBarLeavesTheScanFieldInPlace: the red conflict bar a sync
// brings appears mid-shift, while the picker scans; it pushed the scan
// field (and the picker's eye) 60 px down. The field stays where it was,
// the bar shows under it, at 1366 × 768 and 1024 × 600.
func TestConflictBarLeavesTheScanFieldInPlace(t *testing.T) {
	for _, size := range []fyne.Size{fyne.NewSize(1366, 768-menuBarHeight), fyne.NewSize(1024, 600-menuBarHeight)} {
		h := newHarness(t)
		s := h.ui.scan
		var before, after, bar fyne.Position
		fyne.DoAndWait(func() {
			h.win.Resize(size)
			h.ui.show("scan")
		})
		h.settle()
		pos := func(o fyne.CanvasObject) fyne.Position {
			return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
		}
		fyne.DoAndWait(func() { before = pos(s.entry) })
		fyne.DoAndWait(func() {
			n := s.conflict
			n.text.Text = conflictNoticeText([]protocol.Conflict{{Code: "WH-261205-A0007-X", FirstStation: "Desk 1", SecondStation: "Desk 2"}}, 0)
			n.text.Refresh()
			n.box.Show()
			n.box.Refresh()
			h.win.Resize(fyne.NewSize(size.Width-1, size.Height)) // lay out again, as the driver does
			h.win.Resize(size)
			after, bar = pos(s.entry), pos(s.conflict.box)
		})
		if after != before {
			t.Errorf("%v: the conflict bar moved the scan field from %v to %v", size, before, after)
		}
		if !s.conflict.box.Visible() || bar.Y <= after.Y || s.conflict.box.Size().Height < 20 {
			t.Errorf("%v: the bar is at %v (shown %v, %v), want it shown under the scan field at %v", size, bar, s.conflict.box.Visible(), s.conflict.box.Size(), after)
		}
	}
}
