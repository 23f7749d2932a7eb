package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// TestBadgeRefusedFitsItsPanel: in desk mode on a 1024 × 600 screen, the
// reason a badge is refused (a removed operator's: the longest) is shown
// whole, every line of it inside the result panel.
func TestBadgeRefusedFitsItsPanel(t *testing.T) {
	h := newSignInHarness(t, true)
	h.ui.scan.shownFor = time.Hour // a loaded machine may take longer than a clerk's look
	fyne.DoAndWait(func() { h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight)) })
	if _, err := h.operators.Remove(context.Background(), "li", "admin"); err != nil {
		t.Fatal(err)
	}
	h.scan(t, h.liBadge, fyne.KeyReturn, T("BADGE REFUSED"))
	want := h.ui.scan.detail.Text
	if !strings.Contains(want, "Li was removed from this desk") {
		t.Fatalf("the detail says %q", want)
	}
	var panel fyne.CanvasObject // the container of the title, detail and note
	var texts []*canvas.Text
	var walk func(o fyne.CanvasObject, in bool)
	walk = func(o fyne.CanvasObject, in bool) {
		if !o.Visible() {
			return
		}
		switch w := o.(type) {
		case *canvas.Text:
			if in && w.Text != "" && w != h.ui.scan.title {
				texts = append(texts, w)
			}
		case *fyne.Container:
			for _, c := range w.Objects {
				if c == fyne.CanvasObject(h.ui.scan.title) {
					panel, in = w, true
				}
			}
			for _, c := range w.Objects {
				walk(c, in)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c, in)
			}
		}
	}
	// The detail's lines are laid out when the window draws them: a slow
	// machine (wine) may still show the idle prompt's for a moment.
	var got string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		panel, texts = nil, nil
		fyne.DoAndWait(func() { walk(h.win.Content(), false) })
		if panel == nil {
			t.Fatal("no result panel")
		}
		var shown []string
		for _, tx := range texts {
			shown = append(shown, tx.Text)
		}
		got = strings.Join(strings.Fields(strings.Join(shown, " ")), " ")
		if got == strings.Join(strings.Fields(want), " ") || time.Now().After(deadline) {
			break
		}
	}
	if got != strings.Join(strings.Fields(want), " ") {
		t.Errorf("the panel shows %q, want the whole reason %q", got, want)
	}
	width := panel.Size().Width
	for _, tx := range texts {
		w := fyne.MeasureText(tx.Text, tx.TextSize, tx.TextStyle).Width
		if w > width+0.5 {
			t.Errorf("%q is %.0f px wide in a panel of %.0f px", tx.Text, w, width)
		}
	}
}
