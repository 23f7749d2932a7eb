package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// drawnLines are the texts drawn under o, as laid out, top to bottom.
func drawnLines(o fyne.CanvasObject) []string {
	var out []string
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if !o.Visible() {
			return
		}
		switch w := o.(type) {
		case *canvas.Text:
			out = append(out, w.Text)
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c)
			}
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		}
	}
	walk(o)
	return out
}

// TestCodesDetailKeepsTheCodeWhole: at 1024 px the Codes detail is about
// 320 px wide and broke a long code inside a group ("…AMXKC33" / "U9"),
// which a clerk reading it out or typing it misreads. The code breaks only
// after one of its dashes, and every line of it fits the panel.
func TestCodesDetailKeepsTheCodeWhole(t *testing.T) {
	h := newHarness(t)
	codes := h.issue(t, 1) // WH-YYMMDD-A0001-RANDOM-SIGNATURE: the longest form
	fyne.DoAndWait(func() { h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight)) })
	s := codesDetail(t, h, codes[0])
	var lines []string
	var width float32
	fyne.DoAndWait(func() {
		lines = drawnLines(s.detailBox)
		width = s.detailBox.Size().Width
	})
	code := codes[0]
	first := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "WH-") {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatalf("the detail does not show the code %s: %q", code, lines)
	}
	var parts []string
	joined := ""
	for i := first; i < len(lines) && len(joined) < len(code); i++ {
		part := strings.TrimSpace(lines[i])
		parts, joined = append(parts, part), joined+part
	}
	if joined != code {
		t.Fatalf("the detail shows the code as %q, want %s", parts, code)
	}
	for _, p := range parts[:len(parts)-1] {
		if !strings.HasSuffix(p, "-") {
			t.Errorf("the detail breaks %s inside a group: %q", code, parts)
			break
		}
	}
	for _, p := range parts {
		if w := fyne.MeasureText(p, theme.TextSize(), fyne.TextStyle{}).Width; w > width {
			t.Errorf("the code's line %q is %.0f px wide in a %.0f px panel", p, w, width)
		}
	}
	if len(parts) < 2 {
		t.Logf("the code fits one line at %.0f px: %q", width, parts)
	}
}
