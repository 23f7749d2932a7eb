package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"qrdesk/assets"
)

var cjkFont = fyne.NewStaticResource("DroidSansFallbackFull.ttf", assets.CJKFont)

// deskTheme is Fyne's theme with a CJK-capable text font, so 中文 renders
// on machines without Chinese system fonts. Droid Sans Fallback has no
// Latin glyphs: Fyne takes those from its own font for the style, so
// monospace text stays monospace and Chinese in it still renders.
type deskTheme struct{ fyne.Theme }

func (t deskTheme) Font(s fyne.TextStyle) fyne.Resource {
	if s.Symbol {
		return t.Theme.Font(s)
	}
	return cjkFont
}

// focusColor marks the focused button or field: a strong amber, so a clerk
// who works with Tab and Space sees at a glance which button Space presses
// (Fyne's own is a faint tint of the button colour).
var focusColor = color.NRGBA{R: 0xff, G: 0x98, B: 0x00, A: 0xd0}

func (t deskTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == theme.ColorNameFocus {
		return focusColor
	}
	return t.Theme.Color(n, v)
}

// Result colours of the Scan screen, as pickup desks know them.
var (
	colorRedeemed = color.NRGBA{R: 0x1b, G: 0x8a, B: 0x3a, A: 0xff} // green
	colorUsed     = color.NRGBA{R: 0xf0, G: 0x9a, B: 0x00, A: 0xff} // amber: ALREADY USED, do not hand over
	colorRefused  = color.NRGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff} // red
	colorInactive = color.NRGBA{R: 0x75, G: 0x75, B: 0x75, A: 0xff} // grey: sign-in, scanner test
	// colorVoid is a label that is no longer good (disabled, expired):
	// refused like red, but not a fraud; not the grey of SIGNED IN.
	colorVoid = color.NRGBA{R: 0x6a, G: 0x1b, B: 0x9a, A: 0xff} // purple
	colorIdle = color.NRGBA{R: 0x26, G: 0x32, B: 0x38, A: 0xff}

	// colorJustScanned is a label redeemed here a moment ago and scanned
	// again: nothing is wrong (the parcel went with the first scan), so not
	// the amber of ALREADY USED, which it shared and which means stop.
	colorJustScanned = color.NRGBA{R: 0x15, G: 0x65, B: 0xc0, A: 0xff} // blue
)

func newTheme() fyne.Theme { return deskTheme{theme.DefaultTheme()} }
