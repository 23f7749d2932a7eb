package printing

import (
	"image"
	"testing"
)

// TestPreviewDrawsTheText: the preview draws each label's text as letters
// in the place the PDF prints it, not as grey bars: the serial lines of
// two labels differ, and a line's box is partly ink, partly paper.
func TestPreviewDrawsTheText(t *testing.T) {
	const pxPerMM = 3
	tmpl, err := FindTemplate("", "L7160")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Template: tmpl}
	labels := testLabels(t, 2, "")
	img, err := Preview(labels, o, pxPerMM)
	if err != nil {
		t.Fatal(err)
	}
	layouts, err := layoutAll(labels, o)
	if err != nil {
		t.Fatal(err)
	}
	// box is the first text line (prefix, date and serial) of position pos.
	box := func(pos int) image.Rectangle {
		x, y := tmpl.LabelRect(pos)
		ln := layouts[pos].Lines[0]
		h := ln.SizePt * ptMM
		w := textWidth(ln.Text, ln.SizePt, ln.Mono)
		return image.Rect(int((x+ln.X)*pxPerMM), int((y+ln.Y-h)*pxPerMM), int((x+ln.X+w)*pxPerMM)+1, int((y+ln.Y)*pxPerMM)+1)
	}
	dark := func(r image.Rectangle) (ink []bool, share float64) {
		n := 0
		for py := r.Min.Y; py < r.Max.Y; py++ {
			for px := r.Min.X; px < r.Max.X; px++ {
				c, _, _, _ := img.At(px, py).RGBA()
				d := c < 0x8000
				ink = append(ink, d)
				if d {
					n++
				}
			}
		}
		return ink, float64(n) / float64(len(ink))
	}
	a, share := dark(box(0))
	if share < 0.05 || share > 0.6 {
		t.Errorf("%q: %.0f %% of its box is ink; letters cover some of it, a bar all of it", layouts[0].Lines[0].Text, 100*share)
	}
	b, _ := dark(box(1))
	same := len(a) == len(b)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == b[i]
	}
	if same {
		t.Errorf("%q and %q are drawn alike", layouts[0].Lines[0].Text, layouts[1].Lines[0].Text)
	}
}
