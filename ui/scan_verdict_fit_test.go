package ui

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
)

// verdictShow paints one verdict on the Scan screen, as a scan would.
type verdictShow struct {
	name string
	show func(s *scanScreen)
}

// everyVerdict is each result the Scan screen can show, with the longest
// details a desk meets (a long ref, a long reason, a replacement's code).
func everyVerdict(code string) []verdictShow {
	rec := &app.CodeRecord{Code: code, Ref: "ROUTE-7 ORDER 2026-12-000417"}
	used := app.Verdict{Code: code, Outcome: app.OutcomeAlreadyUsed, UsedAt: 1764669600, UsedStation: "Station B (north gate)", UsedOperator: "zhangwei"}
	replaced := used
	replaced.UsedCode = code
	verdict := func(v app.Verdict) func(s *scanScreen) {
		return func(s *scanScreen) { s.show(v, rec, nil) }
	}
	return []verdictShow{
		{"REDEEMED", verdict(app.Verdict{Code: code, Outcome: app.OutcomeRedeemed})},
		{"JUST SCANNED", func(s *scanScreen) { s.showJustScanned(code, rec) }},
		{"ALREADY USED", verdict(used)},
		{"ALREADY USED (replacement)", verdict(replaced)},
		{"EXPIRED", verdict(app.Verdict{Code: code, Outcome: app.OutcomeExpired, ExpireAt: 1764669600})},
		{"DISABLED", verdict(app.Verdict{Code: code, Outcome: app.OutcomeDisabled, DisabledReason: "label torn at packing, a new one was printed for the customer"})},
		{"FORGED", verdict(app.Verdict{Code: code, Outcome: app.OutcomeBadSignature})},
		{"UNKNOWN", verdict(app.Verdict{Code: code, Outcome: app.OutcomeUnknown})},
		{"NOT A CODE", verdict(app.Verdict{Code: "hello", Outcome: app.OutcomeMalformed})},
		{"OPERATOR BADGE", verdict(app.Verdict{Outcome: app.OutcomeBadge})},
		{"REFUSED BY THE SERVER", verdict(app.Verdict{Code: code, Outcome: app.OutcomeServerRefused})},
		{"NOT SAVED", func(s *scanScreen) { s.show(app.Verdict{}, nil, fmt.Errorf("disk full")) }},
		{"SIGN IN FIRST", func(s *scanScreen) { s.signInFirst() }},
		{"SCAN YOUR BADGE", func(s *scanScreen) { s.idleLocked() }},
		{"READY", func(s *scanScreen) { s.idle() }},
	}
}

// resultTexts returns the result panel (the container holding the title)
// and every text drawn in it, the wrapped detail's lines too.
func resultTexts(h *harness) (panel fyne.CanvasObject, texts []*canvas.Text) {
	var walk func(o fyne.CanvasObject, in bool)
	walk = func(o fyne.CanvasObject, in bool) {
		if !o.Visible() {
			return
		}
		switch w := o.(type) {
		case *canvas.Text:
			if in && w.Text != "" {
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
	walk(h.win.Content(), false)
	return panel, texts
}

// absolute is where o's top-left corner is in the window.
func absolute(h *harness, o fyne.CanvasObject) fyne.Position {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
}

// TestVerdictTextsFitThePanel: at 1366 × 768 and 1024 × 600, in English
// and Chinese, every line of every verdict (title, label, instruction) is
// drawn whole inside the result panel: none runs off its sides or bottom.
func TestVerdictTextsFitThePanel(t *testing.T) {
	h := newHarness(t)
	fyne.CurrentApp().Settings().SetTheme(newTheme())
	code := h.issue(t, 1)[0]
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		t.Cleanup(func() { override = nil })
		for _, size := range []fyne.Size{{Width: 1366, Height: 768}, {Width: 1024, Height: 600}} {
			fyne.DoAndWait(func() { h.win.Resize(size.SubtractWidthHeight(0, menuBarHeight)) })
			for _, v := range everyVerdict(code) {
				t.Run(fmt.Sprintf("%s/%.0fx%.0f/%s", lang, size.Width, size.Height, v.name), func(t *testing.T) {
					var problems []string
					fyne.DoAndWait(func() {
						v.show(h.ui.scan)
						panel, texts := resultTexts(h)
						if panel == nil {
							problems = append(problems, "no result panel")
							return
						}
						p0, ps := absolute(h, panel), panel.Size()
						for _, tx := range texts {
							w := textSize(tx.Text, tx.TextSize, tx.TextStyle, tx.FontSource)
							at := absolute(h, tx)
							left := at.X + (tx.Size().Width-w.Width)/2 // centred
							if tx.Alignment == fyne.TextAlignLeading {
								left = at.X
							}
							if left < p0.X-0.5 || left+w.Width > p0.X+ps.Width+0.5 || at.Y+w.Height > p0.Y+ps.Height+0.5 || at.Y < p0.Y-0.5 {
								problems = append(problems, fmt.Sprintf("%q (%.0f × %.0f px at %.0f,%.0f) runs off the panel (%.0f × %.0f at %.0f,%.0f)",
									tx.Text, w.Width, w.Height, left, at.Y, ps.Width, ps.Height, p0.X, p0.Y))
							}
						}
					})
					for _, p := range problems {
						t.Error(p)
					}
				})
			}
		}
	}
}

// TestVerdictInstructionDrawnWhole: every verdict's label name and
// instruction reach the clerk whole: the lines drawn are their text,
// nothing cut or left out.
func TestVerdictInstructionDrawnWhole(t *testing.T) {
	h := newHarness(t)
	fyne.CurrentApp().Settings().SetTheme(newTheme())
	code := h.issue(t, 1)[0]
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		t.Cleanup(func() { override = nil })
		fyne.DoAndWait(func() { h.win.Resize(fyne.NewSize(1024, 600-menuBarHeight)) })
		for _, v := range everyVerdict(code) {
			var want, got string
			fyne.DoAndWait(func() {
				v.show(h.ui.scan)
				want = h.ui.scan.label.Text + h.ui.scan.detail.Text + h.ui.scan.note.Text
				_, texts := resultTexts(h)
				var lines []string
				for _, tx := range texts {
					if tx != h.ui.scan.title {
						lines = append(lines, tx.Text)
					}
				}
				got = strings.Join(lines, "")
			})
			if strip(got) != strip(want) {
				t.Errorf("%s %s: the panel draws %q, want the whole instruction %q", lang, v.name, got, want)
			}
		}
	}
}

func strip(s string) string { return strings.Join(strings.Fields(s), "") }
