package printing

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/image/font/sfnt"

	"qrdesk/internal/glyphs"
)

// scriptRefs are refs in the scripts a warehouse types: Latin with its
// accents (German, Polish, Hungarian, French), Greek, Cyrillic, Vietnamese
// and Chinese.
var scriptRefs = []struct{ name, ref string }{
	{"German", "Müller Straße 5 Zoë"},
	{"Polish", "Łódź ul. Żółta"},
	{"Hungarian", "Győr Kőrös út"},
	{"French", "Façade Noël"},
	{"Greek", "Αθήνα οδός"},
	{"Cyrillic", "Москва улица"},
	{"Vietnamese", "Tiếng Việt Hà Nội"},
	{"Chinese", "北京 仓库"},
}

// TestLabelPrintsEveryScript: a ref in each script prints on the label as
// its own letters. The PDF's text reads back as the ref (pdftotext), every
// letter has a real glyph in the font it is printed in (not .notdef), and
// no two distinct letters draw the same picture (each rendered alone on
// a label with pdftoppm): an empty box would be the same for all.
func TestLabelPrintsEveryScript(t *testing.T) {
	needTools(t, "pdftotext", "pdftoppm")
	tmpl, _ := FindTemplate("", "L7160")
	created := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	t.Run("TextReadsBack", func(t *testing.T) {
		labels := testLabels(t, len(scriptRefs), "")
		for i := range labels {
			labels[i].Ref = scriptRefs[i].ref
		}
		var buf bytes.Buffer
		if err := WritePDF(&buf, labels, Options{Template: tmpl, Created: created}); err != nil {
			t.Fatal(err)
		}
		for i, s := range scriptRefs {
			x, y := tmpl.LabelRect(i)
			got := strings.Join(strings.Fields(textIn(t, buf.Bytes(), 1, tmpl, x, y)), " ")
			if !strings.Contains(got, s.ref) {
				t.Errorf("%s: the label reads %q, want the ref %q", s.name, got, s.ref)
			}
		}
	})
	t.Run("RealGlyphs", func(t *testing.T) {
		var buf sfnt.Buffer
		for _, s := range scriptRefs {
			for _, r := range s.ref {
				i := glyphs.Index(r)
				if i < 0 {
					t.Errorf("%s: no font holds %q (%U)", s.name, r, r)
					continue
				}
				if g, err := fontChain()[i].sfnt.GlyphIndex(&buf, r); err != nil || g == 0 {
					t.Errorf("%s: %q (%U) is .notdef in %s", s.name, r, r, fontChain()[i].family)
				}
			}
		}
	})
	t.Run("DistinctLettersDrawDistinctly", func(t *testing.T) {
		// Each letter alone as a label's title, the same QR on every label:
		// the labels differ only in the letter's picture.
		var letters []rune
		seen := map[rune]bool{}
		for _, s := range scriptRefs {
			for _, r := range s.ref {
				if !unicode.IsSpace(r) && r >= 0x80 && !seen[r] {
					seen[r] = true
					letters = append(letters, r)
				}
			}
		}
		letters = append(letters, 'u', 'o', 'e', 'A') // the plain letters beside their accented ones
		labels := make([]Label, len(letters))
		for i, r := range letters {
			labels[i] = Label{Raw: "SCRIPT", Title: string(r) + "x"} // "x" keeps every title a non-ASCII line's width in one font apart
		}
		roll, _ := FindTemplate("", "roll-60x40")
		o := Options{Template: roll, Created: created}
		var pdf bytes.Buffer
		if err := WritePDF(&pdf, labels, o); err != nil {
			t.Fatal(err)
		}
		pages := rasterize(t, pdf.Bytes(), 150)
		if len(pages) != len(letters) {
			t.Fatalf("%d pages for %d letters", len(pages), len(letters))
		}
		// Letters of two scripts that are one shape in the font.
		homoglyph := map[[2]rune]bool{{'ο', 'о'}: true, {'о', 'ο'}: true}
		drawn := map[string]rune{}
		for i, page := range pages {
			key := pixelKey(t, page)
			if other, ok := drawn[key]; ok && !homoglyph[[2]rune{other, letters[i]}] {
				t.Errorf("%q (%U) draws exactly as %q (%U): an empty box?", letters[i], letters[i], other, other)
				continue
			}
			drawn[key] = letters[i]
		}
	})
}

// pixelKey is a PNG's pixels as a string, to compare two renderings.
func pixelKey(tb testing.TB, path string) string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		tb.Fatal(err)
	}
	b := img.Bounds()
	var sb strings.Builder
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, _, _, _ := img.At(x, y).RGBA()
			sb.WriteByte(byte(r >> 8))
		}
	}
	return sb.String()
}

// TestPreviewDrawsEveryScript: the window's preview draws each letter as
// the PDF does, not one box for all.
func TestPreviewDrawsEveryScript(t *testing.T) {
	roll, _ := FindTemplate("", "roll-60x40")
	drawn := map[string]rune{}
	for _, r := range "üöëßőłçΑΩЖЯếờ北京" {
		img, err := Preview([]Label{{Raw: "SCRIPT", Title: string(r) + "x"}}, Options{Template: roll}, 8)
		if err != nil {
			t.Fatal(err)
		}
		key := string(img.(*image.RGBA).Pix)
		if other, ok := drawn[key]; ok {
			t.Errorf("the preview draws %q (%U) exactly as %q", r, r, other)
		}
		drawn[key] = r
	}
}

// TestUnprintableRefused: a character none of the fonts holds is named by
// CheckPrintable; every script of scriptRefs passes; a label whose ref
// cannot print goes out without the ref, a title that cannot print is
// refused: never a box.
func TestUnprintableRefused(t *testing.T) {
	for _, s := range scriptRefs {
		if err := CheckPrintable("ref", s.ref); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
	// Composed from a base letter and combining accents (NFD), as some
	// keyboards send it: printed as the composed letter.
	if err := CheckPrintable("ref", "Tie\u0302\u0301ng"); err != nil {
		t.Errorf("decomposed Vietnamese: %v", err)
	}
	for _, bad := range []string{"Box 😀", "Snow ☃"} {
		err := CheckPrintable("ref", bad)
		if err == nil {
			t.Fatalf("%q accepted", bad)
		}
		r, _ := Unprintable(bad)
		if !strings.Contains(err.Error(), string(r)) || !strings.Contains(err.Error(), "U+") {
			t.Errorf("the refusal of %q does not name the character: %v", bad, err)
		}
	}
	tmpl, _ := FindTemplate("", "L7160")
	l := testLabels(t, 1, "")[0]
	l.Ref = "Box 😀"
	lays, err := layoutAll([]Label{l}, Options{Template: tmpl})
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range lays[0].Lines {
		if !ln.Mono {
			t.Errorf("a ref that cannot print is on the label as %q", ln.Text)
		}
	}
	l.Ref, l.Title = "", "☃"
	if _, err := layoutAll([]Label{l}, Options{Template: tmpl}); err == nil || !strings.Contains(err.Error(), "U+2603") {
		t.Errorf("a title that cannot print: %v", err)
	}
}
