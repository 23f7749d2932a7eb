package printing

import (
	"image"
	"image/color"
	"image/draw"
)

// Preview draws the first page of a print run as an image from the same
// layout the PDF uses: label outlines, every QR module and a grey bar for
// each line of text. pxPerMM sets the scale.
func Preview(labels []Label, o Options, pxPerMM float64) (image.Image, error) {
	if err := o.validate(len(labels)); err != nil {
		return nil, err
	}
	t := o.Template
	n := min(len(labels), t.PerPage()-o.Start)
	layouts, err := layoutAll(labels[:n], o)
	if err != nil {
		return nil, err
	}
	px := func(mm float64) int { return int(mm * pxPerMM) }
	img := image.NewRGBA(image.Rect(0, 0, px(t.PageWidth), px(t.PageHeight)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	outline := color.RGBA{190, 190, 190, 255}
	text := color.RGBA{120, 120, 120, 255}
	fill := func(x0, y0, x1, y1 float64, c color.Color) {
		draw.Draw(img, image.Rect(px(x0), px(y0), max(px(x1), px(x0)+1), max(px(y1), px(y0)+1)), image.NewUniform(c), image.Point{}, draw.Src)
	}
	for pos := 0; pos < t.PerPage(); pos++ {
		x, y := t.LabelRect(pos)
		x, y = x+o.OffsetX, y+o.OffsetY
		fill(x, y, x+t.LabelWidth, y+0.2, outline)
		fill(x, y+t.LabelHeight-0.2, x+t.LabelWidth, y+t.LabelHeight, outline)
		fill(x, y, x+0.2, y+t.LabelHeight, outline)
		fill(x+t.LabelWidth-0.2, y, x+t.LabelWidth, y+t.LabelHeight, outline)
		i := pos - o.Start
		if i < 0 || i >= n {
			continue
		}
		l := layouts[i]
		m := l.ModuleMM
		qx, qy := x+l.QRX+quietZone*m, y+l.QRY+quietZone*m
		darkRects(l.Matrix, func(row, col, w, h int) {
			fill(qx+float64(col)*m, qy+float64(row)*m, qx+float64(col+w)*m, qy+float64(row+h)*m, color.Black)
		})
		for _, ln := range l.Lines {
			h := ln.SizePt * ptMM * 0.7
			fill(x+ln.X, y+ln.Y-h, x+ln.X+textWidth(ln.Text, ln.SizePt, ln.Mono), y+ln.Y, text)
		}
	}
	return img, nil
}
