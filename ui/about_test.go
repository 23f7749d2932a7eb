package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// TestAboutShowsVersions: Help › About qrdesk… shows the release, commit,
// protocol and schema the window was given, on a locked desk too.
func TestAboutShowsVersions(t *testing.T) {
	const version = "qrdesk 9.8.7 (commit feedc0ffee12)\nprotocol 2, schema 10 (desk database)"
	h := newHarness(t)
	h.ui.version = version
	var item *fyne.MenuItem
	fyne.DoAndWait(func() {
		for _, m := range h.win.MainMenu().Items {
			for _, it := range m.Items {
				if it.Label == T("About qrdesk…") {
					item = it
				}
			}
		}
	})
	if item == nil {
		t.Fatal("the main menu has no About qrdesk…")
	}
	fyne.DoAndWait(item.Action)
	var shown string
	fyne.DoAndWait(func() {
		top := h.win.Canvas().Overlays().Top()
		if top == nil {
			return
		}
		shown = labelsIn(top)
	})
	if !strings.Contains(shown, version) {
		t.Errorf("About shows %q, want it to hold %q", shown, version)
	}
}

// labelsIn is the text of every label under o.
func labelsIn(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Label:
			b.WriteString(w.Text + "\n")
		case fyne.Widget:
			r := w.CreateRenderer()
			for _, c := range r.Objects() {
				walk(c)
			}
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		}
	}
	walk(o)
	return b.String()
}
