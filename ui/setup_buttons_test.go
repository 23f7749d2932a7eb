package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// buttonIn finds the button that says text in o (a dialog up on the
// window): Fyne's own or one of ours.
func buttonIn(o fyne.CanvasObject, text string) fyne.Focusable {
	var found fyne.Focusable
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if found != nil || o == nil {
			return
		}
		switch w := o.(type) {
		case *widget.Button:
			if w.Text == text {
				found = w
			}
			return
		case *keyButton:
			if w.Text == text {
				found = w
			}
			return
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return found
}

// TestSetUpTakesTheKeyboard: the set-up works from the keyboard as the
// window's other forms do. Esc on its focused Save or Later button closes
// it as Later does, nothing saved (Fyne's buttons dropped Esc, so a clerk
// who had tabbed to a button was stuck there); Tab from the last question
// goes to Save, not to Later first; and Enter in a question saves, as
// Save does (it did nothing).
func TestSetUpTakesTheKeyboard(t *testing.T) {
	h := newHarness(t)
	kb := keyboard{h.win}
	open := func() *setupForm {
		f := newSetupForm(h.ui.env)
		fyne.DoAndWait(func() { f.show(func() {}) })
		return f
	}
	for _, name := range []string{"Save", "Later"} {
		open()
		b := buttonIn(h.win.Canvas().Overlays().Top(), name)
		if b == nil {
			t.Fatalf("the set-up has no %s button", name)
		}
		fyne.DoAndWait(func() { h.win.Canvas().Focus(b) })
		kb.press(fyne.KeyEscape)
		if top := h.win.Canvas().Overlays().Top(); top != nil {
			t.Fatalf("Esc on the focused %s button left the set-up up", name)
		}
	}

	f := open()
	last := f.fields[f.order[len(f.order)-1]].focusable()
	fyne.DoAndWait(func() { h.win.Canvas().Focus(last) })
	kb.press(fyne.KeyTab)
	if got, save := h.win.Canvas().Focused(), buttonIn(h.win.Canvas().Overlays().Top(), "Save"); got != save {
		t.Fatalf("Tab from the last question went to %T %v, want Save", got, got)
	}
	kb.press(fyne.KeyEscape)
	h.settle()
	if set, _ := h.svc.Settings(context.Background()); set.Prefix != "WH" {
		t.Fatalf("prefix %q after Esc, want WH unchanged", set.Prefix)
	}

	saved := make(chan bool, 1)
	f = newSetupForm(h.ui.env)
	fyne.DoAndWait(func() { f.show(func() { saved <- true }) })
	prefix := f.fields["prefix"].entries()[0]
	fyne.DoAndWait(func() { prefix.SetText(""); h.win.Canvas().Focus(f.fields["prefix"].focusable()) })
	kb.typeText("DK")
	kb.press(fyne.KeyReturn)
	h.settle()
	waitFor(t, "the set-up saved by Enter", func() bool { return len(saved) == 1 })
	if set, _ := h.svc.Settings(context.Background()); set.Prefix != "DK" {
		t.Fatalf("prefix %q after Enter, want DK", set.Prefix)
	}
	if top := h.win.Canvas().Overlays().Top(); top != nil {
		t.Fatal("Enter saved, but the set-up is still up")
	}
}
