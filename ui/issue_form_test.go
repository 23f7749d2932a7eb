package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// TestEnterIssuesFromEveryField: Enter in Type, Ref or Date issues the
// batch, as it does in Count.
func TestEnterIssuesFromEveryField(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	kb := keyboard{h.win}
	kb.ctrl(fyne.Key2)
	for i, field := range []*widget.Entry{s.typ, s.ref, s.date} {
		fyne.DoAndWait(func() {
			s.count.SetText("5")
			h.win.Canvas().Focus(field)
		})
		if field == s.ref {
			kb.typeText("ROUTE-7")
		}
		kb.press(fyne.KeyReturn)
		h.settle()
		if n := len(h.batches(t)); n != i+1 {
			t.Fatalf("Enter in field %d: %d batches, want %d (status %q)", i, n, i+1, s.status.Text)
		}
	}
	if b := h.batches(t); !strings.Contains(s.status.Text, "Batch 3: 5 codes") || len(b) != 3 {
		t.Fatalf("status %q", s.status.Text)
	}
}

// TestCountFollowsTheDailyQuantity: Count shows the daily quantity the
// first-run set-up saved (not the default 100), and keeps a count the
// clerk typed when the setting changes later.
func TestCountFollowsTheDailyQuantity(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	if _, err := h.svc.UpdateSettings(context.Background(), map[string]string{"daily": "150"}, "test"); err != nil {
		t.Fatal(err)
	}
	h.ui.env.reloadSettings() // as the set-up form does when it saves
	waitFor(t, "Count", func() bool { return s.count.Text == "150" })
	fyne.DoAndWait(func() { s.count.SetText("30") })
	h.svc.UpdateSettings(context.Background(), map[string]string{"daily": "200"}, "test")
	h.ui.env.reloadSettings()
	h.settle()
	runQueuedUI()
	if s.count.Text != "30" {
		t.Fatalf("Count shows %q after the setting changed, want the 30 the clerk typed", s.count.Text)
	}
}

// TestRefInAnyScriptIssuesAndUnprintableIsRefused: a ref in any script the
// label fonts hold (German, Vietnamese, Chinese) issues; a ref with a
// character no font holds is refused in the Ref field with a sentence
// naming the character, before anything is issued.
func TestRefInAnyScriptIssuesAndUnprintableIsRefused(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	fyne.DoAndWait(func() {
		s.count.SetText("2")
		s.ref.SetText("Box ☃ 7")
		s.issue()
	})
	h.settle()
	if n := len(h.batches(t)); n != 0 {
		t.Fatalf("%d batches issued with a ref the labels cannot print", n)
	}
	if !strings.Contains(s.status.Text, "U+2603") || !strings.Contains(s.status.Text, "cannot print") {
		t.Fatalf("status %q does not name the character", s.status.Text)
	}
	for i, ref := range []string{"Müller Straße 5 Zoë", "Tiếng Việt", "北京 仓库"} {
		fyne.DoAndWait(func() {
			s.ref.SetText(ref)
			s.issue()
		})
		h.settle()
		waitFor(t, "the batch with ref "+ref, func() bool { return len(h.batches(t)) == i+1 })
	}
}
