package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"qrdesk/app"
)

// TestEscClosesTheSetUp: the set-up dialog's fields are where the keyboard
// is, and Fyne's fields dropped Esc, so Esc did nothing while the set-up
// was up. From a text field, a list and a checkbox, Esc now closes it as
// Later does: nothing saved.
func TestEscClosesTheSetUp(t *testing.T) {
	h := newHarness(t)
	kb := keyboard{h.win}
	for _, key := range []string{"prefix", "template", "date_serial"} {
		f := newSetupForm(h.ui.env)
		fyne.DoAndWait(func() { f.show(func() { t.Errorf("Esc in %s saved the set-up", key) }) })
		fyne.DoAndWait(func() { h.win.Canvas().Focus(f.fields[key].focusable()) })
		if key == "prefix" {
			kb.typeText("ZZ")
		}
		kb.press(fyne.KeyEscape)
		if top := h.win.Canvas().Overlays().Top(); top != nil {
			t.Fatalf("Esc in the set-up's %s field left the set-up up", key)
		}
	}
	h.settle()
	if set, _ := h.svc.Settings(context.Background()); set.Prefix != "WH" {
		t.Fatalf("prefix %q after Esc, want WH unchanged", set.Prefix)
	}
}

// TestLabelScannedIntoTheSetUp: a picker's label scanned while the set-up
// was up was typed into Prefix (where the keyboard is), and refused there
// as a prefix. The set-up holds the station's answers, so the scan is
// refused with a sentence that says to finish the set-up first, the field
// keeps what it held, and the label stays unused.
func TestLabelScannedIntoTheSetUp(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 1)
	kb := keyboard{h.win}
	f := newSetupForm(h.ui.env)
	fyne.DoAndWait(func() { f.show(func() { t.Error("the scan saved the set-up") }) })
	prefix := f.fields["prefix"].entries()[0]
	fyne.DoAndWait(func() { prefix.SetText("WH"); h.win.Canvas().Focus(f.fields["prefix"].focusable()) })
	kb.typeText(strings.ToLower(codes[0])) // Caps Lock off: the scanner types lower case
	kb.press(fyne.KeyReturn)
	h.settle()
	if prefix.Text != "WH" {
		t.Fatalf("Prefix holds %q after a label was scanned, want \"WH\"", prefix.Text)
	}
	if p := f.fields["prefix"].problem; p.Visible() {
		t.Fatalf("Prefix shows a problem after the scan: %q", p.Text)
	}
	overlays := h.win.Canvas().Overlays().List()
	if len(overlays) != 2 {
		t.Fatalf("%d dialogs up, want the set-up and the refusal over it", len(overlays))
	}
	if text := labelsIn(overlays[1]); !strings.Contains(text, "finish the set-up first") {
		t.Fatalf("the refusal says %q, want it to say to finish the set-up first", text)
	}
	if v, _ := h.svc.Check(context.Background(), codes[0]); v.Status != app.StatusUnused {
		t.Fatalf("the label scanned into the set-up is %s", v.Status)
	}
	// Enter closes the refusal; the set-up is still there, Prefix in it.
	kb.press(fyne.KeyReturn)
	if n := len(h.win.Canvas().Overlays().List()); n != 1 {
		t.Fatalf("%d dialogs up after Enter, want the set-up alone", n)
	}
}
