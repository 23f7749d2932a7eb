package printing

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
)

// ZPL writes labels as ZPL II for Zebra-compatible thermal printers: one
// ^XA…^XZ block per label, positions in printer dots at dpi (203 or 300),
// the QR as a native ^BQ barcode so the printer draws it dot-sharp.
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
