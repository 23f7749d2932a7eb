package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

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
