package printing

import (
	"fmt"
	"io"
)

// WriteCalibrationPDF draws a test page: every label's outline with a cross
// at each corner and a millimetre ruler along the top and the left edge.
// Printed at 100 % and laid on a label sheet, the distance from a printed
// cross to the real corner is the offset to save with
// 'qrdesk settings --offset-x MM --offset-y MM'.
func WriteCalibrationPDF(w io.Writer, o Options) error {
	t := o.Template
	if err := t.Validate(); err != nil {
		return fmt.Errorf("template %s: %w", t.Name, err)
	}
	pdf := newPDF(t, o.Created, nil)
	pdf.AddPage()
	pdf.SetDrawColor(0, 0, 0)
	pdf.SetLineWidth(0.15)
	for pos := 0; pos < t.PerPage(); pos++ {
		x, y := t.LabelRect(pos)
		x, y = x+o.OffsetX, y+o.OffsetY
		pdf.SetDrawColor(160, 160, 160)
		pdf.RoundedRect(x, y, t.LabelWidth, t.LabelHeight, t.Radius, "1234", "D")
		pdf.SetDrawColor(0, 0, 0)
		for _, c := range [][2]float64{{x, y}, {x + t.LabelWidth, y}, {x, y + t.LabelHeight}, {x + t.LabelWidth, y + t.LabelHeight}} {
			pdf.Line(c[0]-2, c[1], c[0]+2, c[1])
			pdf.Line(c[0], c[1]-2, c[0], c[1]+2)
		}
	}
	ruler(pdf, t)
	size := 6.0
	if t.PageWidth < 70 {
		size = 4
	}
	pdf.SetFont(monoFont, "", size)
	lines := []string{
		fmt.Sprintf("qrdesk calibration: %s, offsets %+.1f / %+.1f mm", t.Name, o.OffsetX, o.OffsetY),
		"Print at 100 % (no fit to page). Measure cross -> label corner,",
		"then: qrdesk settings --offset-x MM --offset-y MM",
	}
	x, y := t.LabelRect(0)
	for i, s := range lines {
		pdf.Text(x+o.OffsetX+3, y+o.OffsetY+t.LabelHeight/2+float64(i-1)*size*ptMM*1.3, s)
	}
	if err := pdf.Error(); err != nil {
		return fmt.Errorf("cannot build the calibration page: %w", err)
	}
	return pdf.Output(w)
}

type pdfDrawer interface {
	Line(x1, y1, x2, y2 float64)
	SetFont(family, style string, size float64)
	Text(x, y float64, s string)
}

// ruler draws millimetre ticks along the top and left page edges, longer
// every 5 mm and numbered every 10 mm.
func ruler(pdf pdfDrawer, t Template) {
	pdf.SetFont(monoFont, "", 4)
	for mm := 0; float64(mm) <= t.PageWidth; mm++ {
		l := tickLen(mm)
		pdf.Line(float64(mm), 0, float64(mm), l)
		if mm%10 == 0 && mm > 0 {
			pdf.Text(float64(mm)+0.3, 4.5, fmt.Sprint(mm))
		}
	}
	for mm := 0; float64(mm) <= t.PageHeight; mm++ {
		l := tickLen(mm)
		pdf.Line(0, float64(mm), l, float64(mm))
		if mm%10 == 0 && mm > 0 {
			pdf.Text(3.2, float64(mm)-0.3, fmt.Sprint(mm))
		}
	}
}

func tickLen(mm int) float64 {
	switch {
	case mm%10 == 0:
		return 3
	case mm%5 == 0:
		return 2
	}
	return 1
}
