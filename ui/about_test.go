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
	for _, tc := range []struct {
		name string
		win  func(t *testing.T) (*mainUI, fyne.Window)
	}{
		{"Clerk", func(t *testing.T) (*mainUI, fyne.Window) { h := newHarness(t); return h.ui, h.win }},
		{"LockedDesk", func(t *testing.T) (*mainUI, fyne.Window) { h := newSignInHarness(t, true); return h.ui, h.win }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ui, win := tc.win(t)
			ui.version = version
			var item *fyne.MenuItem
			fyne.DoAndWait(func() {
				menus := win.MainMenu().Items
				if last := menus[len(menus)-1]; last.Label == T("Help") && len(last.Items) > 0 && last.Items[0].Label == T("About qrdesk…") {
					item = last.Items[0]
				}
			})
			if item == nil {
				t.Fatal("the main menu's last menu is not Help with About qrdesk…")
			}
			fyne.DoAndWait(item.Action)
			var shown string
			fyne.DoAndWait(func() {
				if top := win.Canvas().Overlays().Top(); top != nil {
					shown = labelsIn(top)
				}
			})
			if !strings.Contains(shown, version) {
				t.Errorf("About shows %q, want it to hold %q", shown, version)
			}
		})
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
