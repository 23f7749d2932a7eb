package ui

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// focusContrast is how far (sum of the RGB channel differences, 0–765) a
// focused button's face is from the same button unfocused.
func focusContrast(t *testing.T, th fyne.Theme) int {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(th)
	w := a.NewWindow("focus")
	b := widget.NewButton("Save PDF", nil)
	w.SetContent(container.NewVBox(widget.NewButton("Print", nil), b))
	w.Resize(fyne.NewSize(200, 120))
	face := func() color.Color {
		img := w.Canvas().Capture()
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b)
		scale := float32(img.Bounds().Dx()) / w.Canvas().Size().Width
		return img.At(int((pos.X+6)*scale), int((pos.Y+b.Size().Height/2)*scale))
	}
	before := face()
	w.Canvas().Focus(b)
	after := face()
	return colorDistance(before, after)
}

func colorDistance(a, b color.Color) int {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := func(x, y uint32) int {
		if x > y {
			return int(x-y) >> 8
		}
		return int(y-x) >> 8
	}
	return d(ar, br) + d(ag, bg) + d(ab, bb)
}

// The focused button must stand out: Fyne's default tint does not.
func TestFocusedButtonStandsOut(t *testing.T) {
	ours, fyneDefault := focusContrast(t, newTheme()), focusContrast(t, theme.DefaultTheme())
	// Measured: ours 305, Fyne's default 52.
	if ours < 200 || fyneDefault >= 200 {
		t.Fatalf("a focused button differs from an unfocused one by %d (Fyne's default: %d); want at least 200 of 765", ours, fyneDefault)
	}
}
