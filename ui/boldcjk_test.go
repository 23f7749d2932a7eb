package ui

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"qrdesk/app"
)

// TestBoldCJKCoversTheTitles: the bundled bold face has every character
// of the Chinese texts, so no verdict title falls back to thin strokes
// (after adding Chinese texts, run scripts/cjk-bold-subset.sh).
func TestBoldCJKCoversTheTitles(t *testing.T) {
	for en, zh := range chineseTexts(t) {
		if !boldCJKCovers(zh) {
			t.Errorf("the bold CJK font lacks a character of %q (%q): run scripts/cjk-bold-subset.sh", zh, en)
		}
	}
}

// inked counts the pixels of text drawn in pure red in font source.
func inked(t *testing.T, text string, source fyne.Resource) int {
	t.Helper()
	tx := canvas.NewText(text, color.NRGBA{R: 0xff, A: 0xff})
	tx.TextSize, tx.TextStyle, tx.FontSource = 64, fyne.TextStyle{Bold: true}, source
	w := test.NewWindow(tx)
	defer w.Close()
	w.SetPadded(false)
	w.Resize(fyne.NewSize(400, 100))
	img := w.Canvas().Capture()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, _, _ := img.At(x, y).RGBA(); r > 0x8000 && g < 0x4000 {
				n++
			}
		}
	}
	return n
}

// TestChineseTitlesAreBold: in Chinese the Scan screen draws its verdict
// titles in the bold CJK face, with visibly heavier strokes than the
// regular one Fyne used for "bold" Chinese before; English titles keep the
// theme's bold font.
func TestChineseTitlesAreBold(t *testing.T) {
	h := newHarness(t)
	fyne.CurrentApp().Settings().SetTheme(newTheme())
	override = chineseTexts(t)
	defer func() { override = nil }()
	for _, o := range []app.Outcome{app.OutcomeRedeemed, app.OutcomeAlreadyUsed, app.OutcomeBadSignature, app.OutcomeDisabled} {
		var title string
		var source fyne.Resource
		fyne.DoAndWait(func() {
			h.ui.scan.show(app.Verdict{Outcome: o}, nil, nil)
			title, source = h.ui.scan.title.Text, h.ui.scan.title.FontSource
		})
		if source != boldCJK {
			t.Errorf("%q is drawn in %v, want the bold CJK face", title, source)
		}
	}
	bold, regular := inked(t, "已使用", boldCJK), inked(t, "已使用", cjkFont)
	t.Logf("inked: bold %d, regular %d", bold, regular)
	if float64(bold) < 1.2*float64(regular) {
		t.Errorf("已使用 in bold inks %d pixels, in the regular face %d: not visibly bold", bold, regular)
	}
	override = nil
	fyne.DoAndWait(func() { h.ui.scan.show(app.Verdict{Outcome: app.OutcomeRedeemed}, nil, nil) })
	if h.ui.scan.title.FontSource != nil {
		t.Errorf("the English title is drawn in %v, want the theme's bold", h.ui.scan.title.FontSource)
	}
}
