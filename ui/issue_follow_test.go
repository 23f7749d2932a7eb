package ui

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
)

// highlighted is the row the list highlights, -1 for none.
// (Fyne's List keeps it unexported; reading it by reflection is enough here.)
func highlighted(s *issueScreen) int {
	sel := reflect.ValueOf(s.batchList).Elem().FieldByName("selected")
	if sel.Len() == 0 {
		return -1
	}
	return int(sel.Index(0).Int())
}

// A clerk has the Issue screen open on batch 1. Meanwhile batch 2 is issued
// at the command line. The clerk comes back to the screen: the list shows
// batch 2 on top, and the highlight must stay on the batch Print takes
// (batch 1), not on the top row. Printing batch 1, never printed, while a
// newer batch exists asks first; Esc prints nothing, Enter prints batch 1.
func TestPrintTakesTheHighlightedBatchAndAsksForAnOlderOne(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	h.ui.env.saveDir = t.TempDir()
	argsFile := fakeLP(t)
	h.issue(t, 5)
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160")
		s.printer.Options = []string{"Office"}
		s.printer.SetSelected("Office")
	})
	h.settle()
	if s.selected == nil || s.selected.ID != 1 {
		t.Fatalf("selected %+v, want batch 1", s.selected)
	}
	// Batch 2, at the command line.
	if _, _, err := h.svc.Issue(context.Background(), app.IssueRequest{Count: 7}); err != nil {
		t.Fatal(err)
	}
	fyne.DoAndWait(func() { h.ui.show("codes"); h.ui.show("issue") })
	h.settle()
	fyne.DoAndWait(func() {
		// The highlighted row is the batch Print takes.
		if got := highlighted(s); got < 0 || s.batches[got].ID != s.selected.ID {
			t.Fatalf("row %d highlighted (%v), Print takes batch %d", got, s.batches, s.selected.ID)
		}
	})
	kb := keyboard{h.win}
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if h.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("printing batch 1, never printed, with batch 2 newer did not ask: %q", s.printStatus.Text)
	}
	kb.press(fyne.KeyEscape)
	h.settle()
	if args, _ := os.ReadFile(argsFile); len(args) != 0 {
		t.Fatalf("Esc printed:\n%s", args)
	}
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	kb.press(fyne.KeyReturn)
	h.settle()
	if !strings.Contains(s.printStatus.Text, "Batch 1: 1 sheet (5 labels) sent to Office") {
		t.Fatalf("after Enter: %q", s.printStatus.Text)
	}
	// Clicking the newest row selects batch 2; being the newest and
	// unprinted, it prints without a question.
	fyne.DoAndWait(func() { s.batchList.Select(0) })
	if s.selected == nil || s.selected.ID != 2 {
		t.Fatalf("clicking row 0 selected %+v, want batch 2", s.selected)
	}
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if h.win.Canvas().Overlays().Top() != nil || !strings.Contains(s.printStatus.Text, "Batch 2: 1 sheet (7 labels) sent to Office") {
		t.Fatalf("printing the newest batch: %q", s.printStatus.Text)
	}
}
