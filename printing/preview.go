package printing

import (
	"image"
	"image/color"
	"image/draw"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"qrdesk/internal/glyphs"
)

// Preview draws the first page of a print run as an image from the same
// layout the PDF uses: label outlines, every QR module and each line of
// text in its place and size (the serials read as on the label, where the
// scale lets them). pxPerMM sets the scale.
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
			drawText(img, ln.Text, (x+ln.X)*pxPerMM, (y+ln.Y)*pxPerMM, ln.SizePt*ptMM*pxPerMM, textWidth(ln.Text, ln.SizePt, ln.Mono)*pxPerMM, ln.Mono)
		}
	}
	return img, nil
}

// previewFonts are the preview's faces, as the PDF's: Go Mono for the
// codes (Courier there), Go Regular for a line of plain ASCII (Helvetica),
// and the chain fonts the PDF embeds (fonts.go) for any other line.
var previewFonts = sync.OnceValues(func() ([]*opentype.Font, error) {
	data := [][]byte{gomono.TTF, goregular.TTF}
	for _, f := range fontChain() {
		data = append(data, f.data)
	}
	fs := make([]*opentype.Font, len(data))
	for i, d := range data {
		f, err := opentype.Parse(d)
		if err != nil {
			return nil, err
		}
		fs[i] = f
	}
	return fs, nil
})

// drawText draws s in black with its baseline's left end at (x, y) px, em
// px high, narrowed to at most width px (the space the PDF's line takes);
// each character in the face the PDF prints it in.
func drawText(img draw.Image, s string, x, y, em, width float64, mono bool) {
	fs, err := previewFonts()
	if err != nil || em < 1 {
		return
	}
	s = glyphs.Composed(s)
	chain := fs[2:]
	var order []*opentype.Font
	switch {
	case mono:
		order = append([]*opentype.Font{fs[0]}, chain...)
	case isASCII(s):
		order = []*opentype.Font{fs[1]}
	}
	var buf sfnt.Buffer
	fontOf := func(r rune) *opentype.Font {
		for _, f := range order {
			if g, err := f.GlyphIndex(&buf, r); err == nil && g != 0 {
				return f
			}
		}
		if i := glyphs.Index(r); i >= 0 {
			return chain[i]
		}
		return chain[0]
	}
	faces := map[*opentype.Font]font.Face{}
	defer func() {
		for _, fc := range faces {
			fc.Close()
		}
	}()
	faceOf := func(f *opentype.Font, size float64) font.Face {
		if fc, ok := faces[f]; ok {
			return fc
		}
		fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			return nil
		}
		faces[f] = fc
		return fc
	}
	measure := func(size float64) float64 {
		w := fixed.Int26_6(0)
		for _, r := range s {
			if fc := faceOf(fontOf(r), size); fc != nil {
				a, _ := fc.GlyphAdvance(r)
				w += a
			}
		}
		return float64(w) / 64
	}
	if w := measure(em); w > width && width > 0 {
		for _, fc := range faces {
			fc.Close()
		}
		clear(faces)
		em *= width / w
	}
	dot := fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(y * 64)}
	for _, r := range s {
		if glyphs.Index(r) < 0 && (mono || !isASCII(s)) {
			r = '?' // as the PDF draws it (fontRuns)
		}
		fc := faceOf(fontOf(r), em)
		if fc == nil {
			continue
		}
		d := font.Drawer{Dst: img, Src: image.Black, Face: fc, Dot: dot}
		d.DrawString(string(r))
		dot = d.Dot
	}
}
