package ui

import (
	"sync"

	"fyne.io/fyne/v2"
	"golang.org/x/image/font/sfnt"

	"qrdesk/assets"
)

// boldCJK draws the Scan screen's verdict titles in Chinese: the theme's
// CJK font (Droid Sans Fallback) has no bold face, so Fyne drew 已使用 as
// thin as the detail under it. It is a subset (ASCII and the characters of
// the Chinese texts), so it is used only for a title it covers whole: a
// canvas.Text with a FontSource gets no fallback font for a missing glyph.
var boldCJK = fyne.NewStaticResource("NotoSansCJKsc-Bold-subset.otf", assets.CJKBold)

var (
	boldCJKOnce sync.Once
	boldCJKFace *sfnt.Font
)

// boldCJKCovers reports whether the bold face has a glyph for every rune of s.
func boldCJKCovers(s string) bool {
	boldCJKOnce.Do(func() {
		f, err := sfnt.Parse(assets.CJKBold)
		if err != nil {
			fyne.LogError("the bold CJK font", err)
		}
		boldCJKFace = f
	})
	if boldCJKFace == nil {
		return false
	}
	var buf sfnt.Buffer
	for _, r := range s {
		if i, err := boldCJKFace.GlyphIndex(&buf, r); err != nil || i == 0 {
			return false
		}
	}
	return true
}

// titleFont is the font of a verdict title: the bold CJK face for one with
// Chinese in it that the face covers, else nil (the theme's bold font).
func titleFont(title string) fyne.Resource {
	for _, r := range title {
		if r >= 0x2e80 && boldCJKCovers(title) { // CJK radicals onwards
			return boldCJK
		}
	}
	return nil
}

// textSize measures a canvas.Text as it is drawn, its own font included.
func textSize(t string, size float32, style fyne.TextStyle, source fyne.Resource) fyne.Size {
	s, _ := fyne.CurrentApp().Driver().RenderedTextSize(t, size, style, source)
	return s
}
