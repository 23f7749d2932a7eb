package printing

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/go-pdf/fpdf"
)

// Options control a print run.
type Options struct {
	Template         Template
	Start            int     // positions to skip on the first sheet (partly used sheet)
	OffsetX, OffsetY float64 // calibration, mm, added to every position
	EC               string  // QR error correction: L, M (default), Q or H
	Created          time.Time
	Outlines         bool // draw label outlines (previews)
}

// thermalDotMM is one dot of a 203-dpi thermal printer: modules of thermal
// labels are whole dots so the print stays sharp.
const thermalDotMM = 25.4 / 203

func (o Options) snap() float64 {
	if o.Template.Thermal {
		return thermalDotMM
	}
	return 0
}

// newPDF starts a document for template t with reproducible metadata and
// the chain fonts (fonts.go) that texts need.
func newPDF(t Template, created time.Time, texts []string) *fpdf.Fpdf {
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "mm", Size: fpdf.SizeType{Wd: t.PageWidth, Ht: t.PageHeight}})
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetMargins(0, 0, 0)
	if created.IsZero() {
		created = time.Now()
	}
	pdf.SetCreationDate(created)
	pdf.SetModificationDate(created)
	pdf.SetCatalogSort(true)
	pdf.SetProducer("qrdesk", false)
	chain := fontChain()
	need := make([]bool, len(chain))
	for _, s := range texts {
		if isASCII(s) {
			continue // Helvetica
		}
		for _, run := range fontRuns(s) {
			need[run.font] = true
		}
	}
	for i, f := range chain {
		if need[i] {
			// fpdf appends to slices of the font bytes it was given while it
			// subsets the font (utf8fontfile.go getMetrics), writing into
			// their backing array: each document gets its own copy, or two
			// PDFs made at once (preview and print) would write into the
			// shared font.
			pdf.AddUTF8FontFromBytes(f.family, "", bytes.Clone(f.data))
		}
	}
	return pdf
}

// writeText writes s with its baseline's left end at (x, y) mm: a line of
// plain ASCII in Helvetica, any other each character in the first chain
// font that holds it. It returns the width written, in mm.
func writeText(pdf *fpdf.Fpdf, x, y float64, s string, sizePt float64) float64 {
	if isASCII(s) {
		pdf.SetFont(latinFont, "", sizePt)
		pdf.Text(x, y, s)
		return pdf.GetStringWidth(s)
	}
	chain := fontChain()
	x0 := x
	for _, run := range fontRuns(s) {
		pdf.SetFont(chain[run.font].family, "", sizePt)
		pdf.Text(x, y, run.text)
		x += pdf.GetStringWidth(run.text)
	}
	return x - x0
}

func (o Options) validate(labels int) error {
	if err := o.Template.Validate(); err != nil {
		return fmt.Errorf("template %s: %w", o.Template.Name, err)
	}
	if o.Start != 0 && o.Template.PerPage() == 1 {
		return fmt.Errorf("--start chooses a position on a sheet; %s is a roll with one label per page: leave it out", o.Template.Name)
	}
	if o.Start < 0 || o.Start >= o.Template.PerPage() {
		// Start counts skipped positions; the clerk counts from 1.
		return fmt.Errorf("--start %d is not a position on a %s sheet: use 1 to %d", o.Start+1, o.Template.Name, o.Template.PerPage())
	}
	if o.OffsetX < -20 || o.OffsetX > 20 || o.OffsetY < -20 || o.OffsetY > 20 {
		return fmt.Errorf("offsets %g, %g mm are out of range: calibration offsets are between -20 and 20 mm", o.OffsetX, o.OffsetY)
	}
	if labels == 0 {
		return fmt.Errorf("there are no codes to print")
	}
	_, err := ECLevel(o.EC)
	return err
}

// Pages is how many pages labels need starting at position start.
func Pages(t Template, start, labels int) int {
	return (start + labels + t.PerPage() - 1) / t.PerPage()
}

// WritePDF draws labels onto sheets (or roll pages) of o.Template. Every
// layout is checked before anything is written.
func WritePDF(w io.Writer, labels []Label, o Options) error {
	if err := o.validate(len(labels)); err != nil {
		return err
	}
	layouts, err := layoutAll(labels, o)
	if err != nil {
		return err
	}
	var texts []string
	for _, lay := range layouts {
		for _, ln := range lay.Lines {
			if !ln.Mono {
				texts = append(texts, ln.Text)
			}
		}
	}
	pdf := newPDF(o.Template, o.Created, texts)
	t := o.Template
	for i := range labels {
		pos := o.Start + i
		if i == 0 || pos%t.PerPage() == 0 {
			pdf.AddPage()
		}
		x, y := t.LabelRect(pos)
		drawLabel(pdf, layouts[i], x+o.OffsetX, y+o.OffsetY, t, o.Outlines)
	}
	if err := pdf.Error(); err != nil {
		return fmt.Errorf("cannot build the PDF: %w", err)
	}
	return pdf.Output(w)
}

func drawLabel(pdf *fpdf.Fpdf, l labelLayout, x, y float64, t Template, outline bool) {
	if outline {
		pdf.SetDrawColor(180, 180, 180)
		pdf.SetLineWidth(0.1)
		pdf.RoundedRect(x, y, t.LabelWidth, t.LabelHeight, t.Radius, "1234", "D")
	}
	pdf.SetFillColor(0, 0, 0)
	m := l.ModuleMM
	pdf.RawWriteStr(qrPath(l.Matrix, x+l.QRX+quietZone*m, y+l.QRY+quietZone*m, m, pdf.GetConversionRatio(), t.PageHeight))
	pdf.SetTextColor(0, 0, 0)
	for _, ln := range l.Lines {
		if ln.Mono {
			pdf.SetFont(monoFont, "", ln.SizePt)
			pdf.Text(x+ln.X, y+ln.Y, ln.Text)
			continue
		}
		writeText(pdf, x+ln.X, y+ln.Y, ln.Text, ln.SizePt)
	}
}

// qrPath is the PDF content that draws a QR matrix: one coordinate
// transform to module units (origin at the QR's top-left corner, y down),
// then every run of dark modules as a rectangle with small integer
// coordinates, filled at once. It keeps 10,000 labels to a few MB.
func qrPath(matrix [][]bool, x, y, module, k, pageHeight float64) string {
	b := make([]byte, 0, 4096)
	b = append(b, "q "...)
	for _, v := range []float64{module * k, 0, 0, -module * k, x * k, (pageHeight - y) * k} {
		b = strconv.AppendFloat(b, v, 'f', 4, 64)
		b = append(b, ' ')
	}
	b = append(b, "cm\n"...)
	darkRects(matrix, func(row, col, w, h int) {
		b = strconv.AppendInt(b, int64(col), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(row), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(w), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(h), 10)
		b = append(b, " re\n"...)
	})
	b = append(b, "f Q\n"...)
	return string(b)
}

// layoutAll lays out every label before anything is drawn, on all cores:
// encoding the QR codes is most of the work.
func layoutAll(labels []Label, o Options) ([]labelLayout, error) {
	ec, _ := ECLevel(o.EC)
	out := make([]labelLayout, len(labels))
	errs := make([]error, len(labels))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(labels); i += workers {
				out[i], errs[i] = layout(o.Template, labels[i], ec, o.snap())
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
