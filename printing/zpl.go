package printing

import (
	"bufio"
	"fmt"
	"image"
	"image/draw"
	"io"
	"math"
	"strings"
)

// ZPL writes labels as ZPL II for Zebra-compatible thermal printers: one
// ^XA…^XZ block per label, positions in printer dots at dpi (203 or 300),
// the QR as a native ^BQ barcode so the printer draws it dot-sharp. Lines
// of plain ASCII use the printer's font 0; any other line is a graphic
// drawn from qrdesk's fonts (zplGraphic).
func WriteZPL(w io.Writer, labels []Label, o Options, dpi int) error {
	if dpi != 203 && dpi != 300 {
		return fmt.Errorf("--dpi %d is not supported: use 203 or 300 (see the printer's specification)", dpi)
	}
	if err := o.validate(len(labels)); err != nil {
		return err
	}
	ec, _ := ECLevel(o.EC)
	ecLetter := strings.ToUpper(strings.TrimSpace(o.EC))
	if ecLetter == "" {
		ecLetter = "M"
	}
	dotsPerMM := float64(dpi) / 25.4
	dots := func(mm float64) int { return int(math.Round(mm * dotsPerMM)) }
	t := o.Template
	bw := bufio.NewWriter(w)
	for _, l := range labels {
		lay, err := layout(t, l, ec, 1/dotsPerMM)
		if err != nil {
			return err
		}
		mag := max(1, min(10, dots(lay.ModuleMM)))
		fmt.Fprintf(bw, "^XA\n^CI28\n^PW%d\n^LL%d\n", dots(t.LabelWidth), dots(t.LabelHeight))
		fmt.Fprintf(bw, "^LH%d,%d\n", max(0, dots(o.OffsetX)), max(0, dots(o.OffsetY)))
		if o.OffsetY < 0 {
			fmt.Fprintf(bw, "^LT%d\n", max(-120, dots(o.OffsetY)))
		}
		if o.OffsetX < 0 {
			fmt.Fprintf(bw, "^LS%d\n", -dots(o.OffsetX))
		}
		q := float64(quietZone) * lay.ModuleMM
		fmt.Fprintf(bw, "^FO%d,%d^BQN,2,%d^FD%sA,%s^FS\n", dots(lay.QRX+q), dots(lay.QRY+q), mag, ecLetter, l.content())
		for _, ln := range lay.Lines {
			if !ln.Mono && !isASCII(ln.Text) {
				g, above := zplGraphic(ln, dotsPerMM)
				fmt.Fprintf(bw, "^FO%d,%d%s^FS\n", dots(ln.X), max(0, dots(ln.Y)-above), g)
				continue
			}
			h := dots(ln.SizePt * ptMM)
			top := ln.Y - ln.SizePt*ptMM*0.85
			fmt.Fprintf(bw, "^FO%d,%d^A0N,%d,%d^FH_^FD%s^FS\n", dots(ln.X), dots(top), h, h*3/5, zplEscape(ln.Text))
		}
		fmt.Fprint(bw, "^XZ\n")
	}
	return bw.Flush()
}

// zplEscape hex-escapes the characters ZPL reads as commands (with ^FH_).
func zplEscape(s string) string {
	return strings.NewReplacer("_", "_5F", "^", "_5E", "~", "_7E").Replace(s)
}

// zplGraphic draws a line that is not plain ASCII as a ^GFA graphic field
// in printer dots, from qrdesk's own fonts (the chain of fonts.go, as the
// preview draws it): a printer's resident font (^A0) holds Latin-1 at
// best and no Chinese, and which it holds varies by model, so the label
// prints the same letters on every printer. above is how many dots of the
// graphic lie above the line's baseline.
func zplGraphic(ln textLine, dotsPerMM float64) (field string, above int) {
	em := ln.SizePt * ptMM * dotsPerMM
	w := int(math.Ceil(textWidth(ln.Text, ln.SizePt, false)*dotsPerMM)) + 2
	above = int(math.Ceil(em * 1.0))
	h := above + int(math.Ceil(em*0.3))
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	drawText(img, ln.Text, 0, float64(above), em, float64(w), false)
	rowBytes := (w + 7) / 8
	var b strings.Builder
	for y := 0; y < h; y++ {
		for x0 := 0; x0 < rowBytes*8; x0 += 8 {
			var v byte
			for bit := 0; bit < 8; bit++ {
				if x := x0 + bit; x < w && img.GrayAt(x, y).Y < 128 {
					v |= 0x80 >> bit
				}
			}
			fmt.Fprintf(&b, "%02X", v)
		}
	}
	total := rowBytes * h
	return fmt.Sprintf("^GFA,%d,%d,%d,%s", total, total, rowBytes, b.String()), above
}
