package printing

import (
	"fmt"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"qrdesk/assets"
	"qrdesk/internal/glyphs"
)

// Printed text (labels, badges, the day's report, the window's preview and
// non-ASCII lines on thermal labels) takes each character from the first
// font of internal/glyphs' chain that holds it (Noto Sans, then Droid Sans
// Fallback). A line of plain ASCII stays in Helvetica, as labels always
// printed it. A character neither font holds is refused where it is typed
// (Unprintable), never drawn as an empty box.

// chainFont is one font of the chain.
type chainFont struct {
	family string // the font's name inside a PDF
	data   []byte
	sfnt   *sfnt.Font
}

const (
	textFont  = "text" // Noto Sans in a PDF
	titleFont = "cjk"  // Droid Sans Fallback in a PDF
	latinFont = "Helvetica"
	monoFont  = "Courier"
)

// fontChain is glyphs.Chain with each font's name and file for a PDF.
var fontChain = sync.OnceValue(func() []chainFont {
	parsed := glyphs.Chain()
	return []chainFont{{family: textFont, data: assets.TextFont, sfnt: parsed[0]}, {family: titleFont, data: assets.CJKFont, sfnt: parsed[1]}}
})

// Unprintable returns the first character of s that no embedded font can
// print, and false when every character prints. Spaces of every kind
// count as printable.
func Unprintable(s string) (rune, bool) { return glyphs.Unprintable(s) }

// CheckPrintable returns an error naming the first character of s (what:
// "ref", "label title") that no embedded font can print.
func CheckPrintable(what, s string) error {
	if r, bad := Unprintable(s); bad {
		return &UnprintableError{What: what, Rune: r}
	}
	return nil
}

// UnprintableError is CheckPrintable's refusal: the field (What) holds a
// character (Rune) no label font has.
type UnprintableError struct {
	What string
	Rune rune
}

func (e *UnprintableError) Error() string {
	return fmt.Sprintf("the %s holds %s, a character the label fonts cannot print: type it without that character", e.What, DescribeRune(e.Rune))
}

// UnprintableRune is the character refused: an order file's row names it
// in the clerk's language (app.OrderRowError).
func (e *UnprintableError) UnprintableRune() rune { return e.Rune }

// DescribeRune names a character for a message: the character and its
// code point ("☃" (U+2603)).
func DescribeRune(r rune) string { return fmt.Sprintf("%q (%U)", string(r), r) }

// isASCII reports whether s is plain ASCII (printed in Helvetica).
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// fontRun is a stretch of text in one font of the chain (font -1: none
// holds it; such characters are replaced by '?' when drawn).
type fontRun struct {
	text string
	font int
}

// fontRuns splits s into runs by the chain font of each character; a
// plain space stays in the run it is in. A character no font holds (text
// from before the check, or from another desk) is drawn as '?'.
func fontRuns(s string) []fontRun {
	var runs []fontRun
	for _, r := range glyphs.Composed(s) {
		f := glyphs.Index(r)
		if f < 0 {
			f, r = 0, '?'
		}
		if n := len(runs); n > 0 && (runs[n-1].font == f || r == ' ') {
			runs[n-1].text += string(r)
			continue
		}
		runs = append(runs, fontRun{text: string(r), font: f})
	}
	return runs
}

// chainWidth is the advance width of s in em, each character in its chain
// font (as the PDF measures it).
func chainWidth(s string) float64 {
	var buf sfnt.Buffer
	chain := fontChain()
	w := 0.0
	for _, run := range fontRuns(s) {
		sf := chain[run.font].sfnt
		upem := float64(sf.UnitsPerEm())
		for _, r := range run.text {
			g, err := sf.GlyphIndex(&buf, r)
			if err != nil {
				continue
			}
			// At ppem = units per em the advance is in font units.
			adv, err := sf.GlyphAdvance(&buf, g, fixed.Int26_6(upem*64), font.HintingNone)
			if err != nil {
				continue
			}
			w += float64(adv) / 64 / upem
		}
	}
	return w
}
