// Package glyphs answers which embedded font holds a character: the chain
// every output of qrdesk takes its letters from (labels, badges and the
// day's report through printing, the dashboard through web's @font-face).
// A character no font of the chain holds is refused where it is typed —
// at a desk (printing.Unprintable) and at the server (a staff name) —
// never drawn as an empty box. Kept apart from printing so that the server
// checks names without linking the PDF and QR code.
package glyphs

import (
	"fmt"
	"sync"
	"unicode"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/text/unicode/norm"

	"qrdesk/assets"
)

// Chain is the fonts in the order a character is looked up:
//
//  1. Noto Sans (assets.TextFont): Latin with its accents, Greek, Cyrillic,
//     Vietnamese;
//  2. Droid Sans Fallback (assets.CJKFont): Chinese, Japanese, Korean and
//     the CJK punctuation Noto Sans lacks.
var Chain = sync.OnceValue(func() []*sfnt.Font {
	var chain []*sfnt.Font
	for _, data := range [][]byte{assets.TextFont, assets.CJKFont} {
		f, err := sfnt.Parse(data)
		if err != nil {
			panic(fmt.Sprintf("embedded font: %v", err)) // the build's own files
		}
		chain = append(chain, f)
	}
	return chain
})

// cache maps a rune to Index's answer.
var cache sync.Map

// Index is the index in Chain of the first font with a glyph for r, or -1
// when none has one.
func Index(r rune) int {
	if v, ok := cache.Load(r); ok {
		return v.(int)
	}
	idx := -1
	var buf sfnt.Buffer
	for i, f := range Chain() {
		if g, err := f.GlyphIndex(&buf, r); err == nil && g != 0 {
			idx = i
			break
		}
	}
	cache.Store(r, idx)
	return idx
}

// Composed is s as it is printed: composed (NFC), so a letter typed as a
// base and a combining accent (e + ̂ + ́) prints as the one glyph the fonts
// hold (ế).
func Composed(s string) string { return norm.NFC.String(s) }

// Unprintable returns the first character of s that no font of the chain
// holds, and false when every character prints. Spaces of every kind
// count as printable.
func Unprintable(s string) (rune, bool) {
	for _, r := range Composed(s) {
		if unicode.IsSpace(r) {
			continue
		}
		if Index(r) < 0 {
			return r, true
		}
	}
	return 0, false
}
